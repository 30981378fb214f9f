"""The capture import core (harness/capture/_import.py): a stream or a body of each dialect read back into a
scenario that loads, with fragments exactly as chunked, the order across items, the ending, usage and call ids;
bad input is one InputError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callproof.harness._errors import InputError
from callproof.harness._types import Dialect
from callproof.harness.capture import import_capture, read_capture, request_match, scenario_file
from callproof.harness.scenario import FunctionCall, Scenario, bundled_scenarios, parse_scenario_file

CAPTURES = Path(__file__).resolve().parents[3] / "examples" / "captures"


def _load(scenario: dict[str, Any]) -> Scenario:
    (loaded,) = parse_scenario_file(json.dumps(scenario_file("imp", "imported", [scenario])), "imp.json")
    return loaded


def _import(path: str, dialect: Dialect, **kwargs: Any) -> dict[str, Any]:
    capture = read_capture((CAPTURES / path).read_bytes(), path, dialect)
    return import_capture(capture, scenario_id="imp", description=path, **kwargs)


def test_chat_fragments_and_call_ids_exactly_as_chunked() -> None:
    scenario = _load(_import("chat/openai/ok/interleaved-parallel-calls.sse", "chat", raw=False))
    calls = scenario.calls
    assert [c.name for c in calls] == ["get_weather", "get_weather"]
    assert all(c.call_id and c.call_id.startswith("call_") for c in calls)
    assert all(json.loads(c.arguments) for c in calls)
    assert all(len(c.fragments) > 1 for c in calls)
    # the fragments alternate between the two calls on the wire: an explicit order keeps it
    assert [s.output for s in scenario.steps[:4]] == [0, 1, 0, 1]
    assert scenario.raw == {}


def test_responses_text_reasoning_usage_and_ending() -> None:
    scenario = _load(_import("responses/openai/ok/incomplete-max-output-tokens.sse", "responses"))
    assert scenario.ending == "length"
    assert scenario.usage.output_tokens > 0
    assert "responses" in scenario.raw  # its own dialect replays verbatim
    assert scenario.expect.status == "incomplete"


def test_anthropic_tool_use_and_input_json_deltas() -> None:
    scenario = _load(_import("anthropic/openai/ok/one-call.sse", "anthropic", raw=False))
    (call,) = scenario.calls
    assert isinstance(call, FunctionCall) and call.call_id and call.call_id.startswith("toolu_")
    assert "".join(call.fragments) == call.arguments
    assert scenario.expect.tool_calls[0]["arguments"] == json.loads(call.arguments)


@pytest.mark.parametrize(("path", "dialect"), [
    ("chat/openai/ok/tool-calls.json", "chat"), ("anthropic/openai/ok/tool-use.json", "anthropic"),
    ("responses/open-responses/ok/one-call.json", "responses")])
def test_a_body_becomes_output_and_a_verbatim_body(path: str, dialect: Dialect) -> None:
    raw = json.loads((CAPTURES / path).read_bytes())
    scenario = _load(_import(path, dialect))
    assert scenario.raw_body == {dialect: raw}
    assert scenario.calls and scenario.request["stream"] is False


def test_a_stream_that_is_not_its_dialect_keeps_raw_frames_only() -> None:
    data = b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0}\n\n"
    scenario = _load(import_capture(read_capture(data, "x", "responses"), scenario_id="imp", description="x"))
    assert scenario.output == () and b"".join(f.data for f in scenario.raw["responses"]) == data
    with pytest.raises(InputError, match="does not read as responses"):
        import_capture(read_capture(data, "x", "responses"), scenario_id="imp", description="x", raw=False)


def test_an_error_body_becomes_an_http_error_fault() -> None:
    body = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    scenario = _load(import_capture(read_capture(body, "x"), scenario_id="imp", description="x"))
    assert scenario.faults[0].kind == "http_error" and scenario.faults[0].params == {
        "status": 529, "message": "Overloaded"}
    recorded = _load(import_capture(read_capture(b'{"error":{"message":"slow down","type":"requests"}}', "x", "chat"),
                                    scenario_id="imp", description="x", status=429, retry_after=2))
    assert recorded.faults[0].params == {"status": 429, "message": "slow down", "retry_after": 2}
    assert recorded.expect.http_status == 429 and recorded.expect.retry_after == 2
    with pytest.raises(InputError, match="HTTP status 418 cannot be scripted"):
        import_capture(read_capture(b"{}", "x", "chat"), scenario_id="imp", description="x", status=418)


def test_measured_timing() -> None:
    data = (CAPTURES / "chat/openai/ok/text-only.sse").read_bytes()
    blocks = [b + b"\n\n" for b in data.split(b"\n\n") if b]
    chunks = [(i * 10.0, block) for i, block in enumerate(blocks)]
    scenario = _load(import_capture(read_capture(data, "x", "chat"), scenario_id="imp", description="x",
                                    chunks=chunks, first_byte_ms=25))
    assert scenario.timing.first_byte_ms == 25
    assert [f.delay_ms for f in scenario.raw["chat"]] == [0.0] + [10.0] * (len(blocks) - 1)
    assert scenario.timing.delays_ms and set(scenario.timing.delays_ms) == {10.0}


@pytest.mark.parametrize(("data", "message"), [
    (b"", "is empty"), (b"   \n", "is empty"), (b"hello world", "neither an SSE stream"),
    (b"{not json", "not valid JSON"), (b"[1, 2]", "not an object"), (b"data: x\x00\n\n", "binary")])
def test_bad_input_is_one_input_error(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_capture(data, "capture.txt")


def test_the_request_match_selects_the_same_request_again() -> None:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi [callproof:case=1]"}],
            "tools": [{"type": "function", "function": {"name": "b"}}, {"type": "function", "function": {"name": "a"}}]}
    assert request_match("chat", body) == {
        "user_text": {"equals": "hi"}, "model": "gpt-4o-mini", "tools": ["a", "b"], "dialect": "chat",
        "json": [{"path": "$.stream", "exists": False}]}


def test_the_bundled_corpus_has_no_match_or_raw_body() -> None:
    assert all(s.match is None and not s.raw_body for s in bundled_scenarios().values())
