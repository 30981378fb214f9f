"""What a client holds of the item scenarios, per dialect: custom calls as custom calls (raw input), refusals as
refusals (not text), the reasoning summary (Responses summary parts, Anthropic thinking) as reasoning."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness.check import parse_sse
from callproof.harness.outcome import Call, Result, result_of_body, result_of_events
from callproof.harness.scenario import Chunked, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()


def _both(scenario_id: str, dialect: Any) -> list[Result]:
    scenario = SCENARIOS[scenario_id]
    ctx = RenderContext(request=dict(scenario.request))
    stream = result_of_events(parse_sse(RENDERERS[dialect].stream(scenario, ctx).body)[0], dialect)
    return [stream, result_of_body(RENDERERS[dialect].body(scenario, ctx), 200, dialect)]


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_a_refusal_is_held_as_a_refusal_not_text(dialect: str) -> None:
    refusal = SCENARIOS["refusal_plain"].expect.refusal
    for result in _both("refusal_plain", dialect):
        assert (result.status, result.text, result.refusal) == ("completed", "", refusal)


def test_custom_calls_are_held_as_custom_calls_with_the_raw_input() -> None:
    patch = SCENARIOS["custom_tool_apply_patch"].custom_calls[0].input
    for result in _both("custom_tool_beside_function", "responses"):
        assert [(c.name, c.kind) for c in result.calls] == [("read_file", "function"), ("apply_patch", "custom")]
        assert result.calls[1].arguments == patch


@pytest.mark.parametrize("dialect", ["responses", "anthropic"])
def test_the_reasoning_summary_is_held_as_reasoning(dialect: str) -> None:
    reasoning = SCENARIOS["reasoning_summary_encrypted"].output[0]
    assert isinstance(reasoning, Chunked)
    for result in _both("reasoning_summary_encrypted", dialect):
        assert result.reasoning == "\n\n".join(reasoning.summary) and result.text == "5 miles is about 8.05 km."


def test_raw_reasoning_text_is_not_the_summary_a_client_shows() -> None:
    for result in _both("reasoning_text_then_call", "responses"):
        assert result.reasoning == "" and result.calls[0].name == "get_weather"


def test_an_anthropic_refusal_stop_without_stop_details_stays_a_content_filter_cut() -> None:
    for result in _both("content_filter_text", "anthropic"):
        assert (result.status, result.incomplete_reason, result.refusal) == ("incomplete", "content_filter", "")


def test_a_chat_body_custom_tool_call_is_a_custom_call() -> None:
    body: dict[str, Any] = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "refusal": None, "tool_calls": [
            {"id": "c1", "type": "custom", "custom": {"name": "apply_patch", "input": "a\n\"b\""}}]}}]}
    assert result_of_body(body, 200, "chat").calls == (Call("c1", "apply_patch", 'a\n"b"', kind="custom"),)
