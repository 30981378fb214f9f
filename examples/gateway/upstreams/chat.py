"""The Chat Completions upstream (`POST /chat/completions`).

Chat streams a call's id and name on its first delta (a name may come in fragments) and its arguments after; deltas of
parallel calls may interleave by `index`. Deltas without `index` (not allowed, but Gemini's OpenAI-compatible endpoint
sends parallel calls so) are keyed by the id they carry, a new id being a new call. A call starts (`CallStart`) once its
name is complete: when its arguments start after the name, when another call or text starts, or at the finish; arguments
that came before that wait for it. Chat cannot say when a call is done: calls stay open until the `Finish`, sent at
`data: [DONE]` with the last finish_reason. `delta.refusal` is the model's refusal. Custom tools are refused or
converted (custom_tools.py): a Chat stream cannot carry a custom call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..model import (
    ArgumentsDelta,
    Call,
    CallStart,
    Event,
    Finish,
    FinishReason,
    Json,
    Message,
    OutputFormat,
    RefusalDelta,
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
from ..wire import parse_json_event, read_sse, upstream_error
from .base import Upstream

__all__ = ["FINISH_REASONS", "ChatUpstream", "PendingCall", "ReadState"]

#: Chat finish_reason -> the neutral reason (anything else is a normal stop).
FINISH_REASONS: dict[str, FinishReason] = {"length": "length", "content_filter": "content_filter"}


@dataclass(eq=False)
class PendingCall:
    key: int
    name: str = ""
    upstream_id: str | None = None
    arguments: str = ""  # arguments that came before the call started
    started: bool = False


@dataclass(eq=False)
class ReadState:
    """One answer being read; never shared between requests."""

    calls: dict[int, PendingCall] = field(default_factory=dict)  # by tool_calls[].index
    ids: dict[str, int] = field(default_factory=dict)  # a call's upstream id -> its key, for deltas without index
    finish_reason: str | None = None


class ChatUpstream(Upstream):
    dialect = "chat"
    path = "/chat/completions"

    # -- request ----------------------------------------------------------------------------------------------

    def translate_request(self, request: Request) -> Json:
        request = self.offered(request)  # custom tools: refused or converted (custom_tools.py)
        body: Json = {"model": request.model, "messages": self.translate_messages(request), "stream": request.stream}
        if request.stream:
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = [self.translate_tool(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = self.translate_tool_choice(request.tool_choice)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_tokens is not None:
            body["max_completion_tokens"] = request.max_tokens
        if request.output_format is not None:
            body["response_format"] = self.translate_output_format(request.output_format)
        return {key: value for key, value in body.items() if value is not None}

    def translate_output_format(self, output: OutputFormat) -> Json:
        """response_format: json_schema {name, schema, strict, description} (the schema unchanged; a front without
        a name, Anthropic, gets "output"), or json_object."""
        if output.type == "json_object":
            return {"type": "json_object"}
        schema: Json = {"name": output.name or "output", "schema": output.schema}
        if output.strict is not None:
            schema["strict"] = output.strict
        if output.description is not None:
            schema["description"] = output.description
        return {"type": "json_schema", "json_schema": schema}

    def translate_messages(self, request: Request) -> list[Json]:
        messages: list[Json] = [{"role": "system", "content": text} for text in request.system]
        for part in request.history:
            if isinstance(part, Message):
                messages.append({"role": part.role, "content": part.text})
            elif isinstance(part, Call):
                call = {"id": part.id, "type": "function",
                        "function": {"name": part.name, "arguments": part.arguments or "{}"}}
                previous = messages[-1] if messages else {}
                if previous.get("role") == "assistant":  # text and calls of one turn: one assistant message
                    previous.setdefault("tool_calls", []).append(call)
                else:
                    messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            elif isinstance(part, Result):
                messages.append({"role": "tool", "tool_call_id": part.call_id, "content": part.output})
        return messages

    def translate_tool(self, tool: Tool) -> Json:
        function: Json = {"name": tool.name}
        if tool.description is not None:
            function["description"] = tool.description
        if tool.parameters is not None:
            function["parameters"] = tool.parameters
        if tool.strict is not None:
            function["strict"] = tool.strict
        return {"type": "function", "function": function}

    def translate_tool_choice(self, choice: ToolChoice) -> Any:
        if choice.name is not None:
            return {"type": "function", "function": {"name": choice.name}}
        return choice.mode

    # -- answer -----------------------------------------------------------------------------------------------

    async def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        """Returns at `data: [DONE]`; raises UpstreamCut without it."""
        state = ReadState()
        async for data in read_sse(response):
            if data == "[DONE]":
                for event in self.finish(state):
                    yield event
                return
            chunk = parse_json_event(data)
            if chunk is not None:
                for event in self.on_chunk(state, chunk):
                    yield event
        raise UpstreamCut("the upstream stream ended without data: [DONE]")

    def on_chunk(self, state: ReadState, chunk: Json) -> list[Event]:
        if chunk.get("error"):
            raise upstream_error(chunk["error"], "code")
        events: list[Event] = []
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # only the first choice (n=1)
            delta = choice.get("delta") or {}
            if delta.get("content"):
                events += self.start_pending(state)  # text after a call's name: the name is complete
                events.append(TextDelta(delta["content"]))
            if isinstance(delta.get("refusal"), str) and delta["refusal"]:
                events += self.start_pending(state)
                events.append(RefusalDelta(delta["refusal"]))
            for position, tool_call in enumerate(delta.get("tool_calls") or []):
                events += self.on_tool_call(state, tool_call, position)
            if choice.get("finish_reason"):
                state.finish_reason = choice["finish_reason"]
        if chunk.get("usage"):
            events.append(UsageUpdate(self.translate_usage(chunk["usage"])))
        return events

    def on_tool_call(self, state: ReadState, tool_call: Json, position: int) -> list[Event]:
        """One `delta.tool_calls[]` entry."""
        index = self.key(state, tool_call, position)
        function = tool_call.get("function") or {}
        events: list[Event] = []
        call = state.calls.get(index)
        if call is None:
            events += self.start_pending(state)  # another call starts: the earlier calls' names are complete
            call = state.calls[index] = PendingCall(index)
        if call.upstream_id is None and not call.started:
            call.upstream_id = tool_call.get("id") or None
            if call.upstream_id is not None:
                state.ids.setdefault(call.upstream_id, index)
        arguments = function.get("arguments") or ""
        if not call.started:
            if not (call.name and arguments):  # once arguments follow the name, later names are repeats
                call.name = self.merge_name(call.name, function.get("name") or "")
            if call.name and arguments:
                events += self.start(call)
        if arguments:
            if call.started:
                events.append(ArgumentsDelta(call.key, arguments))
            else:
                call.arguments += arguments
        return events

    def key(self, state: ReadState, tool_call: Json, position: int) -> int:
        """The call a `delta.tool_calls[]` entry belongs to: its `index`. Without one (not allowed, but seen): the
        call of the id it carries, a new call for a new id (Gemini streams parallel calls so, each delta with its
        id); with neither, the entries are assumed to be in call order."""
        index = tool_call.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        upstream_id = tool_call.get("id")
        if isinstance(upstream_id, str) and upstream_id:
            if upstream_id not in state.ids:
                state.ids[upstream_id] = max(state.calls, default=-1) + 1
            return state.ids[upstream_id]
        return position

    def merge_name(self, name: str, fragment: str) -> str:
        return name + fragment

    def start(self, call: PendingCall) -> list[Event]:
        call.started = True
        events: list[Event] = [CallStart(call.key, call.upstream_id, call.name)]
        if call.arguments:
            events.append(ArgumentsDelta(call.key, call.arguments))
        return events

    def start_pending(self, state: ReadState) -> list[Event]:
        return [event for call in state.calls.values() if not call.started and call.name
                for event in self.start(call)]

    def finish(self, state: ReadState) -> list[Event]:
        if state.finish_reason is None:
            raise UpstreamCut("the upstream stream ended without a finish_reason")
        for call in state.calls.values():
            if not call.name:  # a call without a name cannot run: fail, never emit a call named ""
                raise UpstreamError("bad_upstream_response", f"the upstream's tool call {call.key} "
                                    f"({call.upstream_id or 'no id'}) never got a function.name; a call without a "
                                    "name cannot run")
        return [*self.start_pending(state), Finish(FINISH_REASONS.get(state.finish_reason, "stop"))]

    def translate_usage(self, usage: Json) -> Usage:
        prompt = usage.get("prompt_tokens_details") or {}
        completion = usage.get("completion_tokens_details") or {}
        return Usage(input_tokens=usage.get("prompt_tokens") or 0, output_tokens=usage.get("completion_tokens") or 0,
                     cached_tokens=prompt.get("cached_tokens") or 0,
                     cache_write_tokens=prompt.get("cache_write_tokens") or 0,
                     reasoning_tokens=completion.get("reasoning_tokens") or 0)

    def body_events(self, body: Any) -> list[Event]:
        """A chat.completion as the one chunk that streams the same content, then [DONE]."""
        if not isinstance(body, dict):
            raise UpstreamError("bad_upstream_response", "the upstream body is not a JSON object")
        if "error" in body:
            raise upstream_error(body["error"], "code")
        choice = (body.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        calls = [{"index": index, **call} for index, call in enumerate(message.get("tool_calls") or [])]
        chunk = {"choices": [{"index": 0, "delta": {"content": message.get("content"), "tool_calls": calls,
                                                    "refusal": message.get("refusal")},
                              "finish_reason": choice.get("finish_reason")}], "usage": body.get("usage")}
        state = ReadState()
        return [*self.on_chunk(state, chunk), *self.finish(state)]
