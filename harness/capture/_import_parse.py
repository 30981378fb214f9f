"""Reading a captured stream or body back into a scenario's structured parts: output items with their fragments
exactly as chunked, the order of fragments across items, the ending, the error and the usage. One reader per
dialect, the inverse of the mock's renderers (mock_server/dialects/); `_import` assembles the scenario."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness._types import Dialect, JSONData, JSONValue
from callproof.harness.check import SSEEvent

from ._import_model import Item, Structured, Unstructured, error_of, non_negative, payload_of

__all__ = ["STRUCTURE_READERS", "Structured", "Unstructured", "structure_body", "structure_events"]


# -- Responses --

_RSP_ITEM = {"message": "text", "function_call": "function_call", "reasoning": "reasoning"}
_RSP_DELTA = ("response.output_text.delta", "response.function_call_arguments.delta",
              "response.reasoning_summary_text.delta", "response.reasoning_text.delta", "response.refusal.delta")


def _responses_usage(usage: JSONValue) -> dict[str, int]:
    if not isinstance(usage, Mapping):
        return {}
    out = {"input_tokens": non_negative(usage.get("input_tokens")),
           "output_tokens": non_negative(usage.get("output_tokens"))}
    details = usage.get("output_tokens_details")
    if isinstance(details, Mapping) and non_negative(details.get("reasoning_tokens")):
        out["reasoning_tokens"] = non_negative(details.get("reasoning_tokens"))
    cached = usage.get("input_tokens_details")
    if isinstance(cached, Mapping) and non_negative(cached.get("cached_tokens")):
        out["cached_tokens"] = non_negative(cached.get("cached_tokens"))
    return out


def _responses_item(raw: Mapping[str, Any], where: str) -> Item:
    kind = _RSP_ITEM.get(str(raw.get("type")))
    if kind is None:
        raise Unstructured(f"{where}: output item type {raw.get('type')!r} has no scenario form")
    item = Item(kind)
    if kind == "function_call":
        item.name = str(raw.get("name") or "")
        item.name_fragments = [item.name]
        item.call_id = raw.get("call_id") if isinstance(raw.get("call_id"), str) else None
    return item


def _responses_end(out: Structured, response: JSONData, status: str) -> None:
    response = response if isinstance(response, Mapping) else {}
    out.usage = _responses_usage(response.get("usage"))
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        out.ending = "content_filter" if reason == "content_filter" else "length"
    elif status == "failed":
        out.ending = "failed"
        out.error = error_of(response.get("error"), "server_error")


def _responses_events(events: Sequence[SSEEvent]) -> Structured:
    out = Structured()
    by_index: dict[int, int] = {}
    for n, event in enumerate(events):
        if event.data == "[DONE]":
            continue
        payload = payload_of(event, n)
        kind = payload.get("type")
        where = f"event {n} ({kind})"
        if kind == "response.output_item.added":
            item = payload.get("item")
            if not isinstance(item, Mapping):
                raise Unstructured(f"{where}: no item")
            by_index[non_negative(payload.get("output_index"))] = out.add(_responses_item(item, where))
        elif kind in _RSP_DELTA or kind in ("response.function_call_arguments.done", "response.output_item.done"):
            index = by_index.get(non_negative(payload.get("output_index")))
            if index is None:
                raise Unstructured(f"{where}: output_index {payload.get('output_index')!r} was never added")
            if kind in _RSP_DELTA:
                out.fragment(index, str(payload.get("delta", "")), n)
            elif kind == "response.function_call_arguments.done":
                out.items[index].done = str(payload.get("arguments", ""))
            elif isinstance(payload.get("item"), Mapping) and payload["item"].get("type") == "function_call":
                done = payload["item"]
                if out.items[index].done is None:
                    out.items[index].done = str(done.get("arguments", ""))
                if out.items[index].call_id is None and isinstance(done.get("call_id"), str):
                    out.items[index].call_id = done["call_id"]
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            _responses_end(out, payload.get("response"), kind.rsplit(".", 1)[1])
        elif kind == "error":
            out.ending = "failed"
            out.error = error_of(payload.get("error", payload), "server_error")
    return out


def _responses_body(body: Mapping[str, Any]) -> Structured:
    out = Structured(chunked=False)
    for i, raw in enumerate(body.get("output") or ()):
        if not isinstance(raw, Mapping):
            raise Unstructured(f"$.output[{i}] is not an object")
        item = _responses_item(raw, f"$.output[{i}]")
        if item.type == "text":
            item.done = "".join(str(p.get("text", "")) for p in raw.get("content") or () if isinstance(p, Mapping))
        elif item.type == "reasoning":
            item.done = "".join(str(p.get("text", "")) for p in raw.get("summary") or () if isinstance(p, Mapping))
        else:
            arguments = raw.get("arguments")
            if not isinstance(arguments, str):
                raise Unstructured(f"$.output[{i}].arguments is not a string")
            item.done = arguments
        out.add(item)
    _responses_end(out, body, str(body.get("status", "completed")))
    return out


# -- Chat Completions --

_CHAT_FINISH = {"length": "length", "content_filter": "content_filter"}


def _chat_usage(usage: JSONValue) -> dict[str, int]:
    if not isinstance(usage, Mapping):
        return {}
    out = {"input_tokens": non_negative(usage.get("prompt_tokens")),
           "output_tokens": non_negative(usage.get("completion_tokens"))}
    details = usage.get("completion_tokens_details")
    if isinstance(details, Mapping) and non_negative(details.get("reasoning_tokens")):
        out["reasoning_tokens"] = non_negative(details.get("reasoning_tokens"))
    cached = usage.get("prompt_tokens_details")
    if isinstance(cached, Mapping) and non_negative(cached.get("cached_tokens")):
        out["cached_tokens"] = non_negative(cached.get("cached_tokens"))
    return out


def _chat_call(out: Structured, calls: dict[int, int], delta: Mapping[str, Any], n: int) -> None:
    index = delta.get("index")
    if not isinstance(index, int):
        raise Unstructured(f"event {n}: a tool_calls delta without an index")
    function: Mapping[str, Any] = delta["function"] if isinstance(delta.get("function"), Mapping) else {}
    name, arguments = function.get("name"), function.get("arguments")
    if index not in calls:
        item = Item("function_call", call_id=delta.get("id") if isinstance(delta.get("id"), str) else None)
        if isinstance(name, str) and name:
            item.name, item.name_fragments = name, [name]
        else:
            item.arguments_before_name = isinstance(arguments, str) and arguments != ""
        calls[index] = out.add(item)
        if isinstance(arguments, str) and arguments:
            out.fragment(calls[index], arguments, n)
        return
    item = out.items[calls[index]]
    if isinstance(delta.get("id"), str):
        if item.call_id is None:
            item.call_id = delta["id"]
        else:
            item.id_on = "every"
    if isinstance(name, str):
        if name == "" and item.name:
            item.name_on_later = "empty"
        elif name == item.name and item.name:
            item.name_on_later = "repeat"
        else:
            item.name += name
            item.name_fragments.append(name)
    if isinstance(arguments, str) and (arguments or not item.fragments):
        out.fragment(calls[index], arguments, n)


def _chat_events(events: Sequence[SSEEvent]) -> Structured:
    out = Structured()
    calls: dict[int, int] = {}
    text: int | None = None
    for n, event in enumerate(events):
        if event.data.strip() == "[DONE]":
            continue
        payload = payload_of(event, n)
        if "error" in payload:
            out.ending, out.error = "failed", error_of(payload["error"], "server_error")
            continue
        out.usage = _chat_usage(payload.get("usage")) or out.usage
        for choice in payload.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, Mapping) else None
            if not isinstance(delta, Mapping):
                raise Unstructured(f"event {n}: a choice without a delta")
            content = delta.get("content")
            if isinstance(content, str) and content:
                if text is None or any(i > text for i in calls.values()):
                    text = out.add(Item("text"))
                out.fragment(text, content, n)
            for call in delta.get("tool_calls") or ():
                if not isinstance(call, Mapping):
                    raise Unstructured(f"event {n}: a tool call that is not an object")
                _chat_call(out, calls, call, n)
            finish = choice.get("finish_reason")
            if isinstance(finish, str):
                out.ending = _CHAT_FINISH.get(finish, "completed")
    return out


def _chat_body(body: Mapping[str, Any]) -> Structured:
    out = Structured(chunked=False)
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise Unstructured("$.choices holds no choice")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise Unstructured("$.choices[0].message is not an object")
    if isinstance(message.get("content"), str) and message["content"]:
        out.add(Item("text", done=message["content"]))
    for i, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("arguments"), str):
            raise Unstructured(f"$.choices[0].message.tool_calls[{i}].function.arguments is not a string")
        out.add(Item("function_call", name=str(function.get("name") or ""), done=function["arguments"],
                      call_id=call.get("id") if isinstance(call.get("id"), str) else None))
    out.ending = _CHAT_FINISH.get(str(choices[0].get("finish_reason")), "completed")
    out.usage = _chat_usage(body.get("usage"))
    return out


# -- Anthropic Messages --

_ANT_STOP = {"max_tokens": "length", "refusal": "content_filter"}
_ANT_BLOCK = {"text": "text", "thinking": "reasoning", "tool_use": "function_call"}
_ANT_DELTA = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}


def _anthropic_usage(usage: JSONValue, into: dict[str, int]) -> None:
    if not isinstance(usage, Mapping):
        return
    if "input_tokens" in usage:
        cached = non_negative(usage.get("cache_read_input_tokens"))
        into["input_tokens"] = non_negative(usage.get("input_tokens")) + cached
        if cached:
            into["cached_tokens"] = cached
    if "output_tokens" in usage:
        into["output_tokens"] = non_negative(usage.get("output_tokens"))


def _anthropic_block(raw: Mapping[str, Any], where: str) -> Item:
    kind = _ANT_BLOCK.get(str(raw.get("type")))
    if kind is None:
        raise Unstructured(f"{where}: content block type {raw.get('type')!r} has no scenario form")
    item = Item(kind)
    if kind == "function_call":
        item.name = str(raw.get("name") or "")
        item.name_fragments = [item.name]
        item.call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
    return item


def _anthropic_events(events: Sequence[SSEEvent]) -> Structured:
    out = Structured()
    blocks: dict[int, int] = {}
    for n, event in enumerate(events):
        payload = payload_of(event, n)
        kind = payload.get("type")
        if kind == "message_start":
            message = payload.get("message")
            _anthropic_usage(message.get("usage") if isinstance(message, Mapping) else None, out.usage)
        elif kind == "content_block_start":
            block = payload.get("content_block")
            if not isinstance(block, Mapping):
                raise Unstructured(f"event {n}: content_block_start without a block")
            blocks[non_negative(payload.get("index"))] = out.add(_anthropic_block(block, f"event {n}"))
        elif kind == "content_block_delta":
            index = blocks.get(non_negative(payload.get("index")))
            delta: Mapping[str, Any] = payload["delta"] if isinstance(payload.get("delta"), Mapping) else {}
            key = _ANT_DELTA.get(str(delta.get("type")))
            if index is None:
                raise Unstructured(f"event {n}: a delta of block {payload.get('index')!r}, never started")
            if key is not None:
                out.fragment(index, str(delta.get(key, "")), n)
        elif kind == "message_delta":
            stop: Mapping[str, Any] = payload["delta"] if isinstance(payload.get("delta"), Mapping) else {}
            out.ending = _ANT_STOP.get(str(stop.get("stop_reason")), "completed")
            _anthropic_usage(payload.get("usage"), out.usage)
        elif kind == "error":
            out.ending, out.error = "failed", error_of(payload.get("error"), "api_error")
    return out


def _anthropic_body(body: Mapping[str, Any]) -> Structured:
    out = Structured(chunked=False)
    for i, block in enumerate(body.get("content") or ()):
        if not isinstance(block, Mapping):
            raise Unstructured(f"$.content[{i}] is not an object")
        item = _anthropic_block(block, f"$.content[{i}]")
        if item.type == "function_call":
            if not isinstance(block.get("input"), Mapping):
                raise Unstructured(f"$.content[{i}].input is not an object")
            item.done = json.dumps(block["input"], ensure_ascii=False, separators=(",", ":"))
        else:
            item.done = str(block.get("text" if item.type == "text" else "thinking", ""))
        out.add(item)
    out.ending = _ANT_STOP.get(str(body.get("stop_reason")), "completed")
    _anthropic_usage(body.get("usage"), out.usage)
    return out


#: How a capture of each dialect reads into a scenario's parts: (its stream's events, its non-stream body). One row
#: per row of the dialect table (tests/harness/dialects/test_tables.py binds them).
STRUCTURE_READERS: dict[str, tuple[Callable[[Sequence[SSEEvent]], Structured],
                                   Callable[[Mapping[str, Any]], Structured]]] = {
    "responses": (_responses_events, _responses_body),
    "chat": (_chat_events, _chat_body),
    "anthropic": (_anthropic_events, _anthropic_body),
}


def structure_events(events: Sequence[SSEEvent], dialect: Dialect) -> Structured:
    """The structured parts of a stream; Unstructured when it does not read as one of `dialect`."""
    return STRUCTURE_READERS[dialect][0](events)


def structure_body(body: Mapping[str, Any], dialect: Dialect) -> Structured:
    """The structured parts of a non-stream body; Unstructured when it does not read as one of `dialect`."""
    return STRUCTURE_READERS[dialect][1](body)
