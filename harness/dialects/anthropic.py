"""Anthropic Messages (`POST /v1/messages`): its row of the dialect table."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from callproof.harness._json_types import JSONData

from ._json import flat, output_text, text_of
from ._spec import Body, DialectSpec, Entry, ToolEntry, ToolRead

__all__ = ["ANTHROPIC"]


def system_texts(body: Body) -> list[str]:
    """`system`."""
    return [text_of(body.get("system"))]


def tools(body: Body) -> list[ToolRead]:
    """Each tool; one with an input schema is Anthropic's function tool, its `input_schema` also as `parameters`."""
    found: list[ToolRead] = []
    for index, tool in enumerate(body.get("tools") or ()):
        if not isinstance(tool, Mapping):
            continue
        is_function = "input_schema" in tool and tool.get("type", "custom") == "custom"
        kind = "function" if is_function else str(tool.get("type"))
        found.append(ToolRead(index, kind, {**tool, "parameters": tool.get("input_schema")} if is_function else tool,
                              f"$.tools[{index}]"))
    return found


def function_tools(body: Body) -> dict[str, tuple[Any, Any, str, Any]]:
    return {tool["name"]: (tool.get("description"), tool.get("input_schema"), f"$.tools[{index}]",
                           tool.get("strict"))
            for index, tool in enumerate(body.get("tools") or ())
            if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)}


def tool_entries(body: Body) -> Iterator[ToolEntry]:
    messages = body.get("messages")
    for m, message in enumerate(messages if isinstance(messages, list) else ()):
        content = message.get("content") if isinstance(message, Mapping) else None
        for b, block in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "tool_use":
                yield ToolEntry("call", str(block.get("id")), f"$.messages[{m}].content[{b}].id")
            elif block.get("type") == "tool_result":
                yield ToolEntry("result", str(block.get("tool_use_id")), f"$.messages[{m}].content[{b}].tool_use_id",
                                output_text(block.get("content")), block.get("is_error") is True)


def entries(body: Body) -> list[Entry]:
    out: list[Entry] = []
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, str):
            if content:
                out.append((message["role"], content))
            continue
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                out.append((message["role"], block["text"]))
            elif kind == "tool_use":
                out.append(("call", block.get("id"), block.get("name"), block.get("input")))
            elif kind == "tool_result":
                out.append(("output", block.get("tool_use_id"), block.get("content")))
    return out


def assistant_turn(body: Body, call_id: str) -> tuple[int, str] | None:
    """(index, the text of its text blocks before that tool_use) of the assistant message holding the tool_use
    block `call_id`."""
    for index, message in enumerate(body.get("messages") or ()):
        content = message.get("content") if isinstance(message, Mapping) else None
        if not isinstance(content, list):
            continue
        ids = [b.get("id") if isinstance(b, Mapping) and b.get("type") == "tool_use" else None for b in content]
        if call_id in ids:
            before = content[:ids.index(call_id)]
            return index, "".join(str(b.get("text", "")) for b in before
                                  if isinstance(b, Mapping) and b.get("type") == "text")
    return None


def tool_choice_ok(choice: JSONData, body: Body) -> tuple[bool, Any]:
    actual = body.get("tool_choice")
    named = choice.get("name") if isinstance(choice, Mapping) else None
    kind = actual.get("type") if isinstance(actual, Mapping) else None
    if named is not None:
        return kind == "tool" and isinstance(actual, Mapping) and actual.get("name") == named, \
            {"type": "tool", "name": named}
    wanted = {"auto": "auto", "required": "any", "none": "none"}.get(str(choice))
    if wanted is None:  # a form the scenario schema does not produce: nothing to compare it with
        return True, choice
    if choice == "none" and "tools" not in body:
        return True, {"type": "none"}  # leaving the tools out is one way to say tool_choice none
    if choice == "auto" and actual is None:
        return True, {"type": "auto"}
    return kind == wanted, {"type": wanted}


def usage(input_tokens: int, output_tokens: int, cached: int) -> dict[str, int]:
    return {"input_tokens": max(0, input_tokens - cached), "cache_read_input_tokens": cached,
            "output_tokens": output_tokens}


def read_usage(payload: Body, found: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str] | None:
    if payload.get("type") not in ("message_start", "message_delta"):
        return None
    holder = payload.get("message") if payload["type"] == "message_start" else payload
    held = (holder or {}).get("usage") if isinstance(holder, Mapping) else None
    if not isinstance(held, Mapping):
        return None
    # message_delta's fields replace message_start's
    return ({**(found or {}), **{k: v for k, v in flat(held).items() if v is not None}},
            "$.message.usage of message_start and $.usage of message_delta")


def structured_format(body: Body) -> tuple[Mapping[str, Any] | None, str]:
    outer = body.get("output_config")
    fmt = outer.get("format") if isinstance(outer, Mapping) else None
    return (fmt if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" else None), "$.output_config.format"


_TYPES = frozenset((
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop", "ping", "message",
))


def speaks(payload: Mapping[str, Any]) -> bool:
    """An event type of Anthropic's stream, or `type: message` (a body)."""
    return payload.get("type") in _TYPES


ANTHROPIC = DialectSpec(
    name="anthropic", display="Anthropic Messages", short="Anthropic", front_path="/v1/messages",
    route_suffix="/messages", key_prefix="sk-ant-callproof-", schema_set="anthropic", messages_key="messages",
    schema_field="input_schema", system_path="$.system", event_type_key="type", default_tool_type="custom",
    usage_where="message_start / message_delta usage", refusal_where="stop_reason refusal",
    content_filter_ending="refusal", tool_result_shape="a tool_result block with its tool_use_id",
    strict_target="anthropic", parallel_off=("tool_choice.disable_parallel_tool_use", True),
    system_texts=system_texts, tools=tools, function_tools=function_tools, tool_entries=tool_entries,
    entries=entries, tool_choice_ok=tool_choice_ok, usage=usage, read_usage=read_usage,
    structured_format=structured_format, speaks=speaks, assistant_turn=assistant_turn, error_envelope_type="error",
    error_shape='{"type": "error", "error": {"type": ..., "message": ...}}',
    no_tools_means_none=True, failed_end="an error event, with no normal stop_reason",
    incomplete_at=("$.delta.stop_reason", "$.stop_reason"),
    incomplete_reasons={"max_output_tokens": "max_tokens", "content_filter": "refusal"},
    refusal_at=("$.delta.stop_details", "$.stop_details"),
    refusal_forms=('stop_reason "refusal" with stop_details of type refusal',) * 2,
    filter_form='stop_reason "refusal" without stop_details, the text as text blocks',
    bad_arguments_rule="ANT-TOOL-002", format_field="output_config.format", max_tokens_fields=("max_tokens",),
    tool_result_form="a tool_result content block", tool_result_errors=True,
    ratelimit_headers=(("anthropic-ratelimit-requests-limit", "60"), ("anthropic-ratelimit-requests-remaining", "0")),
    builtin_tools={
        # anthropic.types WebSearchTool20250305Param ... CodeExecutionTool20260521Param
        "web_search": frozenset({"web_search_20250305", "web_search_20260209", "web_search_20260318"}),
        "code_execution": frozenset({"code_execution_20250522", "code_execution_20250825", "code_execution_20260120",
                                     "code_execution_20260521"}),
    },
    reasoning=("thinking block", "thinking", "signature"), refusal_at_end=True, format_named=False,
    always_strict=True, assistant_turn_shape="one assistant message with a text block, then the tool_use blocks",
)
