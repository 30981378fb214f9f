"""The result a client holds, read from a stream or a body of each dialect (harness/outcome/_wire.py): every
bundled scenario rendered by the mock in every dialect reads back as the scenario expects, and the edge cases of
each dialect (cut streams, length, errors, index-less chunks) read as a careful client would."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness.check import parse_sse
from callproof.harness.judge import Findings, expected_outcome
from callproof.harness.outcome import Call, Result, result_of_body, result_of_events
from callproof.harness.scenario import Scenario, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
#: Scenarios whose outcome is the rendered stream itself: no fault (the player applies those), nothing raw, and no
#: deliberate break of the dialect (a broken stream is the checker's business, not what a client holds).
PLAIN = [
    pytest.param(scenario, dialect, id=f"{scenario.id}::{dialect}")
    for scenario in SCENARIOS.values()
    for dialect in ("responses", "chat", "anthropic")
    if dialect not in scenario.raw and not scenario.faults and not scenario.breaks.get(dialect)
    and scenario.plays_in(dialect)
]


def _failures(scenario: Scenario, result: Result) -> dict[str, list[str]]:
    findings = Findings()
    expected_outcome(findings, scenario.expect, result)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


@pytest.mark.parametrize(("scenario", "dialect"), PLAIN)
def test_a_rendered_stream_reads_as_the_scenario_expects(scenario: Scenario, dialect: Any) -> None:
    body = RENDERERS[dialect].stream(scenario, RenderContext()).body
    assert _failures(scenario, result_of_events(parse_sse(body)[0], dialect)) == {}


@pytest.mark.parametrize(("scenario", "dialect"), PLAIN)
def test_a_rendered_body_reads_as_the_scenario_expects(scenario: Scenario, dialect: Any) -> None:
    body = RENDERERS[dialect].body(scenario, RenderContext())
    assert _failures(scenario, result_of_body(body, 200, dialect)) == {}


def _sse(*payloads: Any, done: bool = False) -> list[Any]:
    text = "".join(f"data: {json.dumps(p)}\n\n" for p in payloads) + ("data: [DONE]\n\n" if done else "")
    return parse_sse(text.encode())[0]


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}


def _tc(index: int | None, **fields: Any) -> dict[str, Any]:
    call: dict[str, Any] = {} if index is None else {"index": index}
    if "id" in fields:
        call.update(id=fields["id"], type="function")
    call["function"] = {k: fields[k] for k in ("name", "arguments") if k in fields}
    return {"tool_calls": [call]}


INTERLEAVED = [
    _chunk(_tc(0, id="a", name="f", arguments="")), _chunk(_tc(1, id="b", name="g", arguments="")),
    _chunk(_tc(0, arguments='{"x":')), _chunk(_tc(1, arguments='{"y":')),
    _chunk(_tc(0, arguments="1}")), _chunk(_tc(1, arguments="2}")),
]


def test_chat_calls_accumulate_by_index() -> None:
    result = result_of_events(_sse(*INTERLEAVED, _chunk(finish="tool_calls"), done=True), "chat")
    assert result == Result("completed", "", (Call("a", "f", '{"x":1}'), Call("b", "g", '{"y":2}')),
                            "finish_reason tool_calls")


def test_a_chat_stream_cut_before_finish_reason_completed_no_call() -> None:
    result = result_of_events(_sse(*INTERLEAVED), "chat")
    assert (result.status, result.calls, result.terminal) == ("error", (), "cut")


def test_chat_length_cuts_the_last_call_only() -> None:
    result = result_of_events(_sse(*INTERLEAVED[:5], _chunk(finish="length"), done=True), "chat")
    assert (result.status, result.incomplete_reason, result.calls) == (
        "incomplete", "max_output_tokens", (Call("a", "f", '{"x":1}'),))


def test_a_chat_error_object_is_an_error() -> None:
    result = result_of_events(_sse(_chunk({"content": "Hi"}), {"error": {"message": "upstream died"}}), "chat")
    assert (result.status, result.text, result.error) == ("error", "Hi", "upstream died")


def test_a_chat_fragment_without_index_continues_the_last_call() -> None:
    events = _sse(_chunk(_tc(None, id="a", name="f", arguments='{"x"')), _chunk(_tc(None, arguments=":1}")),
                  _chunk(finish="tool_calls"), done=True)
    assert result_of_events(events, "chat").calls == (Call("a", "f", '{"x":1}'),)


def test_a_chat_error_object_then_done_is_an_error() -> None:
    """docs/spec/verdicts.md §11: the [DONE] after an error object (vLLM) ends the stream; it finishes no turn."""
    events = _sse(_chunk({"content": "Hi"}), {"error": {"message": "upstream died"}}, done=True)
    result = result_of_events(events, "chat")
    assert (result.status, result.text, result.error) == ("error", "Hi", "upstream died")


def test_chat_fragments_without_index_are_keyed_by_their_ids() -> None:
    """docs/spec/verdicts.md §12: interleaved deltas without index, each with its call's id (Gemini), make one call per
    id; a later delta without index names its call by the id an indexed delta gave it."""
    events = _sse(_chunk(_tc(None, id="a", name="f", arguments="")), _chunk(_tc(None, id="b", name="g", arguments="")),
                  _chunk(_tc(None, id="a", arguments='{"x":')), _chunk(_tc(None, id="b", arguments="{")),
                  _chunk(_tc(None, id="a", arguments="1}")), _chunk(_tc(None, id="b", arguments="}")),
                  _chunk(finish="tool_calls"), done=True)
    assert result_of_events(events, "chat").calls == (Call("a", "f", '{"x":1}'), Call("b", "g", "{}"))
    mixed = _sse(_chunk(_tc(0, id="a", name="f", arguments="")), _chunk(_tc(None, id="a", arguments="{}")),
                 _chunk(finish="tool_calls"), done=True)
    assert result_of_events(mixed, "chat").calls == (Call("a", "f", "{}"),)


def _ant(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


TOOL_BLOCKS = [
    _ant("message_start", message={"id": "m", "type": "message", "role": "assistant", "content": []}),
    _ant("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    _ant("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
    _ant("content_block_stop", index=0),
    _ant("content_block_start", index=1, content_block={"type": "tool_use", "id": "t1", "name": "f", "input": {}}),
    _ant("content_block_delta", index=1, delta={"type": "input_json_delta", "partial_json": '{"x":1}'}),
    _ant("content_block_stop", index=1),
    _ant("content_block_start", index=2, content_block={"type": "tool_use", "id": "t2", "name": "g", "input": {}}),
    _ant("content_block_stop", index=2),
]


def test_anthropic_tool_blocks_are_calls() -> None:
    events = _sse(*TOOL_BLOCKS, _ant("message_delta", delta={"stop_reason": "tool_use"}), _ant("message_stop"))
    assert result_of_events(events, "anthropic") == Result(
        "completed", "Hi", (Call("t1", "f", '{"x":1}'), Call("t2", "g", "{}")), "stop_reason tool_use")


def test_an_anthropic_stream_cut_keeps_only_the_stopped_blocks() -> None:
    events = _sse(*TOOL_BLOCKS[:6])
    result = result_of_events(events, "anthropic")
    assert (result.status, result.terminal, result.calls) == ("error", "cut", ())


def test_anthropic_max_tokens_is_incomplete_and_an_error_event_an_error() -> None:
    stopped = _sse(*TOOL_BLOCKS[:4], _ant("message_delta", delta={"stop_reason": "max_tokens"}), _ant("message_stop"))
    assert result_of_events(stopped, "anthropic").incomplete_reason == "max_output_tokens"
    failed = _sse(*TOOL_BLOCKS[:4], _ant("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    assert (result_of_events(failed, "anthropic").status, result_of_events(failed, "anthropic").error) == (
        "error", "Overloaded")


def test_an_http_error_is_an_error_in_every_dialect() -> None:
    for dialect in ("responses", "chat", "anthropic"):
        assert result_of_body({"error": {"message": "x"}}, 429, dialect).terminal == "http 429"


def test_a_normal_finish_needs_its_end_marker() -> None:
    chat = result_of_events(_sse(*INTERLEAVED, _chunk(finish="tool_calls")), "chat")
    assert (chat.status, chat.terminal, len(chat.calls)) == ("error", "cut", 2)
    events = _sse(*TOOL_BLOCKS, _ant("message_delta", delta={"stop_reason": "tool_use"}))
    anthropic = result_of_events(events, "anthropic")
    assert (anthropic.status, anthropic.terminal, len(anthropic.calls)) == ("error", "cut", 2)


#: An Anthropic tool_use turn, event by event: message_start, the block, its stop, message_delta, message_stop.
ANTHROPIC_TURN = [
    {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [],
                                          "model": "m", "usage": {"input_tokens": 1, "output_tokens": 0}}},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city":'}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"Paris"}'}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
    {"type": "message_stop"},
]
WEATHER = Call("toolu_1", "get_weather", '{"city":"Paris"}')


def test_an_anthropic_stream_cut_after_its_stop_reason_is_cut_and_settled() -> None:
    """docs/spec/verdicts.md §1: without message_stop the response is cut, and `settled` holds the Message the
    anthropic SDK returns; cut before the stop_reason nothing is settled."""
    cut = result_of_events(_sse(*ANTHROPIC_TURN[:-1]), "anthropic")
    assert (cut.status, cut.terminal, cut.calls) == ("error", "cut", (WEATHER,))
    assert cut.settled == Result("completed", "", (WEATHER,), "stop_reason tool_use")
    assert result_of_events(_sse(*ANTHROPIC_TURN[:-2]), "anthropic").settled is None
    assert result_of_events(_sse(*ANTHROPIC_TURN), "anthropic").settled is None


ABORT = "RemoteProtocolError: peer closed connection without sending complete message body (incomplete chunked read)"


@pytest.mark.parametrize("events", [ANTHROPIC_TURN, ANTHROPIC_TURN[:-1], ANTHROPIC_TURN[:3]])
def test_an_aborted_anthropic_body_is_an_error_whatever_arrived(events: list[Any]) -> None:
    """docs/spec/verdicts.md §7: the anthropic SDK reads the body to its end and raises on the abort, even after
    message_stop: the client holds an error ended by `abort`, the calls done before it, nothing settled."""
    result = result_of_events(_sse(*events), "anthropic", aborted=ABORT)
    assert (result.status, result.terminal, result.error) == ("error", "abort", f"the body was aborted: {ABORT}")
    assert result.calls == ((WEATHER,) if len(events) > 3 else ()) and result.settled is None


def test_an_aborted_responses_body_is_an_error_after_its_terminal_event_too() -> None:
    created = {"type": "response.created", "response": {"id": "r", "status": "in_progress", "output": []}}
    completed = {"type": "response.completed", "response": {"id": "r", "status": "completed", "output": []}}
    assert result_of_events(_sse(created, completed), "responses").status == "completed"
    assert result_of_events(_sse(created, completed), "responses", aborted=ABORT).terminal == "abort"


def test_an_aborted_chat_body_is_an_error_unless_done_came_first() -> None:
    """openai-python stops reading a Chat stream at `data: [DONE]`: an abort after it is never seen."""
    finished = [*INTERLEAVED, _chunk(finish="tool_calls")]
    assert result_of_events(_sse(*finished, done=True), "chat", aborted=ABORT).status == "completed"
    cut = result_of_events(_sse(*finished), "chat", aborted=ABORT)
    assert (cut.status, cut.terminal) == ("error", "abort")
