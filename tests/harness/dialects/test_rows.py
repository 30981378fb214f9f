"""The rows' hooks read each dialect's request and response shapes (the judge's tests judge through them too)."""

from __future__ import annotations

from callproof.harness.dialects import DIALECTS, ToolEntry

RESPONSES, CHAT, ANTHROPIC = DIALECTS["responses"], DIALECTS["chat"], DIALECTS["anthropic"]


def test_tools_are_read_into_one_shape() -> None:
    chat = CHAT.tools({"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}, "junk",
                                 {"type": "custom", "custom": {"name": "c"}}]})
    assert [(t.position, t.kind, t.tool["name"], t.path) for t in chat] == [
        (0, "function", "f", "$.tools[0].function"), (2, "custom", "c", "$.tools[2].custom")]
    anthropic = ANTHROPIC.tools({"tools": [{"name": "f", "input_schema": {"type": "object"}},
                                           {"type": "web_search_20250305", "name": "web_search"}]})
    assert [(t.kind, t.tool.get("parameters")) for t in anthropic] == [("function", {"type": "object"}),
                                                                       ("web_search_20250305", None)]
    assert [t.kind for t in RESPONSES.tools({"tools": [{"name": "f"}, {"type": "web_search"}]})] == [
        "function", "web_search"]


def test_tool_entries_follow_each_history_shape() -> None:
    assert list(RESPONSES.tool_entries({"input": [{"type": "function_call", "call_id": "a"},
                                                  {"type": "function_call_output", "call_id": "a", "output": "x"}]})) \
        == [ToolEntry("call", "a", "$.input[0].call_id"), ToolEntry("result", "a", "$.input[1].call_id", "x")]
    assert list(CHAT.tool_entries({"messages": [{"role": "tool", "tool_call_id": "a", "content": [{"text": "y"}]}]})) \
        == [ToolEntry("result", "a", "$.messages[0].tool_call_id", "y")]
    blocks = [{"type": "tool_result", "tool_use_id": "a", "content": "z", "is_error": True}]
    assert list(ANTHROPIC.tool_entries({"messages": [{"role": "user", "content": blocks}]})) == [
        ToolEntry("result", "a", "$.messages[0].content[0].tool_use_id", "z", True)]


def test_usage_in_each_dialects_field_names() -> None:
    assert RESPONSES.usage(10, 4, 3)["input_tokens_details.cached_tokens"] == 3
    assert CHAT.usage(10, 4, 3) == {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14,
                                    "prompt_tokens_details.cached_tokens": 3}
    assert ANTHROPIC.usage(10, 4, 3) == {"input_tokens": 7, "cache_read_input_tokens": 3, "output_tokens": 4}
    start = {"type": "message_start", "message": {"usage": {"input_tokens": 7, "output_tokens": 1}}}
    found, _ = ANTHROPIC.read_usage(start, None) or (None, "")
    merged, where = ANTHROPIC.read_usage({"type": "message_delta", "usage": {"output_tokens": 4}}, found) or ({}, "")
    assert merged == {"input_tokens": 7, "output_tokens": 4} and "message_delta" in where
    assert CHAT.read_usage({"choices": []}, None) is None


def test_tool_choice_means_the_responses_choice() -> None:
    assert ANTHROPIC.tool_choice_ok("required", {"tool_choice": {"type": "any"}}) == (True, {"type": "any"})
    assert ANTHROPIC.tool_choice_ok("none", {}) == (True, {"type": "none"})
    assert CHAT.tool_choice_ok({"type": "function", "name": "f"}, {"tool_choice": {"type": "function"}})[0] is False
    assert RESPONSES.tool_choice_ok("auto", {}) == (True, "auto")


def test_structured_format_and_system_texts() -> None:
    fmt = {"type": "json_schema", "name": "n", "schema": {}}
    assert CHAT.structured_format({"response_format": {"type": "json_schema", "json_schema": {"name": "n"}}}) == (
        {"name": "n", "type": "json_schema"}, "$.response_format.json_schema")
    assert RESPONSES.structured_format({"text": {"format": fmt}}) == (fmt, "$.text.format")
    assert ANTHROPIC.structured_format({}) == (None, "$.output_config.format")
    assert RESPONSES.system_texts({"instructions": "i", "input": [{"role": "developer", "content": "d"}]}) == ["i", "d"]
    assert ANTHROPIC.system_texts({"system": [{"type": "text", "text": "s"}]}) == ["s"]
