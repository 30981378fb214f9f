"""Reading a captured stream or body back into a scenario's structured parts: output items with their fragments
exactly as chunked, the order of fragments across items, the ending, the error and the usage. One reader per
dialect, the inverse of the mock's renderers (mock_server/dialects/); `_import` assembles the scenario."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.check import SSEEvent

__all__ = ["Structured", "Unstructured", "structure_body", "structure_events"]


class Unstructured(ValueError):
    """The capture does not read as a stream of its dialect; the message says where."""


@dataclass
class _Item:
    type: str
    fragments: list[str] = field(default_factory=list)
    name: str = ""
    name_fragments: list[str] = field(default_factory=list)
    call_id: str | None = None
    done: str | None = None  # arguments as the done event or the body gives them
    id_on: str = "first"
    name_on_later: str = "omit"
    arguments_before_name: bool = False
    done_step: bool = False

    def to_json(self, chunked: bool) -> dict[str, Any]:
        joined = "".join(self.fragments)
        if self.type in ("text", "reasoning"):
            out: dict[str, Any] = {"type": self.type, "text": joined if self.fragments else (self.done or "")}
            if chunked and self.fragments:
                out["chunk"] = {"fragments": list(self.fragments)}
            return out
        in_done_only = chunked and not self.fragments and bool(self.done)
        arguments = (self.done or "") if in_done_only or not chunked else joined
        out = {"type": "function_call", "name": self.name or "unnamed", "call_id": self.call_id,
               "arguments": arguments}
        if chunked:
            out["chunk"] = {"whole": True} if in_done_only else {"fragments": list(self.fragments)}
        if chunked and len(self.name_fragments) > 1:
            out["name_chunk"] = {"fragments": list(self.name_fragments)}
        if self.id_on != "first":
            out["id_on"] = self.id_on
        if self.name_on_later != "omit":
            out["name_on_later"] = self.name_on_later
        if self.arguments_before_name:
            out["arguments_before_name"] = True
        if in_done_only:
            out["arguments_in_done_only"] = True
        return out


@dataclass
class Structured:
    """The structured parts of a scenario read from a capture; `content` lists the index of every content event
    (a text, reasoning or argument delta) among the capture's events, for measured delays."""

    items: list[_Item] = field(default_factory=list)
    steps: list[tuple[int, int]] = field(default_factory=list)
    ending: str = "completed"
    error: dict[str, str] | None = None
    usage: dict[str, int] = field(default_factory=dict)
    content: list[int] = field(default_factory=list)
    chunked: bool = True

    def add(self, item: _Item) -> int:
        self.items.append(item)
        return len(self.items) - 1

    def fragment(self, index: int, piece: str, event: int) -> None:
        item = self.items[index]
        item.fragments.append(piece)
        self.steps.append((index, len(item.fragments) - 1))
        self.content.append(event)

    def scenario_parts(self) -> dict[str, Any]:
        """`output`, `order`, `ending`, `error`, `usage` as a scenario file writes them."""
        out: dict[str, Any] = {"output": [item.to_json(self.chunked) for item in self.items]}
        steps = list(self.steps)
        if self.chunked:
            for i, item in enumerate(self.items):  # a call whose arguments came only in its done event: one step
                if item.type == "function_call" and not item.fragments and item.done:
                    steps.append((i, 0))
            sequential = [(i, j) for i, j in sorted(steps)]
            if steps != sequential:
                out["order"] = [list(step) for step in steps]
        if self.ending != "completed":
            out["ending"] = self.ending
        if self.error:
            out["error"] = self.error
        if self.usage:
            out["usage"] = {"input_tokens": 0, "output_tokens": 0, **self.usage}
        return out


def _payload(event: SSEEvent, position: int) -> dict[str, Any]:
    try:
        payload = json.loads(event.data)
    except ValueError:
        raise Unstructured(f"event {position} ({event.type}) carries no JSON: {event.data[:60]!r}") from None
    if not isinstance(payload, dict):
        raise Unstructured(f"event {position} carries JSON that is not an object")
    return payload


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _error(raw: Any, fallback_code: str) -> dict[str, str]:
    raw = raw if isinstance(raw, Mapping) else {}
    code = raw.get("code") or raw.get("type") or fallback_code
    out = {"code": str(code), "message": str(raw.get("message") or "")}
    if isinstance(raw.get("type"), str):
        out["type"] = raw["type"]
    return out


# -- Responses --

_RSP_ITEM = {"message": "text", "function_call": "function_call", "reasoning": "reasoning"}
_RSP_DELTA = ("response.output_text.delta", "response.function_call_arguments.delta",
              "response.reasoning_summary_text.delta", "response.reasoning_text.delta", "response.refusal.delta")


def _responses_usage(usage: Any) -> dict[str, int]:
    if not isinstance(usage, Mapping):
        return {}
    out = {"input_tokens": _int(usage.get("input_tokens")), "output_tokens": _int(usage.get("output_tokens"))}
    details = usage.get("output_tokens_details")
    if isinstance(details, Mapping) and _int(details.get("reasoning_tokens")):
        out["reasoning_tokens"] = _int(details.get("reasoning_tokens"))
    cached = usage.get("input_tokens_details")
    if isinstance(cached, Mapping) and _int(cached.get("cached_tokens")):
        out["cached_tokens"] = _int(cached.get("cached_tokens"))
    return out


def _responses_item(raw: Mapping[str, Any], where: str) -> _Item:
    kind = _RSP_ITEM.get(str(raw.get("type")))
    if kind is None:
        raise Unstructured(f"{where}: output item type {raw.get('type')!r} has no scenario form")
    item = _Item(kind)
    if kind == "function_call":
        item.name = str(raw.get("name") or "")
        item.name_fragments = [item.name]
        item.call_id = raw.get("call_id") if isinstance(raw.get("call_id"), str) else None
    return item


def _responses_end(out: Structured, response: Any, status: str) -> None:
    response = response if isinstance(response, Mapping) else {}
    out.usage = _responses_usage(response.get("usage"))
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        out.ending = "content_filter" if reason == "content_filter" else "length"
    elif status == "failed":
        out.ending = "failed"
        out.error = _error(response.get("error"), "server_error")


def _responses_events(events: Sequence[SSEEvent]) -> Structured:
    out = Structured()
    by_index: dict[int, int] = {}
    for n, event in enumerate(events):
        if event.data == "[DONE]":
            continue
        payload = _payload(event, n)
        kind = payload.get("type")
        where = f"event {n} ({kind})"
        if kind == "response.output_item.added":
            item = payload.get("item")
            if not isinstance(item, Mapping):
                raise Unstructured(f"{where}: no item")
            by_index[_int(payload.get("output_index"))] = out.add(_responses_item(item, where))
        elif kind in _RSP_DELTA or kind in ("response.function_call_arguments.done", "response.output_item.done"):
            index = by_index.get(_int(payload.get("output_index")))
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
            out.error = _error(payload.get("error", payload), "server_error")
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


def _chat_usage(usage: Any) -> dict[str, int]:
    if not isinstance(usage, Mapping):
        return {}
    out = {"input_tokens": _int(usage.get("prompt_tokens")), "output_tokens": _int(usage.get("completion_tokens"))}
    details = usage.get("completion_tokens_details")
    if isinstance(details, Mapping) and _int(details.get("reasoning_tokens")):
        out["reasoning_tokens"] = _int(details.get("reasoning_tokens"))
    cached = usage.get("prompt_tokens_details")
    if isinstance(cached, Mapping) and _int(cached.get("cached_tokens")):
        out["cached_tokens"] = _int(cached.get("cached_tokens"))
    return out


def _chat_call(out: Structured, calls: dict[int, int], delta: Mapping[str, Any], n: int) -> None:
    index = delta.get("index")
    if not isinstance(index, int):
        raise Unstructured(f"event {n}: a tool_calls delta without an index")
    function: Mapping[str, Any] = delta["function"] if isinstance(delta.get("function"), Mapping) else {}
    name, arguments = function.get("name"), function.get("arguments")
    if index not in calls:
        item = _Item("function_call", call_id=delta.get("id") if isinstance(delta.get("id"), str) else None)
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
        payload = _payload(event, n)
        if "error" in payload:
            out.ending, out.error = "failed", _error(payload["error"], "server_error")
            continue
        out.usage = _chat_usage(payload.get("usage")) or out.usage
        for choice in payload.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, Mapping) else None
            if not isinstance(delta, Mapping):
                raise Unstructured(f"event {n}: a choice without a delta")
            content = delta.get("content")
            if isinstance(content, str) and content:
                if text is None or any(i > text for i in calls.values()):
                    text = out.add(_Item("text"))
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
        out.add(_Item("text", done=message["content"]))
    for i, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("arguments"), str):
            raise Unstructured(f"$.choices[0].message.tool_calls[{i}].function.arguments is not a string")
        out.add(_Item("function_call", name=str(function.get("name") or ""), done=function["arguments"],
                      call_id=call.get("id") if isinstance(call.get("id"), str) else None))
    out.ending = _CHAT_FINISH.get(str(choices[0].get("finish_reason")), "completed")
    out.usage = _chat_usage(body.get("usage"))
    return out


# -- Anthropic Messages --

_ANT_STOP = {"max_tokens": "length", "refusal": "content_filter"}
_ANT_BLOCK = {"text": "text", "thinking": "reasoning", "tool_use": "function_call"}
_ANT_DELTA = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}


def _anthropic_usage(usage: Any, into: dict[str, int]) -> None:
    if not isinstance(usage, Mapping):
        return
    if "input_tokens" in usage:
        cached = _int(usage.get("cache_read_input_tokens"))
        into["input_tokens"] = _int(usage.get("input_tokens")) + cached
        if cached:
            into["cached_tokens"] = cached
    if "output_tokens" in usage:
        into["output_tokens"] = _int(usage.get("output_tokens"))


def _anthropic_block(raw: Mapping[str, Any], where: str) -> _Item:
    kind = _ANT_BLOCK.get(str(raw.get("type")))
    if kind is None:
        raise Unstructured(f"{where}: content block type {raw.get('type')!r} has no scenario form")
    item = _Item(kind)
    if kind == "function_call":
        item.name = str(raw.get("name") or "")
        item.name_fragments = [item.name]
        item.call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
    return item


def _anthropic_events(events: Sequence[SSEEvent]) -> Structured:
    out = Structured()
    blocks: dict[int, int] = {}
    for n, event in enumerate(events):
        payload = _payload(event, n)
        kind = payload.get("type")
        if kind == "message_start":
            message = payload.get("message")
            _anthropic_usage(message.get("usage") if isinstance(message, Mapping) else None, out.usage)
        elif kind == "content_block_start":
            block = payload.get("content_block")
            if not isinstance(block, Mapping):
                raise Unstructured(f"event {n}: content_block_start without a block")
            blocks[_int(payload.get("index"))] = out.add(_anthropic_block(block, f"event {n}"))
        elif kind == "content_block_delta":
            index = blocks.get(_int(payload.get("index")))
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
            out.ending, out.error = "failed", _error(payload.get("error"), "api_error")
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


def structure_events(events: Sequence[SSEEvent], dialect: Dialect) -> Structured:
    """The structured parts of a stream; Unstructured when it does not read as one of `dialect`."""
    reader = {"responses": _responses_events, "chat": _chat_events, "anthropic": _anthropic_events}[dialect]
    return reader(events)


def structure_body(body: Mapping[str, Any], dialect: Dialect) -> Structured:
    """The structured parts of a non-stream body; Unstructured when it does not read as one of `dialect`."""
    reader = {"responses": _responses_body, "chat": _chat_body, "anthropic": _anthropic_body}[dialect]
    return reader(body)
