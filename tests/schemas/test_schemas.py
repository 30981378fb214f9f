"""The shipped schemas: valid 2020-12 documents with stable ids, resolvable refs, and consistent manifests;
plus the data-driven cases of tests/schemas/*.json (JSON-Schema-Test-Suite style)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness.check import schema_store

#: Where every shipped schema's `$id` lives: users' `$ref`s name these URLs, so they never change.
SCHEMA_BASE = "https://callproof.dev/schemas/"
SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
CASES_DIR = Path(__file__).resolve().parent
CASES_SCHEMA = json.loads((CASES_DIR.parent / "schema_cases.schema.json").read_text())
SCHEMA_FILES = sorted(p for p in SCHEMAS.rglob("*.json") if "fronts" not in p.relative_to(SCHEMAS).parts)
MANIFESTS = sorted((SCHEMAS / "fronts").glob("*.json"))
CASE_FILES = sorted(CASES_DIR.glob("*.json"))


def _rel(path: Path) -> str:
    return path.relative_to(SCHEMAS).as_posix()


def _load_cases() -> list[Any]:
    params = []
    for path in CASE_FILES:
        for case in json.loads(path.read_text(encoding="utf-8")):
            params.append(pytest.param(case, id=f"{path.stem}::{case['description']}"))
    return params


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=_rel)
def test_schema_is_valid_draft_2020_12(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(doc)


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=_rel)
def test_schema_id_is_its_path(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["$id"] == SCHEMA_BASE + _rel(path)
    assert doc.get("title"), "every schema has a title"


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=_rel)
def test_schema_refs_resolve(path: Path) -> None:
    validator = schema_store().validator(_rel(path))
    # Compiling resolves every $ref; evaluating an instance exercises the lazily resolved ones too.
    validator.is_valid({})


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_front_manifest(path: Path) -> None:
    manifest = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(manifest, json.loads((SCHEMAS / "front.schema.json").read_text()))
    stem = f"{manifest['front']}.{manifest['profile']}" if manifest["profile"] else manifest["front"]
    assert path.stem == stem, f"{path.name} declares front/profile {stem}"
    for ref in [*manifest["events"].values(), manifest["body"], manifest["error_body"]]:
        assert (SCHEMAS / ref).is_file(), f"{path.name} names {ref}, which does not exist"


def test_every_front_and_profile_has_a_manifest() -> None:
    store = schema_store()
    for front in ("responses", "chat", "anthropic"):
        for profile in ("openai", "open-responses", "lenient"):
            assert store.front(front, profile).events


def test_openai_manifest_knows_the_sdk_event_union() -> None:
    events = schema_store().front("responses", "openai").events
    assert len(events) >= 53
    for name in ("response.function_call_arguments.delta", "response.custom_tool_call_input.done",
                 "response.mcp_call_arguments.delta", "response.reasoning_text.delta", "error"):
        assert name in events
    assert "response.reasoning.delta" not in events
    assert "response.reasoning.delta" in schema_store().front("responses", "open-responses").events


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_case_file_is_well_formed(path: Path) -> None:
    cases = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(cases, CASES_SCHEMA)
    for case in cases:
        lowered = case["description"].lower()
        assert "should" not in lowered and "test that" not in lowered, case["description"]
        assert (SCHEMAS / case["schema_ref"]).is_file(), f"{case['description']}: no {case['schema_ref']}"


def test_case_descriptions_are_unique() -> None:
    seen: dict[str, str] = {}
    for path in CASE_FILES:
        for case in json.loads(path.read_text(encoding="utf-8")):
            first = seen.get(case["description"])
            assert first is None, f"{case['description']!r} is in {path.name} and {first}"
            seen[case["description"]] = path.name


def test_cases_cover_valid_and_invalid() -> None:
    by_ref: dict[str, set[bool]] = {}
    for path in CASE_FILES:
        for case in json.loads(path.read_text(encoding="utf-8")):
            by_ref.setdefault(case["schema_ref"], set()).add(case["valid"])
    tool_refs = [r for r in by_ref if "function_call" in r or "tool" in r]
    assert tool_refs, "tool-call schemas have cases"
    for ref in tool_refs:
        assert by_ref[ref] == {True, False}, f"{ref} needs both valid and invalid cases"


@pytest.mark.parametrize("case", _load_cases())
def test_case(case: dict[str, Any]) -> None:
    validator = schema_store().validator(case["schema_ref"])
    errors = [] if case["valid"] else validator.errors(case["data"])
    assert validator.is_valid(case["data"]) is case["valid"], errors or validator.errors(case["data"])
