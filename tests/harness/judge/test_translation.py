"""Request translation (GW-REQ-*): each upstream body of data/translation.json passes or fails exactly the rules
it names, for the three upstream dialects."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness.judge import check_request_items
from callproof.harness.judge._findings import Findings
from callproof.harness.judge._translation import check_translation
from callproof.harness.request import front_request
from callproof.mock_server import load_scenarios

DATA = Path(__file__).parent / "data"
DOC = json.loads((DATA / "translation.json").read_text(encoding="utf-8"))
CASES = {c["id"]: c for c in DOC["cases"]}
SCENARIOS = load_scenarios([DATA / "translation_scenarios.json"])


def _walk(body: Any, path: str) -> tuple[Any, str | int]:
    *parents, last = path.split(".")
    for key in parents:
        body = body[int(key)] if isinstance(body, list) else body[key]
    return body, int(last) if isinstance(body, list) else last


def upstream_body(case: dict[str, Any]) -> dict[str, Any]:
    if "upstream" in case:
        return copy.deepcopy(case["upstream"])
    body = upstream_body(CASES[case["base"]])
    for path, value in case.get("set", {}).items():
        parent, key = _walk(body, path)
        parent[key] = value
    for path in case.get("delete", []):
        parent, key = _walk(body, path)
        del parent[key]
    return body


def test_the_data_file_is_valid() -> None:
    schema = json.loads((DATA / "translation.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(DOC, schema)
    assert len(CASES) == len(DOC["cases"]), "case ids are unique"


def test_every_request_rule_is_shown_failing_in_every_dialect_that_has_it() -> None:
    failing = {(c["dialect"], r) for c in DOC["cases"] for r in c["fails"]}
    for dialect in ("chat", "anthropic"):
        assert {r for d, r in failing if d == dialect} == {f"GW-REQ-{i:03}" for i in range(1, 14)} - (
            {"GW-REQ-001"} if dialect == "anthropic" else set())


@pytest.mark.parametrize("case", DOC["cases"], ids=lambda c: c["id"])
def test_translation_case(case: dict[str, Any]) -> None:
    scenario = SCENARIOS[case["scenario"]]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    user_text = front["input"] if isinstance(front["input"], str) else front["input"][0]["content"][0]["text"]
    findings = Findings()
    body = upstream_body(case)
    check_translation(findings, case["dialect"], front, user_text, [body])
    check_request_items(findings, case["dialect"], case.get("front", "responses"), front, body,
                        {"custom-tools": case.get("policy", "refuse")})
    failed = sorted(r.rule.id for r in findings.results() if r.outcome == "failed")
    messages = [v.message for r in findings.results() for v in r.violations]
    assert failed == sorted(case["fails"]), messages
    for result in findings.results():
        for violation in result.violations:
            assert violation.evidence.path and violation.evidence.path.startswith("upstream request $")


def test_no_upstream_request_fails_the_first_rule_only() -> None:
    scenario = SCENARIOS["tr_everything"]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    findings = Findings()
    check_translation(findings, "chat", front, "x", [])
    assert [(r.rule.id, r.outcome) for r in findings.results()] == [("GW-REQ-001", "failed")]
    assert "[callproof:case=...]" in findings.results()[0].violations[0].message


def test_a_schema_difference_is_named_by_its_json_path() -> None:
    """docs/spec/schema-comparison.md: GW-REQ-002 names the first real difference, not the whole schema."""
    scenario = SCENARIOS["tr_everything"]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    findings = Findings()
    body = upstream_body(CASES["anthropic_tool_schema_type_changed"])
    check_translation(findings, "anthropic", front, "[callproof:case=t1]", [body])
    (violation,) = [v for r in findings.results() if r.rule.id == "GW-REQ-002" for v in r.violations]
    assert violation.message == (
        "tool 'get_weather' has input_schema that differ from the front's at $.properties.city.type: [\"integer\"] "
        "upstream, expected [\"string\"] (schemas compared by meaning: docs/spec/schema-comparison.md); forward the "
        "schema unchanged")
    assert (violation.evidence.path, violation.evidence.expected, violation.evidence.actual) == (
        "upstream request $.tools[0].input_schema.properties.city.type", ["string"], ["integer"])
