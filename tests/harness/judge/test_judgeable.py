"""Whether an answer can be judged at all (harness/judge/_judgeable.py), on hand-made exchanges: what counts as no
judgeable stream, and that the reason names what arrived."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness.judge import AdapterRun, adapter_problem, answer_problem, read_answer
from callproof.harness.outcome import Chunk, Exchange
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
SSE = {"content-type": "text/event-stream; charset=utf-8"}
CREATED = b'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n'
COMPLETED = json.dumps({"type": "response.completed", "sequence_number": 1, "response": {
    "id": "r", "status": "completed", "output": []}}).encode()


def answer(status: int | None, headers: dict[str, str], body: bytes, *, timed_out: bool = False) -> Any:
    error = "no end of the answer within the case timeout of 2 s" if timed_out else None
    exchange = Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, status, headers,
                        (Chunk(0.1, body),) if body else (), error, timed_out)
    return read_answer(exchange, "openai", "responses")


@pytest.mark.parametrize(("scenario", "status", "headers", "body", "why"), [
    ("one_call", 200, SSE, CREATED + b"data: " + COMPLETED + b"\n\n", None),
    ("one_call", 502, {"content-type": "text/html"}, b"<html>bad gateway</html>",
     "no judgeable stream: HTTP 502 text/html, 24 bytes, 0 events, an HTTP error where the scenario expects a "
     "completed stream"),
    ("one_call", 200, {"content-type": "text/html"}, b"<html></html>",
     "no judgeable stream: a stream request was answered with HTTP 200 text/html, 13 bytes, 0 events, not "
     "text/event-stream"),
    ("one_call", 200, {}, b"{}", "no judgeable stream: a stream request was answered with HTTP 200 no content-type, "
     "2 bytes, 0 events, not text/event-stream"),
    ("one_call", 200, SSE, b": keep-alive\n\n", "no judgeable stream: HTTP 200 text/event-stream, 14 bytes, 0 events: "
     "nothing the stream rules can apply to"),
    ("fault_stream_error", 502, {"content-type": "application/json"}, b'{"error": {"message": "upstream"}}', None),
    ("non_stream_parallel_calls", 200, {"content-type": "application/json"}, b'{"status": "completed"}', None),
    ("non_stream_parallel_calls", 200, {"content-type": "application/json"}, b"[]",
     "no judgeable body: HTTP 200 application/json, 2 bytes, 0 events, not a JSON object"),
    ("non_stream_parallel_calls", 200, SSE, CREATED, "no judgeable body: a non-stream request was answered with "
     "HTTP 200 text/event-stream, 79 bytes, 1 event (the last 'response.created'), not a JSON body"),
])
def test_what_can_be_judged(scenario: str, status: int, headers: dict[str, str], body: bytes,
                            why: str | None) -> None:
    assert answer_problem(answer(status, headers, body), SCENARIOS[scenario]) == why


def test_a_timed_out_stream_is_never_judgeable_even_after_events() -> None:
    cut = answer(200, SSE, CREATED, timed_out=True)
    assert answer_problem(cut, SCENARIOS["one_call"]) == (
        "no judgeable stream: no end of the answer within the case timeout of 2 s; HTTP 200 text/event-stream, "
        "79 bytes, 1 event (the last 'response.created') had arrived")


def test_an_http_error_is_a_legitimate_failure_only_after_the_upstream_was_called() -> None:
    error = answer(502, {"content-type": "application/json"}, b"{}")
    assert answer_problem(error, SCENARIOS["fault_stream_error"], upstream_called=True) is None
    assert answer_problem(error, SCENARIOS["fault_stream_error"], upstream_called=False) == (
        "no judgeable stream: HTTP 502 application/json, 2 bytes, 0 events, an HTTP error without a request to the "
        "upstream")


def test_an_http_error_refusing_arguments_that_are_not_json_is_judgeable() -> None:
    """A non-stream Chat front can refuse a call whose arguments are not JSON only with an HTTP error: the scenario
    allows failing the response (`may_fail`, docs/spec/contracts.md §7.8), so the answer is judged, not an error."""
    refusal = answer(502, {"content-type": "application/json"}, b'{"error": {"message": "get_weather: not JSON"}}')
    assert SCENARIOS["non_stream_malformed_beside_valid"].expect.may_fail
    assert answer_problem(refusal, SCENARIOS["non_stream_malformed_beside_valid"]) is None
    assert answer_problem(refusal, SCENARIOS["non_stream_malformed_beside_valid"], upstream_called=False) == (
        "no judgeable body: HTTP 502 application/json, 47 bytes, 0 events, an HTTP error without a request to the "
        "upstream")
    assert answer_problem(refusal, SCENARIOS["non_stream_parallel_calls"]) == (
        "no judgeable body: HTTP 502 application/json, 47 bytes, 0 events, an HTTP error where the scenario expects a "
        "completed body")


def test_an_adapter_run_without_a_result_is_not_judgeable() -> None:
    assert adapter_problem(AdapterRun({"text": "hi"}, None, "", 0.1)) is None
    assert adapter_problem(AdapterRun(None, "the adapter exited with status 1", "boom", 0.1)) == (
        "no result to judge: the adapter exited with status 1")
