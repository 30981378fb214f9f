"""GW-FAULT-006 (docs/spec/contracts.md §7.8.2, docs/spec/verdicts.md §9): an error the front answers exposes no stack
trace, file path or programming-error text. The judge on answers here (positives and the ordinary messages it must
leave alone); on real gateways against the real mock in tests/harness/run/test_error_exposure.py and the mutation
table (`node_stack_in_errors`, `python_traceback_in_errors`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import Findings, FrontAnswer, check_error_exposure, read_answer
from callproof.harness.outcome import Chunk, Exchange

JSON = {"content-type": "application/json"}
SSE = {"content-type": "text/event-stream"}
NODE = ("TypeError: Cannot read properties of undefined (reading 'choices')\n"
        "    at Object.<anonymous> (/home/app/node_modules/@llm-gw/core/dist/chat.js:214:37)\n"
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)")
PYTHON = ('Traceback (most recent call last):\n  File "/usr/local/lib/python3.11/site-packages/httpx/_models.py", '
          "line 829, in raise_for_status\n    raise HTTPStatusError(message, request=request, response=self)\n"
          "httpx.HTTPStatusError: Client error '400 Bad Request'")


def _answer(status: int, body: bytes, headers: dict[str, str] | None = None, front: Dialect = "responses") \
        -> FrontAnswer:
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, status, headers or JSON, (Chunk(0.0, body),))
    return read_answer(exchange, "openai", front)


def _error(message: str, **more: Any) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", **more}}).encode()


def _results(answer: FrontAnswer) -> list[tuple[str, str]]:
    findings = Findings()
    check_error_exposure(findings, answer)
    return [(r.rule.id, r.outcome) for r in findings.results()]


def _violations(answer: FrontAnswer) -> list[Any]:
    findings = Findings()
    check_error_exposure(findings, answer)
    return [v for r in findings.results() for v in r.violations]


def test_a_node_stack_in_an_error_field_fails_naming_the_path_and_the_kinds() -> None:
    answer = _answer(500, _error("The upstream failed.", stack=NODE))
    assert _results(answer) == [("GW-FAULT-006", "failed")]
    [violation] = _violations(answer)
    assert violation.evidence.path == "$.error.stack"
    assert "exposes a stack frame, an absolute file path and the text of a programming error at $.error.stack" \
        in violation.message
    assert violation.evidence.actual == \
        "at Object.<anonymous> (/home/app/node_modules/@llm-gw/core/dist/chat.js:214:37)"


def test_a_python_traceback_as_the_message_fails() -> None:
    [violation] = _violations(_answer(400, _error(PYTHON)))
    assert violation.evidence.path == "$.error.message"
    assert violation.evidence.actual == "Traceback (most recent call last):"


@pytest.mark.parametrize("text", [
    "ENOENT: no such file or directory, open '/usr/src/app/config.json'",
    "failed in /srv/gateway/lib/router.py",
    "Cannot find module 'node_modules/openai/core.js'",
    "C:\\Users\\bob\\gateway\\index.js crashed",
    "KeyError: 'choices'",
    "AttributeError: 'NoneType' object has no attribute 'get'",
    "java.lang.NullPointerException",
    "    at com.acme.gateway.Handler.handle(Handler.java:42)",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "Cannot read properties of undefined (reading 'map')",
    "    at async /app/dist/server.mjs:44:7",
])
def test_each_kind_of_internals_fails(text: str) -> None:
    assert _results(_answer(500, _error(text))) == [("GW-FAULT-006", "failed")], text


@pytest.mark.parametrize("text", [
    "The model `openai/gpt-4o` does not exist or you do not have access to it.",
    "Model anthropic/claude-sonnet-4 is not available on this route.",
    "Invalid request: see https://platform.openai.com/docs/guides/error-codes/api-errors for details.",
    "See https://gateway.example.com/home/docs/errors.js for the codes.",
    "See docs/errors.md#rate-limits in this gateway's repository.",
    "Request: POST /v1/chat/completions?api_key=q with headers {\"user-agent\": \"python-httpx/0.28.1\"}.",
    "tools[0].function.parameters: /properties/city must be an object",
    "Rate limit reached; retry at 12:30:45.",
    "Error: Request failed with status code 400",
    "The upstream failed to answer (ReadTimeout('')).",
    "the upstream connection failed mid-stream: RemoteProtocolError('peer closed connection')",
    "Incorrect API key provided (injected by the callproof mock).",
])
def test_ordinary_messages_pass(text: str) -> None:
    assert _results(_answer(400, _error(text))) == [("GW-FAULT-006", "passed")], text


def test_a_non_json_error_body_is_searched_whole() -> None:
    page = f"<html><body><pre>{NODE}</pre></body></html>".encode()
    [violation] = _violations(_answer(500, page, {"content-type": "text/html"}))
    assert violation.evidence.path == "the front's body"


def test_a_stream_error_event_is_searched_and_named_by_its_event() -> None:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "error", "code": "server_error", "message": f"upstream failed: {NODE}"}]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    [violation] = _violations(_answer(200, body, SSE))
    assert (violation.evidence.event_index, violation.evidence.event_type, violation.evidence.path) == \
        (1, "error", "$.message")


def test_the_models_own_text_is_not_searched() -> None:
    """A model may well write a traceback: only the stream's error events are the gateway's words."""
    delta = {"type": "response.output_text.delta", "delta": PYTHON}
    body = f"event: response.output_text.delta\ndata: {json.dumps(delta)}\n\n".encode()
    assert _results(_answer(200, body, SSE)) == []


def test_an_answer_without_an_error_is_not_judged() -> None:
    assert _results(_answer(500, b"")) == []
    assert _results(_answer(200, b"event: x\ndata: {}\n\n", SSE)) == []


def test_a_chat_error_chunk_and_an_anthropic_error_event_count() -> None:
    chunk = f"data: {json.dumps({'error': {'message': PYTHON}})}\n\n".encode()
    assert _results(_answer(200, chunk, SSE, "chat")) == [("GW-FAULT-006", "failed")]
    event = {"type": "error", "error": {"type": "api_error", "message": NODE}}
    body = f"event: error\ndata: {json.dumps(event)}\n\n".encode()
    [violation] = _violations(_answer(200, body, SSE, "anthropic"))
    assert violation.evidence.path == "$.error.message"


def test_the_evidence_is_cut_short_and_one_violation_per_string() -> None:
    """No flooding: one violation per string, whatever it holds, its first match shown cut to 120 characters."""
    long_line = "failed: " + "/home/app/" + "x" * 300
    violations = _violations(_answer(500, _error(long_line, stack=NODE, detail=PYTHON)))
    assert [v.evidence.path for v in violations] == ["$.error.message", "$.error.stack", "$.error.detail"]
    assert len(str(violations[0].evidence.actual)) == 120 and str(violations[0].evidence.actual).endswith("…")
