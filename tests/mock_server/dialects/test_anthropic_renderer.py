"""The Anthropic Messages renderer: the exact events on the wire (blocks, deltas, ping, endings), sequential
blocks under interleaved steps, the Message body and error bodies. Scenarios come from
tests/mock_server/dialects/data/render_quirks.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import check_body, check_bytes
from callproof.harness.scenario import Scenario, load_scenarios
from callproof.mock_server.dialects._anthropic import AnthropicRenderer
from callproof.mock_server.dialects._render import RenderContext, Rendered

SCENARIOS = load_scenarios([Path(__file__).parent / "data" / "render_quirks.json"])
RENDERER = AnthropicRenderer()
PARIS = ['{"city":', '"Paris"}']


def _render(scenario_id: str, ctx: RenderContext | None = None) -> Rendered:
    return RENDERER.stream(SCENARIOS[scenario_id], ctx or RenderContext())


def _events(rendered: Rendered) -> list[dict[str, Any]]:
    out = []
    for frame in rendered.frames:
        head, data, end = frame.data.decode().split("\n", 2)
        assert end == "\n" and head.startswith("event: ") and data.startswith("data: "), frame.data
        event = json.loads(data[len("data: "):])
        assert event["type"] == head[len("event: "):]
        out.append(event)
    return out


def _wire(scenario_id: str) -> list[tuple[Any, ...]]:
    """(type, index, delta or block) of every event, for compact assertions."""
    out: list[tuple[Any, ...]] = []
    for e in _events(_render(scenario_id)):
        if e["type"] == "content_block_start":
            out.append(("start", e["index"], e["content_block"]))
        elif e["type"] == "content_block_delta":
            out.append(("delta", e["index"], e["delta"]))
        elif e["type"] == "content_block_stop":
            out.append(("stop", e["index"]))
        else:
            out.append((e["type"],))
    return out


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_stream_passes_the_checker_except_declared_breaks(scenario: Scenario) -> None:
    report = check_bytes(RENDERER.stream(scenario, RenderContext()).body, front="anthropic")
    assert report.failed_rules == scenario.breaks.get("anthropic", ()), [v.message for r in report.failed
                                                                         for v in r.violations]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS.values() if not s.breaks.get("anthropic")],
                         ids=lambda s: s.id)
def test_body_passes_the_checker(scenario: Scenario) -> None:
    report = check_body(json.dumps(RENDERER.body(scenario, RenderContext())).encode(), front="anthropic")
    assert report.failed_rules == ()


def test_one_call_streams_as_anthropic_does() -> None:
    assert _wire("rq_one_call") == [
        ("message_start",),
        ("start", 0, {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}),
        ("ping",),
        ("delta", 0, {"type": "input_json_delta", "partial_json": ""}),
        ("delta", 0, {"type": "input_json_delta", "partial_json": PARIS[0]}),
        ("delta", 0, {"type": "input_json_delta", "partial_json": PARIS[1]}),
        ("stop", 0),
        ("message_delta",),
        ("message_stop",),
    ]


def test_message_start_and_message_delta_carry_ids_model_and_usage() -> None:
    events = _events(_render("rq_one_call", RenderContext(model="claude-test")))
    message = events[0]["message"]
    assert message["id"].startswith("msg_")
    assert {k: v for k, v in message.items() if k != "id"} == {
        "type": "message", "role": "assistant", "model": "claude-test", "content": [], "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 16, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4,
                  "output_tokens": 1, "service_tier": "standard"},
    }
    assert events[-2] == {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                          "usage": {"output_tokens": 9}}
    assert events[-1] == {"type": "message_stop"}


def test_ping_is_written_as_the_api_writes_it() -> None:
    frames = [f.data for f in _render("rq_one_call").frames]
    assert frames[2] == b'event: ping\ndata: {"type": "ping"}\n\n'
    assert b"[DONE]" not in b"".join(frames)


def test_ping_follows_message_start_when_there_is_no_block() -> None:
    assert [e["type"] for e in _events(_render("rq_failed_overloaded"))] == ["message_start", "ping", "error"]


def test_interleaved_steps_still_stream_whole_blocks_in_output_order() -> None:
    wire = [w for w in _wire("rq_round_robin") if w[0] in ("start", "delta", "stop")]
    assert wire == [
        ("start", 0, {"type": "text", "text": ""}),
        ("delta", 0, {"type": "text_delta", "text": "Checking."}),
        ("stop", 0),
        ("start", 1, {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {}}),
        ("delta", 1, {"type": "input_json_delta", "partial_json": ""}),
        ("delta", 1, {"type": "input_json_delta", "partial_json": PARIS[0]}),
        ("delta", 1, {"type": "input_json_delta", "partial_json": PARIS[1]}),
        ("stop", 1),
        ("start", 2, {"type": "tool_use", "id": "call_b", "name": "get_time", "input": {}}),
        ("delta", 2, {"type": "input_json_delta", "partial_json": ""}),
        ("delta", 2, {"type": "input_json_delta", "partial_json": '{"tz":'}),
        ("delta", 2, {"type": "input_json_delta", "partial_json": '"CET"}'}),
        ("stop", 2),
        ("start", 3, {"type": "text", "text": ""}),
        ("delta", 3, {"type": "text_delta", "text": "Done."}),
        ("stop", 3),
    ]


@pytest.mark.parametrize("scenario_id", ["rq_name_chunk", "rq_id_every", "rq_name_empty", "rq_name_repeat",
                                         "rq_arguments_before_name"])
def test_chat_only_quirks_render_the_plain_tool_use_stream(scenario_id: str) -> None:
    assert _wire(scenario_id) == _wire("rq_one_call")


def test_empty_arguments_send_no_input_json_delta() -> None:
    assert [w for w in _wire("rq_empty_arguments") if w[0] in ("start", "delta", "stop") and w[1] == 0] == [
        ("start", 0, {"type": "tool_use", "id": "call_a", "name": "get_time", "input": {}}),
        ("stop", 0),
    ]


def test_an_explicit_empty_fragment_is_the_only_delta_of_empty_arguments() -> None:
    assert [w for w in _wire("rq_empty_arguments_empty_delta") if w[0] in ("start", "delta", "stop")] == [
        ("start", 0, {"type": "tool_use", "id": "call_a", "name": "get_time", "input": {}}),
        ("delta", 0, {"type": "input_json_delta", "partial_json": ""}),
        ("stop", 0),
    ]


def test_call_without_call_id_gets_an_empty_id() -> None:
    assert _wire("rq_no_call_id")[1] == ("start", 0, {"type": "tool_use", "id": "", "name": "get_weather",
                                                      "input": {}})
    assert RENDERER.body(SCENARIOS["rq_no_call_id"], RenderContext())["content"][0]["id"] == ""


def test_reasoning_streams_as_a_thinking_block_with_a_signature() -> None:
    wire = _wire("rq_reasoning")
    assert wire[1] == ("start", 0, {"type": "thinking", "thinking": "", "signature": ""})
    assert wire[3:6] == [
        ("delta", 0, {"type": "thinking_delta", "thinking": "The user "}),
        ("delta", 0, {"type": "thinking_delta", "thinking": "greets me."}),
        ("delta", 0, {"type": "signature_delta", "signature": wire[5][2]["signature"]}),
    ]
    assert wire[5][2]["signature"] and wire[6] == ("stop", 0)
    body = RENDERER.body(SCENARIOS["rq_reasoning"], RenderContext())
    assert body["content"] == [
        {"type": "thinking", "thinking": "The user greets me.", "signature": wire[5][2]["signature"]},
        {"type": "text", "text": "Hello!"},
    ]


@pytest.mark.parametrize(("scenario_id", "reason"), [
    ("rq_reasoning", "end_turn"), ("rq_one_call", "tool_use"), ("rq_length", "max_tokens"),
    ("rq_content_filter", "refusal"),
])
def test_endings_map_to_stop_reasons(scenario_id: str, reason: str) -> None:
    events = _events(_render(scenario_id))
    assert [e["type"] for e in events[-2:]] == ["message_delta", "message_stop"]
    assert events[-2]["delta"] == {"stop_reason": reason, "stop_sequence": None}
    assert RENDERER.body(SCENARIOS[scenario_id], RenderContext())["stop_reason"] == reason


def test_failed_ending_leaves_the_last_block_open_and_ends_with_an_error_event() -> None:
    wire = _wire("rq_failed")
    assert wire[-2:] == [("delta", 1, {"type": "input_json_delta", "partial_json": '{"city":'}), ("error",)]
    assert ("stop", 0) in wire and ("stop", 1) not in wire
    assert ("message_delta",) not in wire and ("message_stop",) not in wire
    error = _events(_render("rq_failed"))[-1]
    assert error == {"type": "error", "error": {"type": "api_error", "message": "Upstream exploded."}}
    assert RENDERER.body(SCENARIOS["rq_failed"], RenderContext()) == error


def test_failed_ending_keeps_an_anthropic_error_type() -> None:
    assert _events(_render("rq_failed_overloaded"))[-1]["error"] == {"type": "overloaded_error",
                                                                      "message": "Overloaded"}


def test_content_frames_are_marked_with_their_size() -> None:
    rendered = _render("rq_reasoning")
    marked = [(json.loads(f.data.split(b"\n")[1][6:])["delta"], f.tokens) for f in rendered.frames if f.content]
    fragments = [d.get("thinking", d.get("text")) for d, _ in marked]
    assert fragments == ["The user ", "greets me.", "Hel", "lo!"]
    assert [t for _, t in marked] == [len(f) / 4 for f in fragments]
    leading = [f for f in _render("rq_one_call").frames if b'"partial_json":""' in f.data]
    assert len(leading) == 1 and not leading[0].content


def test_body_is_a_message_with_parsed_tool_input() -> None:
    ctx = RenderContext(model="claude-test")
    body = RENDERER.body(SCENARIOS["rq_round_robin"], ctx)
    assert body["id"] == _events(RENDERER.stream(SCENARIOS["rq_round_robin"], ctx))[0]["message"]["id"]
    assert {k: v for k, v in body.items() if k not in ("id", "usage")} == {
        "type": "message", "role": "assistant", "model": "claude-test", "stop_reason": "tool_use",
        "stop_sequence": None,
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_b", "name": "get_time", "input": {"tz": "CET"}},
            {"type": "text", "text": "Done."},
        ],
    }
    assert RENDERER.body(SCENARIOS["rq_one_call"], ctx)["usage"] == {
        "input_tokens": 16, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4, "output_tokens": 9,
        "service_tier": "standard"}


def test_body_input_is_empty_when_arguments_are_not_a_json_object() -> None:
    truncated = RENDERER.body(SCENARIOS["rq_length"], RenderContext())["content"][1]
    assert truncated == {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}
    empty = RENDERER.body(SCENARIOS["rq_empty_arguments"], RenderContext())["content"][0]
    assert empty["input"] == {}


@pytest.mark.parametrize(("status", "kind"), [
    (400, "invalid_request_error"), (401, "authentication_error"), (403, "permission_error"),
    (404, "not_found_error"), (413, "request_too_large"), (429, "rate_limit_error"), (500, "api_error"),
    (503, "api_error"), (529, "overloaded_error"), (418, "invalid_request_error"),
])
def test_error_body_has_the_anthropic_shape(status: int, kind: str) -> None:
    body = RENDERER.error_body(status, "boom")
    assert body == {"type": "error", "error": {"type": kind, "message": "boom"}}
    assert check_body(json.dumps(body).encode(), front="anthropic").failed_rules == ()
