"""The Responses renderer: the exact event order for sequential, interleaved and empty items, each ending,
arguments_in_done_only, reasoning summaries, the echoed request, ids, determinism, the non-stream body and error
bodies. Scenarios come from tests/mock_server/dialects/data/responses_render.json (not part of the corpus)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import check_body, check_bytes
from callproof.harness.scenario import FunctionCall, Scenario, load_scenarios
from callproof.mock_server.dialects._render import RenderContext, Rendered
from callproof.mock_server.dialects._responses import ResponsesRenderer

RENDERER = ResponsesRenderer()


SCENARIOS = load_scenarios([Path(__file__).parent / "data" / "responses_render.json"])
#: The argument fragments of the Paris and Tokyo calls in that file.
PARIS = ['{"city":', '"Paris"}']
TOKYO = ['{"ci', 'ty":"To', 'kyo"}']


def _render(scenario_id: str, request: dict[str, Any] | None = None, seed: str = "callproof") -> Rendered:
    return RENDERER.stream(SCENARIOS[scenario_id], RenderContext(seed=seed, request=request or {}))


def _events(rendered: Rendered) -> list[dict[str, Any]]:
    """Each frame's JSON, after checking the frame is `event: <type>` + one `data:` line + a blank line."""
    out = []
    for frame in rendered.frames:
        match = re.fullmatch(r"event: ([a-z_.]+)\ndata: (.*)\n\n", frame.data.decode(), re.DOTALL)
        assert match is not None, frame.data
        payload = json.loads(match.group(2))
        assert payload["type"] == match.group(1)
        out.append(payload)
    return out


def _trace(scenario_id: str) -> list[str]:
    """Each event as `type[output_index]` (response events bare), for comparing the order."""
    return [e["type"].removeprefix("response.") + (f"[{e['output_index']}]" if "output_index" in e else "")
            for e in _events(_render(scenario_id))]


def _check(rendered: Rendered) -> tuple[str, ...]:
    return check_bytes(rendered.body, front="responses", profile="openai").failed_rules


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_stream_passes_the_checker_except_declared_breaks(scenario: Scenario) -> None:
    for request in ({}, {"stream_options": {"include_obfuscation": False}}):
        report = check_bytes(RENDERER.stream(scenario, RenderContext(request=request)).body, front="responses")
        assert report.failed_rules == scenario.breaks.get("responses", ()), [
            v.message for r in report.failed for v in r.violations]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS.values() if not s.breaks], ids=lambda s: s.id)
def test_body_passes_the_checker_and_is_the_terminal_response(scenario: Scenario) -> None:
    body = RENDERER.body(scenario, RenderContext())
    assert check_body(json.dumps(body).encode(), front="responses", profile="openai").failed_rules == ()
    assert body == _events(RENDERER.stream(scenario, RenderContext()))[-1]["response"]


def test_sequential_items_open_and_close_one_after_the_other() -> None:
    assert _trace("r_sequential") == [
        "created", "in_progress",
        "output_item.added[0]", "content_part.added[0]", "output_text.delta[0]", "output_text.delta[0]",
        "output_text.done[0]", "content_part.done[0]", "output_item.done[0]",
        "output_item.added[1]", "function_call_arguments.delta[1]", "function_call_arguments.delta[1]",
        "function_call_arguments.done[1]", "output_item.done[1]",
        "completed",
    ]


def test_sequence_numbers_count_from_zero_and_every_frame_names_its_type() -> None:
    events = _events(_render("r_sequential"))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_interleaved_calls_are_open_together_and_close_in_output_order() -> None:
    assert _trace("r_round_robin") == [
        "created", "in_progress",
        "output_item.added[0]", "function_call_arguments.delta[0]",
        "output_item.added[1]", "function_call_arguments.delta[1]",
        "function_call_arguments.delta[0]", "function_call_arguments.delta[1]", "function_call_arguments.delta[1]",
        "function_call_arguments.done[0]", "output_item.done[0]",
        "function_call_arguments.done[1]", "output_item.done[1]",
        "completed",
    ]
    deltas = [(e["output_index"], e["delta"]) for e in _events(_render("r_round_robin"))
              if e["type"] == "response.function_call_arguments.delta"]
    assert deltas == [(0, PARIS[0]), (1, TOKYO[0]), (0, PARIS[1]), (1, TOKYO[1]), (1, TOKYO[2])]


def test_an_item_streamed_first_on_the_wire_is_still_added_after_the_earlier_items() -> None:
    # output_index is dense in the order of the added events: item 0 is added right before item 1's first fragment.
    assert _trace("r_explicit_later_first")[:6] == [
        "created", "in_progress", "output_item.added[0]", "output_item.added[1]",
        "function_call_arguments.delta[1]", "function_call_arguments.delta[1]",
    ]


def test_items_without_fragments_still_start_and_end_in_output_order() -> None:
    assert _trace("r_empty_items") == [
        "created", "in_progress",
        "output_item.added[0]", "function_call_arguments.done[0]", "output_item.done[0]",
        "output_item.added[1]", "content_part.added[1]", "output_text.delta[1]", "output_text.done[1]",
        "content_part.done[1]", "output_item.done[1]",
        "output_item.added[2]", "function_call_arguments.done[2]", "output_item.done[2]",
        "output_item.added[3]", "output_item.done[3]",  # a reasoning item without summary has no summary part
        "completed",
    ]
    events = _events(_render("r_empty_items"))
    assert events[3]["arguments"] == "" and events[-2]["item"]["summary"] == []


def test_arguments_in_done_only_sends_no_delta_and_the_arguments_in_the_done_event() -> None:
    rendered = _render("r_done_only")
    events = _events(rendered)
    assert not [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    done = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.done")
    assert events[done]["arguments"] == '{"city":"Paris"}' and events[done]["name"] == "get_weather"
    assert rendered.frames[done].content and rendered.frames[done].tokens == len('{"city":"Paris"}') / 4
    assert events[-1]["response"]["output"][0]["arguments"] == '{"city":"Paris"}'
    assert _check(rendered) == ("RSP-ARGS-001",)


def test_chat_and_anthropic_quirks_render_like_a_plain_call() -> None:
    quirky = SCENARIOS["r_quirks"]
    call = quirky.output[0]
    assert isinstance(call, FunctionCall)
    plain = replace(quirky, output=(FunctionCall(call.name, call.call_id, call.arguments, call.fragments, ()),))
    assert RENDERER.stream(quirky, RenderContext()) == RENDERER.stream(plain, RenderContext())
    added = _events(_render("r_quirks"))[2]
    assert added["item"]["name"] == "get_weather" and added["item"]["call_id"] == "call_p"


def test_a_call_without_call_id_has_no_call_id_key() -> None:
    events = _events(_render("r_no_call_id"))
    items = [e["item"] for e in events if "item" in e] + events[-1]["response"]["output"]
    assert len(items) == 3 and all("call_id" not in item for item in items)


def test_reasoning_text_streams_as_a_reasoning_text_part() -> None:
    events = _events(_render("r_reasoning"))
    reasoning = [e for e in events if e.get("output_index") == 0]
    assert [e["type"] for e in reasoning] == [
        "response.output_item.added", "response.content_part.added",
        "response.reasoning_text.delta", "response.reasoning_text.delta",
        "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
    ]
    assert reasoning[0]["item"]["summary"] == [] and reasoning[0]["item"]["id"].startswith("rs_")
    assert reasoning[1]["part"] == {"type": "reasoning_text", "text": ""}
    assert reasoning[4]["text"] == "Needs weather." and all(e["content_index"] == 0 for e in reasoning[1:6])
    assert reasoning[-1]["item"]["summary"] == []
    assert reasoning[-1]["item"]["content"] == [{"type": "reasoning_text", "text": "Needs weather."}]
    assert events[-1]["response"]["usage"]["output_tokens_details"] == {"reasoning_tokens": 9}


def test_reasoning_carries_encrypted_content_when_the_request_includes_it() -> None:
    request = {"include": ["reasoning.encrypted_content"]}
    done = _events(_render("r_reasoning", request))[8]
    assert done["type"] == "response.output_item.done" and done["item"]["encrypted_content"].startswith("gAAAAA")
    assert "encrypted_content" not in _events(_render("r_reasoning"))[8]["item"]


def test_completed_ending_carries_usage_and_completed_at() -> None:
    final = _events(_render("r_sequential"))[-1]
    assert final["type"] == "response.completed"
    response = final["response"]
    assert response["status"] == "completed" and response["completed_at"] == RenderContext().created + 1
    assert response["usage"] == {"input_tokens": 30,
                                 "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 8},
                                 "output_tokens": 12, "output_tokens_details": {"reasoning_tokens": 0},
                                 "total_tokens": 42}
    assert [item["type"] for item in response["output"]] == ["message", "function_call"]


def test_length_ending_closes_the_cut_item_as_incomplete() -> None:
    events = _events(_render("r_length"))
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [(item["type"], item["status"]) for item in done] == [("message", "completed"),
                                                                 ("function_call", "incomplete")]
    assert done[1]["arguments"] == '{"city":"Pa'
    final = events[-1]
    assert final["type"] == "response.incomplete"
    assert final["response"]["status"] == "incomplete" and final["response"]["completed_at"] is None
    assert final["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    assert final["response"]["output"] == done and final["response"]["usage"]["total_tokens"] == 36


def test_length_ending_cuts_every_item_of_the_last_interleaved_group() -> None:
    done = [e["item"]["status"] for e in _events(_render("r_length_interleaved"))
            if e["type"] == "response.output_item.done"]
    assert done == ["incomplete", "incomplete"]


def test_content_filter_ending_is_incomplete_with_its_reason() -> None:
    events = _events(_render("r_content_filter"))
    assert events[-2]["item"]["status"] == "incomplete"
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "content_filter"}


def test_failed_ending_leaves_the_cut_item_open_and_reports_the_error() -> None:
    assert _trace("r_failed")[-4:] == [
        "output_item.done[0]", "output_item.added[1]", "function_call_arguments.delta[1]", "failed",
    ]
    response = _events(_render("r_failed"))[-1]["response"]
    assert response["status"] == "failed" and response["usage"] is None
    assert response["error"] == {"code": "rate_limit_exceeded", "message": "Slow down."}
    assert [item["type"] for item in response["output"]] == ["message"]
    assert RENDERER.body(SCENARIOS["r_failed"], RenderContext()) == response


def test_failed_ending_without_output_is_created_in_progress_failed_with_a_server_error() -> None:
    events = _events(_render("r_failed_empty"))
    assert [e["type"] for e in events] == ["response.created", "response.in_progress", "response.failed"]
    assert events[-1]["response"]["error"]["code"] == "server_error"
    assert events[-1]["response"]["output"] == []


def test_response_events_echo_the_request() -> None:
    request = {
        "model": "gpt-4.1", "instructions": "Be brief.", "max_output_tokens": 64, "parallel_tool_calls": False,
        "temperature": 0.2, "tool_choice": {"type": "function", "name": "get_weather"},
        "tools": [
            {"type": "function", "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}, "strict": False}},
            {"type": "web_search"},
        ],
        "reasoning": {"effort": "low"}, "metadata": {"case": "1"}, "store": False, "service_tier": "auto",
    }
    events = _events(RENDERER.stream(SCENARIOS["r_sequential"], RenderContext(model="gpt-4.1", request=request)))
    for event in (events[0], events[1], events[-1]):
        response = event["response"]
        assert response["model"] == "gpt-4.1" and response["instructions"] == "Be brief."
        assert response["max_output_tokens"] == 64 and response["parallel_tool_calls"] is False
        assert response["temperature"] == 0.2 and response["store"] is False
        assert response["tool_choice"] == {"type": "function", "name": "get_weather"}
        assert response["tools"] == [
            {"type": "function", "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"},
             "strict": True},
            {"type": "function", "name": "get_time", "description": None, "parameters": {"type": "object"},
             "strict": False},
            {"type": "web_search"},
        ]
        assert response["reasoning"] == {"effort": "low", "summary": None}
        assert response["metadata"] == {"case": "1"} and response["service_tier"] == "default"
    assert events[0]["response"]["status"] == events[1]["response"]["status"] == "in_progress"
    assert events[0]["response"]["output"] == [] and events[0]["response"]["usage"] is None


def test_response_defaults_without_a_request() -> None:
    response = _events(_render("r_sequential"))[0]["response"]
    assert response["tools"] == [] and response["tool_choice"] == "auto" and response["instructions"] is None
    assert response["parallel_tool_calls"] is True and response["model"] == RenderContext().model
    assert response["text"] == {"format": {"type": "text"}, "verbosity": "medium"}
    assert response["truncation"] == "disabled" and response["metadata"] == {}


def test_deltas_carry_logprobs_and_obfuscation_unless_the_request_turns_it_off() -> None:
    events = _events(_render("r_reasoning"))
    deltas = [e for e in events if e["type"].endswith(".delta")]
    assert deltas and all(re.fullmatch(r"[0-9A-Za-z]{2,15}", e["obfuscation"]) for e in deltas)
    assert not [e for e in events if "obfuscation" in e and not e["type"].endswith(".delta")]
    off = _events(_render("r_sequential", {"stream_options": {"include_obfuscation": False}}))
    assert not [e for e in off if "obfuscation" in e]
    assert [e["logprobs"] for e in off if e["type"] == "response.output_text.delta"] == [[], []]


def test_content_frames_are_the_deltas_with_their_size_in_tokens() -> None:
    rendered = _render("r_sequential")
    events = _events(rendered)
    content = [(e["delta"], f.tokens) for e, f in zip(events, rendered.frames, strict=True) if f.content]
    assert content == [(piece, len(piece) / 4) for piece in ["Hi", ". ", *PARIS]]


def test_ids_are_deterministic_prefixed_and_unique() -> None:
    events = _events(_render("r_reasoning"))
    ids = [e["item"]["id"] for e in events if e["type"] == "response.output_item.added"]
    assert re.fullmatch(r"rs_[0-9a-f]{48}", ids[0]) and re.fullmatch(r"fc_[0-9a-f]{48}", ids[1])
    assert re.fullmatch(r"resp_[0-9a-f]{48}", events[0]["response"]["id"])
    assert re.fullmatch(r"msg_[0-9a-f]{48}", _events(_render("r_sequential"))[2]["item"]["id"])
    assert len({*ids, events[0]["response"]["id"]}) == 3
    assert {e["response"]["id"] for e in events if "response" in e} == {events[0]["response"]["id"]}


def test_rendering_depends_only_on_the_context() -> None:
    assert _render("r_round_robin", seed="a") == _render("r_round_robin", seed="a")
    assert RENDERER.body(SCENARIOS["r_length"], RenderContext()) == RENDERER.body(SCENARIOS["r_length"],
                                                                                   RenderContext())
    other = _events(_render("r_round_robin", seed="b"))
    assert other[0]["response"]["id"] != _events(_render("r_round_robin", seed="a"))[0]["response"]["id"]


@pytest.mark.parametrize(("status", "kind", "code"), [
    (400, "invalid_request_error", None),
    (401, "invalid_request_error", "invalid_api_key"),
    (404, "invalid_request_error", "model_not_found"),
    (413, "invalid_request_error", "request_too_large"),
    (429, "requests", "rate_limit_exceeded"),
    (500, "server_error", None),
    (503, "server_error", None),
    (529, "server_error", None),
])
def test_error_body_is_openais_shape(status: int, kind: str, code: str | None) -> None:
    body = RENDERER.error_body(status, "nope")
    assert body == {"error": {"message": "nope", "type": kind, "param": None, "code": code}}
    assert check_body(json.dumps(body).encode(), front="responses", profile="openai").failed_rules == ()
