"""The OpenAI Responses upstream (`POST /responses`).

A function_call item's call_id and name come on its output_item.added (the call starts there), its
function_call_arguments.delta events are its arguments (or, when there are none, the arguments of its
function_call_arguments.done or output_item.done), and its output_item.done ends it. The terminal event says how
the turn ended: response.completed and response.incomplete finish it (incomplete_details.reason
max_output_tokens is a length cut), response.failed and an `error` event fail it. The non-stream Response plays
as the same events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..model import (
    ArgumentsDelta,
    Call,
    CallDone,
    CallStart,
    Event,
    Finish,
    FinishReason,
    Json,
    Message,
    Reasoning,
    Request,
    Result,
    TextDelta,
    Tool,
    ToolChoice,
    UpstreamCut,
    UpstreamError,
    Usage,
    UsageUpdate,
)
from ..wire import parse_json_event, read_sse, text_of, upstream_error
from .base import Upstream

__all__ = ["INCOMPLETE_REASONS", "ReadState", "ResponsesUpstream"]

#: incomplete_details.reason -> the neutral reason.
INCOMPLETE_REASONS: dict[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "content_filter"}
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


@dataclass(eq=False)
class ReadState:
    """One answer being read; never shared between requests."""

    calls: set[int] = field(default_factory=set)  # output indexes of the function calls
    argued: set[int] = field(default_factory=set)  # ... that streamed arguments
    done: set[int] = field(default_factory=set)  # ... that are done


class ResponsesUpstream(Upstream):
    dialect = "responses"
    path = "/responses"

    # -- request ----------------------------------------------------------------------------------------------

    def translate_request(self, request: Request) -> Json:
        body: Json = {"model": request.model, "input": self.translate_input(request), "stream": request.stream}
        if request.system:
            body["instructions"] = "\n\n".join(request.system)
        if request.tools or request.builtin_tools:  # built-in tools go on unchanged: this dialect defines them
            body["tools"] = [*request.builtin_tools, *(self.translate_tool(tool) for tool in request.tools)]
        if request.tool_choice is not None:
            body["tool_choice"] = self.translate_tool_choice(request.tool_choice)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_tokens is not None:
            body["max_output_tokens"] = request.max_tokens
        if request.store is not None:  # a Responses upstream stores by default: store: false must reach it
            body["store"] = request.store
        if request.include:
            body["include"] = list(request.include)
        return {key: value for key, value in body.items() if value is not None}

    def translate_input(self, request: Request) -> list[Json]:
        items: list[Json] = []
        for part in request.history:
            if isinstance(part, Message):
                items.append({"type": "message", "role": part.role, "content": part.text})
            elif isinstance(part, Call):
                items.append({"type": "function_call", "call_id": part.id, "name": part.name,
                              "arguments": part.arguments or "{}"})
            elif isinstance(part, Result):
                items.append({"type": "function_call_output", "call_id": part.call_id, "output": part.output})
            elif isinstance(part, Reasoning):  # byte for byte: the ciphertext is the issuer's (stateful.md §3)
                items.append(dict(part.item))
        return items

    def translate_tool(self, tool: Tool) -> Json:
        translated: Json = {"type": "function", "name": tool.name}
        if tool.description is not None:
            translated["description"] = tool.description
        translated["parameters"] = tool.parameters
        if tool.strict is not None:
            translated["strict"] = tool.strict
        return translated

    def translate_tool_choice(self, choice: ToolChoice) -> Any:
        return {"type": "function", "name": choice.name} if choice.name is not None else choice.mode

    # -- answer -----------------------------------------------------------------------------------------------

    async def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        """Returns at the terminal event; raises UpstreamCut without one."""
        state = ReadState()
        async for data in read_sse(response):
            event = parse_json_event(data)
            if event is None:
                continue
            for neutral in self.on_event(state, event):
                yield neutral
            if event.get("type") in TERMINAL:
                return
        raise UpstreamCut("the upstream stream ended without a terminal response event")

    def on_event(self, state: ReadState, event: Json) -> list[Event]:
        kind = event.get("type")
        index = event.get("output_index")
        if kind == "error":
            raise upstream_error(event.get("error") or event, "code")
        if kind == "response.output_text.delta" and event.get("delta"):
            return [TextDelta(event["delta"])]
        if kind == "response.output_item.added" and isinstance(index, int):
            item = event.get("item") or {}
            if item.get("type") == "function_call":
                state.calls.add(index)
                return [CallStart(index, item.get("call_id") or None, str(item.get("name") or ""))]
        elif kind == "response.function_call_arguments.delta" and index in state.calls and event.get("delta"):
            state.argued.add(index)
            return [ArgumentsDelta(index, event["delta"])]
        elif kind == "response.function_call_arguments.done" and isinstance(index, int):
            return self.whole_arguments(state, index, event.get("arguments"))
        elif kind == "response.output_item.done" and isinstance(index, int) and index in state.calls:
            events = self.whole_arguments(state, index, (event.get("item") or {}).get("arguments"))
            state.done.add(index)
            return [*events, CallDone(index)]
        elif kind in TERMINAL:
            return self.on_response(event.get("response") or {})
        return []  # created, in_progress, parts, reasoning and unknown events: nothing to translate

    def whole_arguments(self, state: ReadState, index: int, arguments: Any) -> list[Event]:
        """A call's arguments given whole, when no delta carried them."""
        if index not in state.calls or index in state.argued or index in state.done or not arguments:
            return []
        state.argued.add(index)
        return [ArgumentsDelta(index, str(arguments))]

    def on_response(self, response: Json) -> list[Event]:
        """The terminal Response: its usage, then how it ended."""
        status = response.get("status")
        if status == "failed" or status not in ("completed", "incomplete"):
            raise upstream_error(response.get("error") or {"message": f"the upstream response is {status}"}, "code")
        events: list[Event] = []
        if isinstance(response.get("usage"), dict):
            events.append(UsageUpdate(self.translate_usage(response["usage"])))
        reason = (response.get("incomplete_details") or {}).get("reason")
        return [*events, Finish(INCOMPLETE_REASONS.get(str(reason), "length") if status == "incomplete" else "stop")]

    def translate_usage(self, usage: Json) -> Usage:
        inputs = usage.get("input_tokens_details") or {}
        outputs = usage.get("output_tokens_details") or {}
        return Usage(input_tokens=usage.get("input_tokens") or 0, output_tokens=usage.get("output_tokens") or 0,
                     cached_tokens=inputs.get("cached_tokens") or 0,
                     cache_write_tokens=inputs.get("cache_write_tokens") or 0,
                     reasoning_tokens=outputs.get("reasoning_tokens") or 0)

    def body_events(self, body: Any) -> list[Event]:
        """A Response as the events that stream it (each item whole)."""
        if not isinstance(body, dict):
            raise UpstreamError("bad_upstream_response", "the upstream body is not a JSON object")
        if "error" in body and body.get("object") != "response":
            raise upstream_error(body["error"], "code")
        events: list[Event] = []
        for index, item in enumerate(body.get("output") or []):
            if not isinstance(item, dict):
                continue
            if item.get("type") == "message":
                text = "".join(text_of([p]) for p in item.get("content") or [] if isinstance(p, dict)
                               and p.get("type") == "output_text")
                events += [TextDelta(text)] if text else []
            elif item.get("type") == "function_call":
                events.append(CallStart(index, item.get("call_id") or None, str(item.get("name") or "")))
                events += [ArgumentsDelta(index, item["arguments"])] if item.get("arguments") else []
                events.append(CallDone(index))
        return [*events, *self.on_response(body)]
