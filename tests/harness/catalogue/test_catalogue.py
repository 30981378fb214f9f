"""The rule catalogue: stable well-formed ids, complete metadata, docs/rules.md kept equal to the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from callproof.harness import CATALOGUE, RULES, Rule, rules_for
from callproof.harness.catalogue._rule import FAMILIES, FRONTS, LEVELS, PROFILES

ROOT = Path(__file__).resolve().parents[3]
ID = re.compile(r"^(SSE|RSP|CHAT|ANT|EXP|GW|CLI)(-[A-Z]+)?-\d{3}$")
#: The fronts a rule id's prefix names; the expected outcome, gateway and client rules judge every front (a client
#: speaks any dialect: --client-dialect).
PREFIX_FRONTS = {"RSP": {"responses"}, "CHAT": {"chat"}, "ANT": {"anthropic"}, "EXP": set(FRONTS), "GW": set(FRONTS),
                 "CLI": set(FRONTS)}
#: The rules of the Responses WebSocket mode, which only the Responses API has: a gateway's WebSocket front (GW-WS-*)
#: and a WebSocket client (CLI-016, CLI-017).
WEBSOCKET_ONLY = re.compile(r"GW-WS-\d{3}|CLI-01[67]")


def test_ids_are_unique_and_well_formed() -> None:
    ids = [rule.id for rule in CATALOGUE]
    assert len(ids) == len(set(ids))
    for rule_id in ids:
        assert ID.match(rule_id), rule_id


@pytest.mark.parametrize("rule", CATALOGUE, ids=lambda r: r.id)
def test_rule_metadata_is_complete(rule: Rule) -> None:
    assert rule.level in LEVELS and rule.family in FAMILIES
    assert rule.fronts and rule.fronts <= set(FRONTS)
    assert rule.profiles and rule.profiles <= set(PROFILES)
    assert rule.statement.endswith(".") and len(rule.statement) <= 120
    assert rule.spec and rule.fix
    prefix = rule.id.split("-")[0]
    if prefix != "SSE":
        assert rule.fronts == ({"responses"} if WEBSOCKET_ONLY.fullmatch(rule.id) else PREFIX_FRONTS[prefix])
    assert rule.on_stream == (prefix in ("SSE", "RSP", "CHAT", "ANT"))


def test_every_rule_id_in_the_code_is_catalogued() -> None:
    literal = re.compile(r'"((?:SSE|RSP|CHAT|ANT|EXP|GW|CLI)(?:-[A-Z]+)?-\d{3})"')
    used: set[str] = set()
    for path in (ROOT / "harness").rglob("*.py"):
        if path.name != "_catalogue.py":
            used |= set(literal.findall(path.read_text(encoding="utf-8")))
    assert used, "the checkers name rules by id"
    assert used <= set(RULES), f"not in the catalogue: {sorted(used - set(RULES))}"


def test_lenient_is_a_subset_of_openai_for_responses() -> None:
    lenient = {r.id for r in rules_for("responses", "lenient")}
    openai = {r.id for r in rules_for("responses", "openai")}
    assert lenient < openai
    assert "RSP-SEQ-003" not in lenient and "RSP-ARGS-001" in lenient


def test_readme_is_an_entry_that_links_to_the_catalogue() -> None:
    """README.md carries no rule table (docs/rules.md is the catalogue) and links there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "rules:begin" not in readme and '<a id="rsp-args-001">' not in readme
    assert "](docs/rules.md)" in readme
    assert len(readme.encode("utf-8")) <= 20_000, "README.md is an entry: keep it under 20 KB, move detail to docs/"


def test_generated_documents_are_up_to_date() -> None:
    from callproof.harness.cli._docs import outputs

    stale = [str(path.relative_to(ROOT)) for path, text in outputs(ROOT).items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    assert stale == [], f"stale generated documents {stale}: run `make docs`"


def test_rules_json_is_valid_against_its_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "catalogue.schema.json").read_text(encoding="utf-8"))
    document = json.loads((ROOT / "harness" / "catalogue" / "rules.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, errors
    broken = {**document, "rules": [{**document["rules"][0], "level": "MAYBE"}]}
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)

