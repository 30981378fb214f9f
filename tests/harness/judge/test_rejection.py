"""A gateway's rejection of a request (harness/judge/_rejection.py, docs/spec/contracts.md §7.12, docs/spec/items.md
§1, §2), on hand-made answers: what makes a rejection valid (4xx, the front's error shape, a message naming what it
refuses, no upstream call), which rule judges it (GW-REQ-008 built-in tools, GW-REQ-010 a structured output,
GW-REQ-012 a custom tool, GW-REQ-013 a tool without a name) and what it names when one of them is missing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import (
    Findings,
    check_nameless_relay,
    check_rejection,
    is_rejection,
    read_answer,
    refusable,
    rejection_problem,
)
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.request import front_request
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
BUILTIN = SCENARIOS["builtin_tools_in_request"]
JSON = {"content-type": "application/json"}
OPENAI_ERROR = {"error": {"message": "web_search is not supported", "type": "invalid_request_error"}}
ANTHROPIC_ERROR = {"type": "error", "error": {"type": "invalid_request_error",
                                              "message": "tool type custom is not supported"}}


def answer(status: int, body: Any, front: Dialect = "responses", *, timed_out: bool = False) -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, status, JSON, (Chunk(0.1, data),), None, timed_out)
    return read_answer(exchange, "openai", front)


def failures(given: Any, scenario: Any = BUILTIN, rule: str = "GW-REQ-008", upstream: str = "chat",
             policies: dict[str, str] | None = None) -> list[str]:
    findings = Findings()
    check_rejection(findings, scenario, given, upstream=upstream, policies=policies)
    results = findings.results()
    assert [r.rule.id for r in results] == [rule]
    return [v.message for r in results for v in r.violations]


def test_the_scenarios_that_may_be_rejected_and_their_rules() -> None:
    assert BUILTIN.expect.may_reject
    rules = {s.id: refusable(s).rule for s in SCENARIOS.values() if s.expect.may_reject}
    assert rules.items() >= {
        "builtin_tools_in_request": "GW-REQ-008", "structured_output_strict_tool": "GW-REQ-010",
        "structured_output_nested_schema": "GW-REQ-010", "custom_tool_offered": "GW-REQ-012",
        "tool_definition_without_name": "GW-REQ-013"}.items()
    assert set(rules.values()) <= {"GW-REQ-008", "GW-REQ-010", "GW-REQ-012", "GW-REQ-013"}


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


@pytest.mark.parametrize(("scenario", "rule", "good", "vague"), [
    ("tool_definition_without_name", "GW-REQ-013", "tools[1] has no name", "unsupported request"),
    ("custom_tool_offered", "GW-REQ-012", "custom tool apply_patch is not supported", "unsupported request"),
    ("structured_output_strict_tool", "GW-REQ-010", "response_format json_schema is not supported", "bad request"),
])
def test_each_refusable_request_is_judged_by_its_rule(scenario: str, rule: str, good: str, vague: str) -> None:
    """A 4xx naming what it refuses passes the scenario's rule; one naming nothing fails it, saying what to name."""
    assert failures(answer(400, _error(good)), SCENARIOS[scenario], rule) == []
    messages = failures(answer(400, _error(vague)), SCENARIOS[scenario], rule)
    assert len(messages) == 1 and f'its message "{vague}" names none of' in messages[0], messages


@pytest.mark.parametrize(("upstream", "policies", "why"), [
    ("responses", {}, "a Responses upstream has custom tools"),
    ("chat", {"custom-tools": "convert"}, "--policy custom-tools=convert"),
    ("anthropic", {"custom-tools": "convert"}, "--policy custom-tools=convert"),
])
def test_refusing_a_custom_tool_fails_where_it_could_be_carried(upstream: str, policies: dict[str, str],
                                                               why: str) -> None:
    given = answer(400, _error("custom tool apply_patch is not supported"))
    messages = failures(given, SCENARIOS["custom_tool_offered"], "GW-REQ-012", upstream, policies)
    assert len(messages) == 1 and why in messages[0], messages
    assert failures(given, SCENARIOS["custom_tool_offered"], "GW-REQ-012", "anthropic", {}) == []


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
@pytest.mark.parametrize("policies", [{}, {"custom-tools": "either"}, {"custom-tools": "refuse"}])
def test_refusing_a_custom_tool_passes_by_default_and_under_refuse(upstream: str, policies: dict[str, str]) -> None:
    """The default policy, `either`, accepts a clear refusal as `refuse` does (docs/spec/items.md §5)."""
    given = answer(400, _error("custom tool apply_patch is not supported"))
    assert failures(given, SCENARIOS["custom_tool_offered"], "GW-REQ-012", upstream, policies) == []
    vague = failures(answer(400, _error("unsupported request")), SCENARIOS["custom_tool_offered"], "GW-REQ-012",
                     upstream, policies)
    assert len(vague) == 1 and "names none of ['apply_patch', 'custom']" in vague[0], vague


@pytest.mark.parametrize(("front", "body"), [("responses", OPENAI_ERROR), ("chat", OPENAI_ERROR),
                                             ("anthropic", ANTHROPIC_ERROR)])
def test_a_4xx_in_the_fronts_error_shape_naming_a_builtin_tool_passes(front: Dialect, body: Any) -> None:
    given = answer(400, body, front)
    assert is_rejection(given, BUILTIN, upstream_called=False)
    assert rejection_problem(given, BUILTIN) is None
    assert failures(given) == []


def test_an_http_error_after_calling_the_upstream_or_a_timeout_or_a_success_is_no_rejection() -> None:
    assert not is_rejection(answer(400, OPENAI_ERROR), BUILTIN, upstream_called=True)
    assert not is_rejection(answer(400, OPENAI_ERROR, timed_out=True), BUILTIN, upstream_called=False)
    assert not is_rejection(answer(200, {"status": "completed"}), BUILTIN, upstream_called=False)
    assert not is_rejection(answer(400, OPENAI_ERROR), SCENARIOS["one_call"], upstream_called=False)


@pytest.mark.parametrize(("status", "body", "front", "missing"), [
    (500, OPENAI_ERROR, "responses", "HTTP 500 is not a 4xx"),
    (400, b"<html>bad request</html>", "responses", "its body is not a JSON object"),
    (400, {"detail": "web_search"}, "chat", "without an `error` object holding a `message` string"),
    (400, OPENAI_ERROR, "anthropic", "not Anthropic's error envelope"),
    (400, {"error": {"message": "unsupported request", "type": "invalid_request_error"}}, "responses",
     "its message \"unsupported request\" names none of ['web_search', 'file_search', 'custom'] (built-in tools)"),
])
def test_a_rejection_missing_something_fails_naming_it(status: int, body: Any, front: Dialect, missing: str) -> None:
    given = answer(status, body, front)
    assert is_rejection(given, BUILTIN, upstream_called=False)
    messages = failures(given)
    assert len(messages) == 1 and missing in messages[0], messages
    assert messages[0].startswith(f"the front answered HTTP {status} without calling its upstream, but ")


NAMELESS = SCENARIOS["tool_definition_without_name"]
#: The upstream's refusal of a tool without a name, as a gateway passes it on (docs/spec/verdicts.md §16).
RELAYED = {
    "chat": {"error": {"message": "Missing required parameter: 'tools[1].function.name'.",
                       "type": "invalid_request_error", "param": "tools[1].function.name",
                       "code": "missing_required_parameter"}},
    "anthropic": {"type": "error", "error": {"type": "invalid_request_error",
                                             "message": "tools.1.custom.name: Field required"}},
}


def _forwarded(dialect: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The front request (Responses form) and an upstream body that carries its nameless tool as it is."""
    front = front_request(NAMELESS.id, NAMELESS.request, case="t1", dialect="responses")
    tools: list[dict[str, Any]] = (
        [{"type": "function", "function": {"name": "get_weather", "parameters": {}}},
         {"type": "function", "function": {"description": "lost", "parameters": {}}}] if dialect == "chat" else
        [{"name": "get_weather", "input_schema": {}}, {"description": "lost", "input_schema": {}}])
    return front, {"model": "m", "messages": [], "tools": tools}


def relay_failures(dialect: str, given: Any) -> list[str]:
    front, body = _forwarded(dialect)
    findings = Findings()
    check_nameless_relay(findings, dialect, front, body, given, NAMELESS)
    assert [r.rule.id for r in findings.results()] == ["GW-REQ-013"]
    return [v.message for r in findings.results() for v in r.violations]


@pytest.mark.parametrize(("upstream", "front"), [("chat", "responses"), ("anthropic", "responses"),
                                                 ("chat", "anthropic"), ("anthropic", "chat")])
def test_the_upstreams_400_for_a_nameless_tool_passed_on_passes(upstream: str, front: Dialect) -> None:
    """docs/spec/verdicts.md §16: forwarded as it is, the tool is refused by the upstream; a front that passes that
    4xx on in its own error shape, the message naming the name, passes GW-REQ-013."""
    shape = "anthropic" if front == "anthropic" else "chat"
    assert relay_failures(upstream, answer(400, RELAYED[shape], front)) == []


@pytest.mark.parametrize(("status", "body", "missing"), [
    (200, {"status": "completed", "output": []}, "HTTP 200 is not a 4xx"),
    (502, {"error": {"message": "upstream error: tools[1].name", "type": "server_error"}}, "HTTP 502 is not a 4xx"),
    (400, {"error": {"message": "Bad request", "type": "invalid_request_error"}}, "names none of ['name']"),
])
def test_a_nameless_tools_refusal_swallowed_or_blurred_fails(status: int, body: Any, missing: str) -> None:
    (message,) = relay_failures("chat", answer(status, body))
    assert message.startswith("the front request's tools[1] have no name and reached the chat upstream without one, "
                              f"which refuses such a request (HTTP 400); the front answered HTTP {status}, but ")
    assert missing in message, message


def test_a_nameless_tool_dropped_or_named_is_not_the_relays_to_judge() -> None:
    """Dropped or given a name, no nameless tool reached the upstream: the request side judges it (_request_items),
    not the relay, which is then not applicable."""
    front, body = _forwarded("chat")
    for tools in (body["tools"][:1], [*body["tools"][:1], {"type": "function", "function": {"name": "tool_1"}}]):
        findings = Findings()
        check_nameless_relay(findings, "chat", front, {**body, "tools": tools}, answer(200, {}), NAMELESS)
        assert findings.results() == ()
