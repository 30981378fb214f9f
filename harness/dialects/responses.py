"""The OpenAI Responses API (`POST /v1/responses`): its row of the dialect table."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from callproof.harness._json_types import JSONData

from ._json import arguments, flat, output_text, text_of
from ._spec import Body, DialectSpec, Entry, ToolEntry, ToolRead

__all__ = ["RESPONSES"]

_TERMINAL = ("response.completed", "response.incomplete")


def system_texts(body: Body) -> list[str]:
    """`instructions`, then the system and developer input messages."""
    messages = body.get("input")
    texts = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    return texts + [text_of(m.get("content")) for m in messages if isinstance(m, Mapping)
                    and m.get("role") in ("system", "developer")] if isinstance(messages, list) else texts


def tools(body: Body) -> list[ToolRead]:
    return [ToolRead(index, str(tool.get("type", "function")), tool, f"$.tools[{index}]")
            for index, tool in enumerate(body.get("tools") or ()) if isinstance(tool, Mapping)]


def function_tools(body: Body) -> dict[str, tuple[Any, Any, str, Any]]:
    return {tool["name"]: (tool.get("description"), tool.get("parameters"), f"$.tools[{index}]", tool.get("strict"))
            for index, tool in enumerate(body.get("tools") or ())
            if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)}


def tool_entries(body: Body) -> Iterator[ToolEntry]:
    items = body.get("input")
    for i, item in enumerate(items if isinstance(items, list) else ()):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call":
            yield ToolEntry("call", str(item.get("call_id")), f"$.input[{i}].call_id")
        elif item.get("type") == "function_call_output":
            yield ToolEntry("result", str(item.get("call_id")), f"$.input[{i}].call_id",
                            output_text(item.get("output")))


def item_entries(items: JSONData) -> list[Entry]:
    """The conversational entries of Responses items (a request's `input`, a response's `output`), in order."""
    out: list[Entry] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message" and item.get("role") in ("user", "assistant"):
            text = text_of(item.get("content"))
            if text:
                out.append((item["role"], text))
        elif kind == "function_call":
            out.append(("call", item.get("call_id"), item.get("name"), arguments(item.get("arguments"))))
        elif kind == "function_call_output":
            out.append(("output", item.get("call_id"), item.get("output")))
        elif kind == "reasoning" and item.get("encrypted_content") is not None:
            out.append(("reasoning", item.get("encrypted_content")))
    return out


def entries(body: Body) -> list[Entry]:
    items = body.get("input")
    if isinstance(items, str):
        return [("user", items)] if items else []
    return item_entries(items if isinstance(items, list) else [])


def tool_choice_ok(choice: JSONData, body: Body) -> tuple[bool, Any]:
    actual = body.get("tool_choice")
    named = choice.get("name") if isinstance(choice, Mapping) else None
    if named is not None:
        return isinstance(actual, Mapping) and actual.get("name") == named, {"type": "function", "name": named}
    if choice == "auto" and actual is None:
        return True, choice  # auto is the default when tools are given
    return actual == choice, choice


def usage(input_tokens: int, output_tokens: int, cached: int) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, "total_tokens": input_tokens + output_tokens,
            "input_tokens_details.cached_tokens": cached}


def read_usage(payload: Body, found: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str] | None:
    if payload.get("type") not in _TERMINAL:
        return None
    held = (payload.get("response") or {}).get("usage")
    return (flat(held) if isinstance(held, Mapping) else None), f"$.response.usage of {payload['type']}"


def structured_format(body: Body) -> tuple[Mapping[str, Any] | None, str]:
    outer = body.get("text")
    fmt = outer.get("format") if isinstance(outer, Mapping) else None
    return (fmt if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" else None), "$.text.format"


def speaks(payload: Mapping[str, Any]) -> bool:
    """`object: response` (a body) or a `response.*` type (an event)."""
    kind = payload.get("type")
    return payload.get("object") == "response" or (isinstance(kind, str) and kind.startswith("response."))


RESPONSES = DialectSpec(
    name="responses", display="Responses", short="Responses", front_path="/v1/responses", route_suffix="/responses",
    key_prefix="sk-callproof-", schema_set="responses", messages_key="input", schema_field="parameters",
    system_path="$.instructions",
    event_type_key="type", default_tool_type="function", usage_where="the terminal event's response.usage",
    refusal_where="refusal content part", content_filter_ending="incomplete/content_filter",
    tool_result_shape="a function_call_output item with its call_id", strict_target="openai",
    parallel_off=("parallel_tool_calls", False), system_texts=system_texts, tools=tools,
    function_tools=function_tools, tool_entries=tool_entries, entries=entries, tool_choice_ok=tool_choice_ok,
    usage=usage, read_usage=read_usage, structured_format=structured_format, speaks=speaks, bare_string_input=True,
    custom_tools=True, custom_tools_carried=True, carries_custom_calls=True,
    builtin_tools={
        # openai.types.responses WebSearchToolParam, WebSearchPreviewToolParam, tool_param.CodeInterpreter
        "web_search": frozenset({"web_search", "web_search_2025_08_26", "web_search_preview",
                                 "web_search_preview_2025_03_11"}),
        "code_execution": frozenset({"code_interpreter"}),
    },
    reasoning=("reasoning item", "summary", "encrypted_content"), sealed_reasoning=True, opaque_items=True,
    terminal_restates_output=True, failed_end="response.failed or an error event",
    incomplete_at=("$.response.incomplete_details.reason", "$.incomplete_details.reason"),
    incomplete_reasons={"max_output_tokens": "max_output_tokens", "content_filter": "content_filter"},
    refusal_at=("$.response.output[?(@.type=='message')].content[?(@.type=='refusal')]",
                "$.output[?(@.type=='message')].content[?(@.type=='refusal')]"),
    refusal_forms=("a refusal content part", "a refusal content part"),
    filter_form='status "incomplete", incomplete_details.reason "content_filter", the text as output_text',
    bad_arguments_rule="RSP-ARGS-004", format_field="text.format", max_tokens_fields=("max_output_tokens",),
    tool_result_form="a function_call_output input item", call_item_ids=True, stores_by_default=True,
    previous_response_id=True,
)
