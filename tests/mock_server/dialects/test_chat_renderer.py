"""The Chat Completions renderer: the exact deltas on the wire for each tool-call quirk, usage, endings, the
non-stream body and error bodies. Scenarios come from tests/mock_server/dialects/data/render_quirks.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import check_body, check_bytes
from callproof.harness.scenario import Scenario, load_scenarios
from callproof.mock_server.dialects._chat import ChatRenderer
from callproof.mock_server.dialects._render import RenderContext, Rendered

SCENARIOS = load_scenarios([Path(__file__).parent / "data" / "render_quirks.json"])
RENDERER = ChatRenderer()
USAGE = {"stream_options": {"include_usage": True}}
PARIS = ['{"city":', '"Paris"}']


def _render(scenario_id: str, request: dict[str, Any] | None = None) -> Rendered:
    return RENDERER.stream(SCENARIOS[scenario_id], RenderContext(request=request or {}))


def _payloads(rendered: Rendered) -> list[Any]:
    """Each frame's data: the decoded JSON, or the string "[DONE]"."""
    out: list[Any] = []
    for frame in rendered.frames:
        text = frame.data.decode()
        assert text.startswith("data: ") and text.endswith("\n\n") and text.count("\n") == 2, text
        value = text[len("data: "):-2]
        out.append(value if value == "[DONE]" else json.loads(value))
    return out


def _deltas(scenario_id: str, request: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The delta of every chunk that has a choice."""
    return [p["choices"][0]["delta"] for p in _payloads(_render(scenario_id, request))
            if isinstance(p, dict) and p.get("choices")]


def _tool_deltas(scenario_id: str) -> list[dict[str, Any]]:
    return [call for delta in _deltas(scenario_id) for call in delta.get("tool_calls", ())]


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_stream_passes_the_checker_except_declared_breaks(scenario: Scenario) -> None:
    for request in ({}, USAGE):
        report = check_bytes(RENDERER.stream(scenario, RenderContext(request=request)).body, front="chat")
        assert report.failed_rules == scenario.breaks.get("chat", ()), [v.message for r in report.failed
                                                                       for v in r.violations]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS.values() if not s.breaks.get("chat")
                                      or s.ending == "failed"], ids=lambda s: s.id)
def test_body_passes_the_checker(scenario: Scenario) -> None:
    report = check_body(json.dumps(RENDERER.body(scenario, RenderContext())).encode(), front="chat")
    assert report.failed_rules == ()


def test_every_chunk_shares_the_envelope() -> None:
    ctx = RenderContext(created=1_700_000_000, model="gpt-test", request=USAGE)
    rendered = RENDERER.stream(SCENARIOS["rq_round_robin"], ctx)
    payloads = _payloads(rendered)
    assert payloads[-1] == "[DONE]"
    chunks = payloads[:-1]
    assert {c["id"] for c in chunks} == {chunks[0]["id"]}
    assert chunks[0]["id"].startswith("chatcmpl-")
    for chunk in chunks:
        assert chunk["object"] == "chat.completion.chunk"
        assert (chunk["created"], chunk["model"]) == (1_700_000_000, "gpt-test")
        assert chunk["system_fingerprint"].startswith("fp_")
        for choice in chunk["choices"]:
            assert set(choice) == {"index", "delta", "logprobs", "finish_reason"}
            assert (choice["index"], choice["logprobs"]) == (0, None)
    assert b"event:" not in rendered.body


def test_first_delta_carries_the_role_alone_before_text() -> None:
    deltas = _deltas("rq_content_filter")
    assert deltas[0] == {"role": "assistant", "content": "", "refusal": None}
    assert deltas[1] == {"content": "I can"}


def test_first_delta_carries_the_role_with_a_first_call() -> None:
    assert _deltas("rq_one_call")[0] == {
        "role": "assistant", "content": None,
        "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": ""}}],
        "refusal": None,
    }


def test_plain_call_sends_id_and_name_once_then_argument_fragments() -> None:
    assert _tool_deltas("rq_one_call") == [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
        {"index": 0, "function": {"arguments": PARIS[0]}},
        {"index": 0, "function": {"arguments": PARIS[1]}},
    ]


def test_name_chunk_splits_the_name_over_the_first_deltas() -> None:
    assert _tool_deltas("rq_name_chunk") == [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_", "arguments": ""}},
        {"index": 0, "function": {"name": "weather"}},
        {"index": 0, "function": {"arguments": PARIS[0]}},
        {"index": 0, "function": {"arguments": PARIS[1]}},
    ]


def test_id_on_every_repeats_the_id_on_every_delta() -> None:
    assert _tool_deltas("rq_id_every") == [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
        {"index": 0, "id": "call_1", "type": "function", "function": {"arguments": PARIS[0]}},
        {"index": 0, "id": "call_1", "type": "function", "function": {"arguments": PARIS[1]}},
    ]


def test_name_on_later_empty_sends_an_empty_name_on_later_deltas() -> None:
    assert _tool_deltas("rq_name_empty")[1:] == [
        {"index": 0, "function": {"name": "", "arguments": PARIS[0]}},
        {"index": 0, "function": {"name": "", "arguments": PARIS[1]}},
    ]


def test_name_on_later_repeat_sends_the_full_name_on_later_deltas() -> None:
    assert _tool_deltas("rq_name_repeat")[1:] == [
        {"index": 0, "function": {"name": "get_weather", "arguments": PARIS[0]}},
        {"index": 0, "function": {"name": "get_weather", "arguments": PARIS[1]}},
    ]


def test_arguments_before_name_sends_arguments_first_and_the_name_next() -> None:
    assert _tool_deltas("rq_arguments_before_name") == [
        {"index": 0, "id": "call_1", "type": "function", "function": {"arguments": PARIS[0]}},
        {"index": 0, "function": {"name": "get_weather"}},
        {"index": 0, "function": {"arguments": PARIS[1]}},
    ]


def test_call_without_call_id_has_no_id_anywhere() -> None:
    assert _tool_deltas("rq_no_call_id")[0] == {
        "index": 0, "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    assert all("id" not in d for d in _tool_deltas("rq_no_call_id"))
    body = RENDERER.body(SCENARIOS["rq_no_call_id"], RenderContext())
    assert "id" not in body["choices"][0]["message"]["tool_calls"][0]


def test_interleaved_calls_follow_the_steps_with_indexes_in_order_of_appearance() -> None:
    wire = [(sorted(d), d.get("content"), [(c["index"], c.get("id"), c["function"].get("arguments"))
                                           for c in d.get("tool_calls", ())]) for d in _deltas("rq_round_robin")]
    assert wire == [
        (["content", "refusal", "role"], "", []),
        (["content"], "Checking.", []),
        (["tool_calls"], None, [(0, "call_a", "")]),
        (["tool_calls"], None, [(0, None, PARIS[0])]),
        (["tool_calls"], None, [(1, "call_b", "")]),
        (["tool_calls"], None, [(1, None, '{"tz":')]),
        (["tool_calls"], None, [(0, None, PARIS[1])]),
        (["tool_calls"], None, [(1, None, '"CET"}')]),
        (["content"], "Done.", []),
        ([], None, []),
    ]


def test_empty_arguments_send_only_the_first_delta() -> None:
    assert [c for c in _tool_deltas("rq_empty_arguments") if c["index"] == 0] == [
        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_time", "arguments": ""}}]


def test_an_explicit_empty_fragment_is_sent_as_an_empty_arguments_delta() -> None:
    assert _tool_deltas("rq_empty_arguments_empty_delta") == [
        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_time", "arguments": ""}},
        {"index": 0, "function": {"arguments": ""}},
    ]


def test_reasoning_is_not_rendered_but_counted_in_usage() -> None:
    payloads = _payloads(_render("rq_reasoning", USAGE))
    deltas = [p["choices"][0]["delta"] for p in payloads[:-1] if p["choices"]]
    assert deltas == [{"role": "assistant", "content": "", "refusal": None}, {"content": "Hel"}, {"content": "lo!"},
                      {}]
    assert payloads[-2]["usage"]["completion_tokens_details"]["reasoning_tokens"] == 5


def test_include_usage_adds_null_usage_and_a_final_usage_chunk() -> None:
    payloads = _payloads(_render("rq_one_call", USAGE))
    *chunks, usage_chunk, done = payloads
    assert done == "[DONE]"
    assert all(c["usage"] is None and c["choices"] for c in chunks)
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == {
        "prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                      "rejected_prediction_tokens": 0},
    }


@pytest.mark.parametrize("request_", [{}, {"stream_options": {"include_usage": False}}])
def test_without_include_usage_there_is_no_usage(request_: dict[str, Any]) -> None:
    payloads = _payloads(_render("rq_one_call", request_))
    assert payloads[-1] == "[DONE]"
    assert all("usage" not in p and p["choices"] for p in payloads[:-1])


def test_obfuscation_is_on_by_default_and_can_be_turned_off() -> None:
    assert all(isinstance(p["obfuscation"], str) for p in _payloads(_render("rq_one_call"))[:-1])
    off = _payloads(_render("rq_one_call", {"stream_options": {"include_obfuscation": False}}))
    assert all("obfuscation" not in p for p in off[:-1])


@pytest.mark.parametrize(("scenario_id", "reason"), [
    ("rq_reasoning", "stop"), ("rq_one_call", "tool_calls"), ("rq_length", "length"),
    ("rq_content_filter", "content_filter"),
])
def test_endings_finish_with_an_empty_delta_and_done(scenario_id: str, reason: str) -> None:
    payloads = _payloads(_render(scenario_id))
    assert payloads[-1] == "[DONE]"
    assert payloads[-2]["choices"] == [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": reason}]
    assert [p["choices"][0]["finish_reason"] for p in payloads[:-2]] == [None] * (len(payloads) - 2)
    assert RENDERER.body(SCENARIOS[scenario_id], RenderContext())["choices"][0]["finish_reason"] == reason


def test_failed_ending_ends_with_an_error_object_and_no_done() -> None:
    payloads = _payloads(_render("rq_failed", USAGE))
    assert payloads[-1] == {"error": {"message": "Upstream exploded.", "type": "server_error", "param": None,
                                      "code": "server_error"}}
    assert "[DONE]" not in payloads
    assert all(p["choices"][0]["finish_reason"] is None for p in payloads[:-1])
    assert RENDERER.body(SCENARIOS["rq_failed"], RenderContext()) == {"error": payloads[-1]["error"]}


def test_done_after_error_writes_done_after_the_error_object() -> None:
    """chat.done_after_error (vLLM): the same stream as without it, then `data: [DONE]`; the error object and the
    [DONE] are the stream's `ending` frames (a stream_error fault keeps both), and the body is unchanged."""
    with_done, without = _render("rq_failed_then_done", USAGE), _render("rq_failed", USAGE)
    def content(payloads: list[Any]) -> list[Any]:  # what a chunk says, without its per-scenario ids
        return [p if isinstance(p, str) else (p.get("choices"), p.get("error")) for p in payloads]

    assert content(_payloads(with_done)) == [*content(_payloads(without)), "[DONE]"]
    assert [f.ending for f in with_done.frames[-3:]] == [False, True, True]
    assert RENDERER.body(SCENARIOS["rq_failed_then_done"], RenderContext()) == \
        RENDERER.body(SCENARIOS["rq_failed"], RenderContext())


def test_tool_call_index_omitted_keys_every_delta_by_id_only() -> None:
    """chat.tool_call_index "omitted" (Gemini): no tool-call delta has `index`; each carries its call's id and type,
    interleaved as the steps say; the body is unchanged (a message's tool_calls have no index)."""
    assert _tool_deltas("rq_no_index") == [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}},
        {"id": "call_a", "type": "function", "function": {"arguments": PARIS[0]}},
        {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}},
        {"id": "call_b", "type": "function", "function": {"arguments": '{"tz":'}},
        {"id": "call_a", "type": "function", "function": {"arguments": PARIS[1]}},
        {"id": "call_b", "type": "function", "function": {"arguments": '"CET"}'}},
    ]
    assert _payloads(_render("rq_no_index"))[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_failed_ending_keeps_the_scenario_error_type() -> None:
    assert _payloads(_render("rq_failed_overloaded"))[-1]["error"]["type"] == "overloaded_error"


def test_content_frames_are_marked_with_their_size() -> None:
    rendered = _render("rq_round_robin")
    marked = [(json.loads(f.data[6:]), f.tokens) for f in rendered.frames if f.content]
    fragments = [d["content"] if "content" in d else d["tool_calls"][0]["function"]["arguments"]
                 for d in (p["choices"][0]["delta"] for p, _ in marked)]
    assert fragments == ["Checking.", PARIS[0], '{"tz":', PARIS[1], '"CET"}', "Done."]
    assert [t for _, t in marked] == [len(f) / 4 for f in fragments]


def test_body_is_a_chat_completion() -> None:
    ctx = RenderContext(model="gpt-test")
    body = RENDERER.body(SCENARIOS["rq_round_robin"], ctx)
    assert body["object"] == "chat.completion"
    assert body["id"] == _payloads(RENDERER.stream(SCENARIOS["rq_round_robin"], ctx))[0]["id"]
    assert body["choices"] == [{"index": 0, "logprobs": None, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Checking.Done.", "refusal": None, "annotations": [],
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"CET"}'}},
        ]}}]
    text_only = RENDERER.body(SCENARIOS["rq_reasoning"], ctx)["choices"][0]["message"]
    assert "tool_calls" not in text_only and text_only["content"] == "Hello!"
    calls_only = RENDERER.body(SCENARIOS["rq_one_call"], ctx)
    assert calls_only["choices"][0]["message"]["content"] is None
    assert calls_only["usage"]["prompt_tokens"] == 20


@pytest.mark.parametrize(("status", "kind", "code"), [
    (400, "invalid_request_error", None), (401, "invalid_request_error", "invalid_api_key"),
    (404, "invalid_request_error", "model_not_found"), (429, "requests", "rate_limit_exceeded"),
    (500, "server_error", None), (503, "server_error", None), (529, "server_error", None),
])
def test_error_body_has_the_openai_shape(status: int, kind: str, code: str | None) -> None:
    body = RENDERER.error_body(status, "boom")
    assert body == {"error": {"message": "boom", "type": kind, "param": None, "code": code}}
    assert check_body(json.dumps(body).encode(), front="chat").failed_rules == ()
