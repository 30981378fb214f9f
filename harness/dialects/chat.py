"""OpenAI Chat Completions (`POST /v1/chat/completions`): its row of the dialect table."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from callproof.harness._json_types import JSONData

from ._json import arguments, flat, output_text, text_of
from ._spec import Body, DialectSpec, Entry, ToolEntry, ToolRead

__all__ = ["CHAT"]


def system_texts(body: Body) -> list[str]:
    """The system and developer messages."""
    messages = body.get("messages")
    return [text_of(m.get("content")) for m in messages if isinstance(m, Mapping)
            and m.get("role") in ("system", "developer")] if isinstance(messages, list) else []


def tools(body: Body) -> list[ToolRead]:
    """Each tool's nested `function` / `custom` object lifted."""
    found: list[ToolRead] = []
    for index, tool in enumerate(body.get("tools") or ()):
        if not isinstance(tool, Mapping):
            continue
        kind = str(tool.get("type", "function"))
        inner = tool.get(kind)
        if isinstance(inner, Mapping):
            found.append(ToolRead(index, kind, inner, f"$.tools[{index}].{kind}"))
    return found


def function_tools(body: Body) -> dict[str, tuple[Any, Any, str, Any]]:
    found: dict[str, tuple[Any, Any, str, Any]] = {}
    for index, tool in enumerate(body.get("tools") or ()):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            found[fn["name"]] = (fn.get("description"), fn.get("parameters"), f"$.tools[{index}].function",
                                 fn.get("strict"))
    return found


def tool_entries(body: Body) -> Iterator[ToolEntry]:
    messages = body.get("messages")
    for m, message in enumerate(messages if isinstance(messages, list) else ()):
        if not isinstance(message, Mapping):
            continue
        for c, call in enumerate(message.get("tool_calls") or ()):
            if isinstance(call, Mapping):
                yield ToolEntry("call", str(call.get("id")), f"$.messages[{m}].tool_calls[{c}].id")
        if message.get("role") == "tool":
            yield ToolEntry("result", str(message.get("tool_call_id")), f"$.messages[{m}].tool_call_id",
                            output_text(message.get("content")))


def entries(body: Body) -> list[Entry]:
    out: list[Entry] = []
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role in ("user", "assistant"):
            text = text_of(message.get("content"))
            if text:
                out.append((role, text))
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(fn, Mapping):
                    out.append(("call", call.get("id"), fn.get("name"), arguments(fn.get("arguments"))))
        elif role == "tool":
            out.append(("output", message.get("tool_call_id"), message.get("content")))
    return out


def assistant_turn(body: Body, call_id: str) -> tuple[int, str] | None:
    """(index, text) of the assistant message whose tool_calls hold `call_id`."""
    for index, message in enumerate(body.get("messages") or ()):
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        if isinstance(calls, list) and any(isinstance(c, Mapping) and c.get("id") == call_id for c in calls):
            return index, text_of(message.get("content"))
    return None


def tool_choice_ok(choice: JSONData, body: Body) -> tuple[bool, Any]:
    actual = body.get("tool_choice")
    named = choice.get("name") if isinstance(choice, Mapping) else None
    if named is not None:
        fn = actual.get("function") if isinstance(actual, Mapping) else None
        return (isinstance(actual, Mapping) and actual.get("type") == "function" and isinstance(fn, Mapping)
                and fn.get("name") == named), {"type": "function", "function": {"name": named}}
    if choice == "auto" and actual is None:
        return True, choice  # auto is the default when tools are given
    return actual == choice, choice


def custom_format(fmt: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Responses custom tool format in Chat's shape (a grammar's syntax and definition under `grammar`)."""
    if fmt.get("type") != "grammar":
        return fmt
    return {"type": "grammar", "grammar": {k: v for k, v in fmt.items() if k != "type"}}


def usage(input_tokens: int, output_tokens: int, cached: int) -> dict[str, int]:
    return {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens, "prompt_tokens_details.cached_tokens": cached}


def read_usage(payload: Body, found: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str] | None:
    if not isinstance(payload.get("usage"), Mapping):
        return None
    return flat(payload["usage"]), "$.usage of the chunk that carries it"


def structured_format(body: Body) -> tuple[Mapping[str, Any] | None, str]:
    """`response_format.json_schema`, its `type` beside."""
    wrapper = body.get("response_format")
    inner = wrapper.get("json_schema") if isinstance(wrapper, Mapping) else None
    if not isinstance(wrapper, Mapping) or wrapper.get("type") != "json_schema" or not isinstance(inner, Mapping):
        return None, "$.response_format"
    return {**inner, "type": "json_schema"}, "$.response_format.json_schema"


def speaks(payload: Mapping[str, Any]) -> bool:
    """`object: chat.completion.chunk` (an event) or `chat.completion` (a body)."""
    kind = payload.get("object")
    return isinstance(kind, str) and kind.startswith("chat.completion")


CHAT = DialectSpec(
    name="chat", display="Chat Completions", short="Chat", front_path="/v1/chat/completions",
    route_suffix="/chat/completions", key_prefix="sk-callproof-", schema_set="chat", messages_key="messages",
    schema_field="parameters", system_path="$.messages[?(@.role=='system')]", event_type_key="object",
    default_tool_type="function",
    usage_where="a chunk's usage", refusal_where="delta.refusal", content_filter_ending="content_filter",
    tool_result_shape="a role: tool message with its tool_call_id", strict_target="openai",
    parallel_off=("parallel_tool_calls", False), system_texts=system_texts, tools=tools,
    function_tools=function_tools, tool_entries=tool_entries, entries=entries, tool_choice_ok=tool_choice_ok,
    usage=usage, read_usage=read_usage, structured_format=structured_format, speaks=speaks,
    assistant_turn=assistant_turn,
    custom_format=custom_format, typed_events=False, nested_tools=True, stream_options={"include_usage": True},
    done_sentinel=True, failed_end="an error chunk, with no finish_reason",
    incomplete_at=("$.choices[0].finish_reason", "$.choices[0].finish_reason"),
    incomplete_reasons={"max_output_tokens": "length", "content_filter": "content_filter"},
    refusal_at=("$.choices[0].delta.refusal", "$.choices[0].message.refusal"),
    refusal_forms=("delta.refusal", "message.refusal"),
    filter_form='finish_reason "content_filter", the text as content',
    bad_arguments_rule="CHAT-TC-006", format_field="response_format",
    max_tokens_fields=("max_completion_tokens", "max_tokens"), tool_result_form="a message with role tool",
    custom_tools=True, stores_by_default=False,
    assistant_turn_shape="one assistant message with content and tool_calls",
)
