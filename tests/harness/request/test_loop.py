"""The deterministic tool and the next request of a loop (docs/spec/loops.md §1, §7), in every dialect."""

from __future__ import annotations

import pytest

from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.request import LoopCall, ToolOutput, front_request, loop_request, tool_output

REQUEST = {"input": [{"role": "user", "text": "Weather?"}],
           "tools": [{"name": "get_weather", "parameters": {"type": "object"}}]}
TURNS = [[LoopCall("c1", "get_weather", '{"city":"Paris"}'), LoopCall("c2", "get_weather", '{"fail":true}')],
         [LoopCall("c3", "get_forecast", "{}")]]


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"city":"Paris"}', ToolOutput("get_weather ok c1")),
    ("", ToolOutput("get_weather ok c1")),
    ('{"city":"Atlantis","fail":true}', ToolOutput("get_weather error c1", True)),
    ('{"fail":"yes"}', ToolOutput("get_weather ok c1")),
    ("[1]", ToolOutput("get_weather error c1", True)),
    ("{not json", ToolOutput("get_weather error c1", True)),
])
def test_the_tool_is_a_pure_function_of_name_arguments_and_id(arguments: str, expected: ToolOutput) -> None:
    assert tool_output("get_weather", arguments, "c1") == expected


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_turns_is_the_first_request(dialect: Dialect) -> None:
    assert loop_request("s", REQUEST, [], case="k", dialect=dialect) == front_request("s", REQUEST, case="k",
                                                                                      dialect=dialect)


def test_responses_gets_each_turns_calls_then_their_outputs() -> None:
    items = loop_request("s", REQUEST, TURNS, case="k", dialect="responses")["input"]
    assert [(i.get("type"), i.get("call_id")) for i in items[1:]] == [
        ("function_call", "c1"), ("function_call", "c2"), ("function_call_output", "c1"),
        ("function_call_output", "c2"), ("function_call", "c3"), ("function_call_output", "c3")]
    assert items[4]["output"] == "get_weather error c2" and "is_error" not in items[4]


def test_chat_gets_assistant_tool_calls_then_tool_messages() -> None:
    messages = loop_request("s", REQUEST, TURNS, case="k", dialect="chat")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant", "tool"]
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["c1", "c2"]
    assert [(m["tool_call_id"], m["content"]) for m in messages if m["role"] == "tool"] == [
        ("c1", "get_weather ok c1"), ("c2", "get_weather error c2"), ("c3", "get_forecast ok c3")]


def test_anthropic_gets_tool_use_then_tool_result_blocks_with_is_error() -> None:
    messages = loop_request("s", REQUEST, TURNS, case="k", dialect="anthropic")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [b["id"] for b in messages[1]["content"]] == ["c1", "c2"]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "get_weather ok c1"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "get_weather error c2", "is_error": True}]


def test_a_bare_string_input_becomes_a_message_before_the_history() -> None:
    body = loop_request("s", {"input": "hi"}, TURNS[:1], case="k", dialect="responses")
    assert body["input"][0]["role"] == "user" and "[callproof:case=k]" in str(body["input"][0]["content"])
    assert body["input"][1]["type"] == "function_call"
