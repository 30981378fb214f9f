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


def _failures(dialect: str, front: dict[str, Any], body: dict[str, Any]) -> list[tuple[str, str, Any]]:
    findings = Findings()
    check_translation(findings, dialect, front, "[callproof:case=t1]", [body])
    return [(r.rule.id, v.message, v.evidence) for r in findings.results() for v in r.violations]


@pytest.mark.parametrize(("case", "message", "path", "actual"), [
    ("chat_tool_output_json_value_changed",
     "the tool result for 'call_tr_1' at $.messages[3].content is \"{\\\"temperature_c\\\": 19}\", expected "
     "\"{\\\"temperature_c\\\":18}\"", "$.messages[3].content", '{"temperature_c": 19}'),
    ("anthropic_tool_output_as_python_repr",
     "the tool_result for 'call_tr_1' at $.messages[2].content[0].content is \"{'temperature_c': 18}\", expected "
     "\"{\\\"temperature_c\\\":18}\"", "$.messages[2].content[0].content", "{'temperature_c': 18}"),
    ("responses_output_json_value_changed",
     "the output for 'call_tr_1' at $.input[2].output is \"{\\\"temperature_c\\\": \\\"18\\\"}\", expected "
     "\"{\\\"temperature_c\\\":18}\"", "$.input[2].output", '{"temperature_c": "18"}'),
])
def test_a_changed_tool_output_names_both_values_and_the_path_in_every_dialect(
    case: str, message: str, path: str, actual: str,
) -> None:
    """docs/spec/schema-comparison.md §3: a JSON output compares by meaning; the message says what was expected."""
    scenario = SCENARIOS[CASES[case]["scenario"]]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    (found,) = _failures(CASES[case]["dialect"], front, upstream_body(CASES[case]))
    assert found[:2] == ("GW-REQ-006", message + " (a JSON output is compared by meaning, any other byte for byte: "
                         "docs/spec/schema-comparison.md §3)")
    assert (found[2].path, found[2].expected, found[2].actual) == (
        f"upstream request {path}", '{"temperature_c":18}', actual)


def _builtin_tools_case() -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario builtin_tools_in_request (scenarios/request_shapes.json) and an upstream Responses body that
    sends its web_search as web_search_preview and drops its custom tool, as LiteLLM does at an Anthropic front."""
    (scenario,) = [s for s in load_scenarios([Path(__file__).parents[3] / "scenarios" / "request_shapes.json"]
                                             ).values() if s.id == "builtin_tools_in_request"]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    weather = next(t for t in front["tools"] if t.get("name") == "get_weather")
    body = {"model": "callproof-model", "stream": True, "input": front["input"], "tools": [
        {"type": "web_search_preview"}, {"type": "file_search", "vector_store_ids": ["vs_callproof_1"]},
        {**weather, "type": "function"}]}
    return front, body


def test_builtin_tools_in_request_sent_as_an_equivalent_builtin_type_passes() -> None:
    """docs/spec/schema-comparison.md §5: web_search as web_search_preview (Responses) or web_search_20260318
    (Anthropic) is the front's tool in a form the upstream's dialect defines."""
    front, body = _builtin_tools_case()
    assert [f for f in _failures("responses", front, body) if f[0] == "GW-REQ-008"] == []
    anthropic = {"model": "callproof-model", "max_tokens": 1024, "messages": [
        {"role": "user", "content": front["input"][0]["content"][0]["text"]}], "tools": [
        {"type": "web_search_20260318", "name": "web_search"},
        {"name": "get_weather", "description": "Current weather for a city.",
         "input_schema": front["tools"][3]["parameters"]}]}
    assert [f for f in _failures("anthropic", front, anthropic) if f[0] == "GW-REQ-008"] == []


def test_an_equivalent_builtin_type_with_other_options_fails_naming_the_option() -> None:
    front, body = _builtin_tools_case()
    body["tools"][0] = {"type": "web_search_preview", "search_context_size": "low"}
    (found,) = [f for f in _failures("responses", front, body) if f[0] == "GW-REQ-008"]
    assert found[1] == (
        "upstream tool {\"type\": \"web_search_preview\", \"search_context_size\": \"low\"}: a built-in tool changed "
        "on the way: sent as 'web_search_preview' for the front's 'web_search' (an equivalent type, "
        "docs/spec/schema-comparison.md §5), its options differ at $.search_context_size: \"low\" upstream, "
        "expected absent; the front's built-in tools ['custom', 'file_search', 'web_search'] must be dropped (or "
        "sent in a form the responses dialect defines), never forwarded as a malformed entry")
    assert found[2].path == "upstream request $.tools[0]"
