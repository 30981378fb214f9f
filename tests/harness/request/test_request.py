"""The request the harness sends for a scenario, in each dialect (harness/request/_request.py): every bundled
scenario's request validates against the official SDKs' request types, and each dialect carries the neutral
request's history, tools, tool_choice, parallel flag and limits in its own form."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pydantic import TypeAdapter

from callproof.harness.request import ANTHROPIC_MAX_TOKENS, front_request
from callproof.harness.scenario import bundled_scenarios, markers

SCENARIOS = bundled_scenarios()
DIALECTS = ("responses", "chat", "anthropic")


@functools.cache
def adapters() -> dict[str, tuple[TypeAdapter[Any], TypeAdapter[Any]]]:
    """The arbiters of the request shapes: the official SDKs' TypedDicts (stream and non-stream forms), as pydantic
    adapters. Built when a test first asks: importing the SDKs takes seconds of CPU every pytest worker would pay at
    collection."""
    from anthropic.types import message_create_params
    from openai.types.chat import completion_create_params
    from openai.types.responses import response_create_params

    sdk_types: dict[str, tuple[Any, Any]] = {
        "responses": (response_create_params.ResponseCreateParamsStreaming,
                      response_create_params.ResponseCreateParamsNonStreaming),
        "chat": (completion_create_params.CompletionCreateParamsStreaming,
                 completion_create_params.CompletionCreateParamsNonStreaming),
        "anthropic": (message_create_params.MessageCreateParamsStreaming,
                      message_create_params.MessageCreateParamsNonStreaming),
    }
    return {d: (TypeAdapter(s), TypeAdapter(n)) for d, (s, n) in sdk_types.items()}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
def test_every_request_is_valid_for_the_official_sdk(dialect: Any, stream: bool) -> None:
    adapter = adapters()[dialect][0 if stream else 1]
    for scenario in SCENARIOS.values():
        adapter.validate_python(front_request(scenario.id, scenario.request, case="c", dialect=dialect,
                                              stream=stream))


def test_an_invalid_body_is_refused_by_the_sdk_types() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        adapters()["anthropic"][0].validate_python({"model": "m", "messages": [], "stream": True})


def _body(scenario: str, dialect: Any) -> dict[str, Any]:
    return front_request(scenario, SCENARIOS[scenario].request, case="c1", dialect=dialect)


def test_chat_history_pairs_calls_and_results_by_id() -> None:
    body = _body("multi_turn_conversation", "chat")
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user", "assistant", "tool"]
    assert body["messages"][1]["content"] == f"How warm is Paris? {markers('multi_turn_conversation', 'c1')}"
    assert body["messages"][4]["tool_calls"] == [
        {"id": "call_mtc_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}]
    assert body["messages"][5] == {"role": "tool", "tool_call_id": "call_mtc_1", "content": '{"temperature_c":22}'}
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assert body["stream_options"] == {"include_usage": True}


def test_anthropic_history_uses_blocks_and_a_system_prompt() -> None:
    body = _body("multi_turn_conversation", "anthropic")
    assert body["system"] == "You are a concise weather assistant."
    assert body["max_tokens"] == ANTHROPIC_MAX_TOKENS
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert body["messages"][3]["content"] == [
        {"type": "tool_use", "id": "call_mtc_1", "name": "get_weather", "input": {"city": "Rome"}}]
    assert body["messages"][4]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_mtc_1", "content": '{"temperature_c":22}'}]
    assert "input_schema" in body["tools"][0]


@pytest.mark.parametrize(("dialect", "named", "serial"), [
    ("responses", {"type": "function", "name": "get_time"}, ("parallel_tool_calls", False)),
    ("chat", {"type": "function", "function": {"name": "get_time"}}, ("parallel_tool_calls", False)),
    ("anthropic", {"type": "tool", "name": "get_time"}, ("tool_choice", {"type": "auto",
                                                                          "disable_parallel_tool_use": True})),
])
def test_tool_choice_and_the_parallel_flag_take_each_dialects_form(
    dialect: Any, named: dict[str, Any], serial: tuple[str, Any]
) -> None:
    assert _body("tool_choice_named", dialect)["tool_choice"] == named
    field, value = serial
    assert _body("parallel_calls_disabled", dialect)[field] == value


def test_max_output_tokens_take_each_dialects_name() -> None:
    limit = SCENARIOS["length_mid_text"].request["max_output_tokens"]
    assert _body("length_mid_text", "responses")["max_output_tokens"] == limit
    assert _body("length_mid_text", "chat")["max_completion_tokens"] == limit
    assert _body("length_mid_text", "anthropic")["max_tokens"] == limit


def test_a_bare_string_input_is_a_string_or_one_string_message() -> None:
    text = f"What is the capital of France? {markers('input_bare_string', 'c1')}"
    assert _body("input_bare_string", "responses")["input"] == text
    for dialect in ("chat", "anthropic"):
        assert _body("input_bare_string", dialect)["messages"] == [{"role": "user", "content": text}]


def test_string_content_stays_a_string_in_every_dialect() -> None:
    items = _body("input_string_content", "responses")["input"]
    assert [type(i["content"]) for i in items] == [str, str, str]
    for dialect in ("chat", "anthropic"):
        messages = _body("input_string_content", dialect)["messages"]
        assert [(m["role"], type(m["content"])) for m in messages] == [
            ("user", str), ("assistant", str), ("user", str)]


def test_instructions_and_a_developer_message_take_each_dialects_system_form() -> None:
    responses = _body("input_instructions_and_developer", "responses")
    assert responses["instructions"] == "Answer in one short line."
    assert responses["input"][0]["role"] == "developer"
    chat = _body("input_instructions_and_developer", "chat")["messages"]
    assert [m["role"] for m in chat] == ["system", "developer", "user"]
    assert _body("input_instructions_and_developer", "anthropic")["system"] == [
        {"type": "text", "text": "Answer in one short line."},
        {"type": "text", "text": "Always name the country after the city."}]


def test_a_tool_output_of_parts_takes_each_dialects_part_type() -> None:
    texts = ["Temperature: 18 °C.", "Sky: sunny."]
    assert _body("tool_output_content_array", "responses")["input"][2]["output"] == [
        {"type": "input_text", "text": t} for t in texts]
    assert _body("tool_output_content_array", "chat")["messages"][2]["content"] == [
        {"type": "text", "text": t} for t in texts]
    assert _body("tool_output_content_array", "anthropic")["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": t} for t in texts]


def test_built_in_tools_take_their_nearest_form_in_each_dialect() -> None:
    responses = _body("builtin_tools_in_request", "responses")
    assert [t["type"] for t in responses["tools"]] == ["web_search", "file_search", "custom", "function"]
    chat = _body("builtin_tools_in_request", "chat")
    assert [t["type"] for t in chat["tools"]] == ["custom", "function"]
    assert chat["tools"][0]["custom"]["name"] == "run_sql" and chat["web_search_options"] == {}
    anthropic = _body("builtin_tools_in_request", "anthropic")
    assert anthropic["tools"][1] == {"type": "web_search_20250305", "name": "web_search"}
    assert [t["name"] for t in anthropic["tools"]] == ["get_weather", "web_search"]
