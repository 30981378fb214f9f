"""The gateway rules in each front's terms (docs/spec/contracts.md §7.10): an HTTP error in the front's error shape
(GW-FAULT-001), a normal finish after a failed upstream (GW-FAULT-003), the incomplete finish (GW-FAULT-004), and
an answer in another dialect than the front declared."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import Findings, check_faults, dialect_mismatch, read_answer
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.scenario import bundled_scenarios

SCENARIOS = bundled_scenarios()
SSE = {"content-type": "text/event-stream"}


def _answer(front: Dialect, status: int, body: bytes, headers: dict[str, str] | None = None) -> Any:
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, status, headers or SSE, (Chunk(0.0, body),))
    return read_answer(exchange, "openai", front)


def _failed(scenario: str, answer: Any) -> dict[str, list[str]]:
    findings = Findings()
    check_faults(findings, SCENARIOS[scenario], answer)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _sse(*payloads: Any, done: bool = False) -> bytes:
    text = "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + ("data: [DONE]\n\n" if done else "")
    return text.encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


JSON = {"content-type": "application/json"}
OPENAI_ERROR = json.dumps({"error": {"message": "Rate limited", "type": "rate_limit_error"}}).encode()
ANTHROPIC_ERROR = json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}}).encode()


@pytest.mark.parametrize(("front", "body", "problem"), [
    ("chat", OPENAI_ERROR, None),
    ("anthropic", ANTHROPIC_ERROR, None),
    ("anthropic", OPENAI_ERROR, "its body is not Anthropic's error envelope"),
    ("chat", b"<html>busy</html>", "its body is not a JSON object"),
    ("responses", json.dumps({"detail": "x"}).encode(), "its body is without an `error` object"),
])
def test_an_http_error_must_have_the_fronts_error_shape(front: Dialect, body: bytes, problem: str | None) -> None:
    failed = _failed("fault_http_500", _answer(front, 500, body, JSON))
    if problem is None:
        assert failed == {}
    else:
        assert list(failed) == ["GW-FAULT-001"] and problem in failed["GW-FAULT-001"][0]


def test_a_chat_front_that_finishes_normally_after_the_upstream_died_fails() -> None:
    body = _sse(_chunk({"role": "assistant", "content": "Hel"}), _chunk({}, "stop"), done=True)
    failed = _failed("fault_disconnect_after_events", _answer("chat", 200, body))
    assert failed == {"GW-FAULT-003": ["the upstream failed mid-stream (disconnect) and the front still ended "
                                       "normally, with finish_reason stop"]}


def test_a_chat_front_that_ends_with_an_error_chunk_passes() -> None:
    body = _sse(_chunk({"role": "assistant", "content": "Hel"}), {"error": {"message": "upstream died"}})
    assert _failed("fault_disconnect_after_events", _answer("chat", 200, body)) == {}


@pytest.mark.parametrize(("front", "wanted"), [
    ("chat", "choices[0].finish_reason 'length'"), ("anthropic", "delta.stop_reason 'max_tokens'"),
])
def test_length_must_become_the_fronts_incomplete_finish(front: Dialect, wanted: str) -> None:
    if front == "chat":
        body = _sse(_chunk({"content": "Hel"}), _chunk({}, "stop"), done=True)
    else:
        body = _sse({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                           "content": []}},
                    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"})
    [message] = _failed("length_mid_text", _answer(front, 200, body))["GW-FAULT-004"]
    assert message.endswith(f"expected {wanted}") and "the front ended completed" in message


def test_an_answer_in_another_dialect_names_the_mismatch() -> None:
    body = _sse({"type": "response.created", "sequence_number": 0, "response": {"id": "r"}})
    message = dialect_mismatch(_answer("anthropic", 200, body), "http://gw/v1/messages")
    assert message == ("--front anthropic: the front at http://gw/v1/messages answered with Responses events, not "
                       "Anthropic Messages; run with --front responses, or point --front-url at the gateway's "
                       "Anthropic Messages endpoint (usually /v1/messages)")
    assert dialect_mismatch(_answer("responses", 200, body), "http://gw/v1/responses") is None
