"""The loop rules on hand-made request bodies (docs/spec/loops.md): GW-LOOP-001..003, CLI-014, CLI-015."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness.judge import (
    Findings,
    LoopCallResult,
    SequenceRequest,
    check_client_loop,
    check_client_retries,
    check_gateway_loop,
    history_problems,
)

OK = LoopCallResult("c1", "get_weather", "get_weather ok c1")
FAILED = LoopCallResult("c2", "get_weather", "get_weather error c2", True)
TURNS = ((OK, FAILED),)


def _chat(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "hi"}, *messages]}


CALLS = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
    {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}
R1 = {"role": "tool", "tool_call_id": "c1", "content": "get_weather ok c1"}
R2 = {"role": "tool", "tool_call_id": "c2", "content": "get_weather error c2"}


def _outcomes(findings: Findings) -> dict[str, str]:
    return {r.rule.id: r.outcome for r in findings.results()}


def test_a_correct_chat_history_has_no_problem() -> None:
    assert history_problems("chat", _chat(CALLS, R1, R2), TURNS) == []


@pytest.mark.parametrize(("body", "says"), [
    (_chat(CALLS, R1), "'c2' (get_weather) is missing"),
    (_chat(CALLS, R1, R2, R2), "'c2' appears 2 times"),
    (_chat(CALLS, R1, {**R2, "tool_call_id": ""}), "call id '', which no earlier answer gave"),
    (_chat(CALLS, R2, R1), "the results are out of order"),
    (_chat(R1, R2, CALLS), "comes before the call it answers"),
    (_chat(CALLS, R1, {**R2, "content": "something else"}), "carries 'something else'"),
    (_chat(R1, R2), "the call for call id 'c1' (get_weather) is missing"),
])
def test_a_broken_chat_history_is_named(body: dict[str, Any], says: str) -> None:
    problems = history_problems("chat", body, TURNS)
    assert any(says in message for message, _ in problems), problems


def test_responses_and_anthropic_shapes_are_read() -> None:
    responses = {"input": [{"type": "function_call", "call_id": "c1"}, {"type": "function_call", "call_id": "c2"},
                           {"type": "function_call_output", "call_id": "c1", "output": "get_weather ok c1"},
                           {"type": "function_call_output", "call_id": "c2",
                            "output": [{"type": "input_text", "text": "get_weather error c2"}]}]}
    assert history_problems("responses", responses, TURNS) == []
    anthropic = {"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1"}, {"type": "tool_use", "id": "c2"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "get_weather ok c1"},
                                     {"type": "tool_result", "tool_use_id": "c2", "is_error": True,
                                      "content": [{"type": "text", "text": "get_weather error c2"}]}]}]}
    assert history_problems("anthropic", anthropic, TURNS) == []


def _anthropic(is_error: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "c2", "content": "get_weather error c2"}
    return {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "c2"}]},
                         {"role": "user", "content": [{**result, "is_error": True} if is_error else result]}]}


@pytest.mark.parametrize(("front", "kept", "expected"), [
    ("anthropic", True, "passed"), ("anthropic", False, "failed"), ("chat", False, None)])
def test_is_error_is_judged_where_both_sides_say_it(front: str, kept: bool, expected: str | None) -> None:
    findings = Findings()
    request = SequenceRequest(1, 200, 1.0, _anthropic(kept), ((FAILED,),))
    check_gateway_loop(findings, "anthropic", front, [request], legs=2, unplayed=(), refusals=())
    assert _outcomes(findings).get("GW-LOOP-002") == expected
    assert _outcomes(findings)["GW-LOOP-001"] == "passed"


def test_an_unplayed_leg_or_a_refusal_fails_gw_loop_003() -> None:
    findings = Findings()
    check_gateway_loop(findings, "chat", "chat", [SequenceRequest(0, 200, 1.0, _chat())], legs=2, unplayed=(1,),
                       refusals=("the mock refused upstream request 2 with HTTP 400 (leg 1)",))
    outcomes = _outcomes(findings)
    assert outcomes == {"GW-LOOP-003": "failed"}
    assert findings.results()[0].count == 2


def test_the_client_loop_fails_a_request_past_the_end_and_an_unplayed_leg() -> None:
    findings = Findings()
    requests = [SequenceRequest(0, 200, 1.0, _chat()), SequenceRequest(1, 200, 2.0, _chat(CALLS, R1, R2), TURNS),
                SequenceRequest(None, 409, 3.0, _chat(CALLS, R1, R2), TURNS)]
    check_client_loop(findings, "chat", requests, legs=2, unplayed=())
    [result] = findings.results()
    assert result.outcome == "failed" and "came after the sequence's last leg" in result.violations[0].message
    findings = Findings()
    check_client_loop(findings, "chat", requests[:2], legs=2, unplayed=())
    assert _outcomes(findings) == {"CLI-014": "passed"}
    findings = Findings()
    check_client_loop(findings, "chat", requests[:1], legs=2, unplayed=(1,))
    assert _outcomes(findings) == {"CLI-014": "failed"}


def _attempts(gap: float) -> list[SequenceRequest]:
    return [SequenceRequest(0, 429, 10.0, {}, retry_after=0.3), SequenceRequest(1, 200, 10.0 + gap, {})]


@pytest.mark.parametrize(("gap", "outcome"), [(0.31, "passed"), (0.29, "passed"), (0.02, "failed")])
def test_retries_wait_the_retry_after_less_the_slack(gap: float, outcome: str) -> None:
    findings = Findings()
    check_client_retries(findings, _attempts(gap), legs=2, unplayed=(), slack=0.02, final_error=None)
    assert _outcomes(findings) == {"CLI-015": outcome}


def test_retries_fail_a_client_that_gave_up_or_reported_the_error() -> None:
    findings = Findings()
    check_client_retries(findings, _attempts(0.5)[:1], legs=2, unplayed=(1,), slack=0.02, final_error="HTTP 429")
    [result] = findings.results()
    assert result.outcome == "failed" and "gave up" in result.violations[0].message
    findings = Findings()
    check_client_retries(findings, _attempts(0.5), legs=2, unplayed=(), slack=0.02, final_error="HTTP 429")
    assert "reported an error" in findings.results()[0].violations[0].message
