"""An Anthropic stream cut after its stop_reason (docs/spec/verdicts.md §1, harness/judge/_settled.py) and an aborted
front body (§7), judged on values: the expectation follows what the mock sent, GW-FAULT-003 accepts a front that
finishes a settled turn and still fails one that finishes a turn cut before its stop_reason, and a front whose body
was aborted holds an error. The same with real fakes: tests/harness/run/test_edge_verdicts.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import Findings, check_faults, expected_outcome, read_answer, settled_expect
from callproof.harness.outcome import Call, Chunk, Exchange, Result
from callproof.harness.scenario import Expect, bundled_scenarios

TRUNCATE = bundled_scenarios()["fault_truncate"]
WEATHER = Call("toolu_1", "get_weather", '{"city":"Paris","unit":"celsius"}')
SETTLED = Result("completed", "", (WEATHER,), "stop_reason tool_use")
#: What the mock sent: cut after message_delta (settled), cut before its stop_reason, and aborted after message_delta.
AFTER = Result("error", "", (WEATHER,), "cut", error="the stream ended after stop_reason tool_use without "
               "message_stop", settled=SETTLED)
BEFORE = Result("error", "", (WEATHER,), "cut", error="the stream ended without a stop_reason")
ABORTED = Result("error", "", (WEATHER,), "abort", error="the body was aborted: a scripted disconnect")


def test_a_settled_cut_expects_the_settled_turn_or_a_failure() -> None:
    assert TRUNCATE.expect.status == "error"
    expect = settled_expect(TRUNCATE.expect, AFTER)
    assert expect == Expect("completed", text="", tool_calls=({"name": "get_weather",
                                                                "arguments": {"city": "Paris", "unit": "celsius"}},),
                            may_fail=True)
    for sent in (BEFORE, ABORTED, None):
        assert settled_expect(TRUNCATE.expect, sent) is TRUNCATE.expect
    success = Expect("completed", tool_calls=({"name": "get_weather", "arguments": {"city": "Paris"}},))
    assert settled_expect(success, AFTER) is success  # only an expected failure gives way


def _exp(expect: Expect, result: Result) -> list[str]:
    findings = Findings()
    expected_outcome(findings, expect, result)
    return [r.rule.id for r in findings.results() if r.outcome == "failed"]


def test_the_settled_expectation_passes_a_finished_turn_or_an_error_and_fails_a_lost_call() -> None:
    expect = settled_expect(TRUNCATE.expect, AFTER)
    assert _exp(expect, Result("completed", "", (WEATHER,), "adapter")) == []
    assert _exp(expect, Result("error", "", (), "adapter", error="no message_stop")) == []
    assert _exp(expect, Result("completed", "", (), "adapter")) == ["EXP-001"]


def _sse(front: Dialect, *payloads: dict[str, Any]) -> bytes:
    if front == "chat":
        return b"".join(f"data: {json.dumps(p)}\n\n".encode() for p in payloads) + b"data: [DONE]\n\n"
    return b"".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n".encode() for p in payloads)


FINISHED: dict[Dialect, bytes] = {
    "chat": _sse("chat", {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [
        {"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": WEATHER.arguments}}]}, "finish_reason": "tool_calls"}]}),
    "anthropic": _sse(
        "anthropic",
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [],
                                              "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": WEATHER.arguments}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"}),
}


def _answer(front: Dialect, aborted: str | None = None) -> Any:
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, 200, {"content-type": "text/event-stream"},
                        (Chunk(0.0, FINISHED[front]),), error=aborted, aborted=aborted)
    return read_answer(exchange, "openai", front)


def _faults(answer: Any, sent: Result | None) -> dict[str, list[str]]:
    findings = Findings()
    check_faults(findings, TRUNCATE, answer, sent)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


@pytest.mark.parametrize("front", list(FINISHED))
def test_gw_fault_003_accepts_a_finished_settled_turn_and_fails_one_the_upstream_never_settled(front: Dialect) -> None:
    answer = _answer(front)
    assert answer.result.status == "completed"
    assert _faults(answer, AFTER) == {}
    failed = _faults(answer, BEFORE)
    assert list(failed) == ["GW-FAULT-003"]
    assert failed["GW-FAULT-003"][0].startswith("the upstream failed mid-stream (truncate: the stream ended without "
                                                "a stop_reason) and the front still ended normally")


def test_an_aborted_front_body_is_an_error_ending_whatever_it_held() -> None:
    """docs/spec/verdicts.md §7: the anthropic SDK raises on the abort after message_stop too; GW-FAULT-003 passes
    the abort of a cut turn, and the lifecycle rules do not fail it."""
    why = "RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)"
    answer = _answer("anthropic", why)
    assert (answer.result.status, answer.result.terminal) == ("error", "abort")
    assert answer.result.error == f"the body was aborted: {why}"
    assert _faults(answer, BEFORE) == {}
    assert answer.report is not None and answer.report.failed_rules == ()
