"""A gateway's rejection of built-in tools (harness/judge/_rejection.py, docs/spec/contracts.md §7.12), on
hand-made answers: what makes a rejection valid (4xx, the front's error shape, a message naming a built-in tool
type, no upstream call) and what GW-REQ-008 names when one of them is missing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import Findings, check_rejection, is_rejection, read_answer, rejection_problem
from callproof.harness.outcome import Chunk, Exchange
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


def failures(given: Any, scenario: Any = BUILTIN) -> list[str]:
    findings = Findings()
    check_rejection(findings, scenario, given)
    results = findings.results()
    assert [r.rule.id for r in results] == ["GW-REQ-008"]
    return [v.message for r in results for v in r.violations]


def test_only_the_builtin_tools_scenario_may_be_rejected() -> None:
    assert BUILTIN.expect.may_reject
    assert [s.id for s in SCENARIOS.values() if s.expect.may_reject] == ["builtin_tools_in_request"]


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
     "its message \"unsupported request\" names none of the request's built-in tool types ['web_search', "
     "'file_search', 'custom']"),
])
def test_a_rejection_missing_something_fails_naming_it(status: int, body: Any, front: Dialect, missing: str) -> None:
    given = answer(status, body, front)
    assert is_rejection(given, BUILTIN, upstream_called=False)
    messages = failures(given)
    assert len(messages) == 1 and missing in messages[0], messages
    assert messages[0].startswith(f"the front answered HTTP {status} without calling its upstream, but ")
