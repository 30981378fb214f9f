"""The OpenAI Responses upstream (`POST /responses`).

A function_call item's call_id and name come on its output_item.added (the call starts there), its
function_call_arguments.delta events are its arguments (or, when there are none, the arguments of its
function_call_arguments.done or output_item.done), and its output_item.done ends it. The terminal event says how
the turn ended: response.completed and response.incomplete finish it (incomplete_details.reason max_output_tokens
is a length cut), response.failed and an `error` event fail it. A custom_tool_call reads as a call whose input is
raw text; refusal parts, annotations and reasoning items (summary parts, reasoning text, encrypted_content) have
their own events; any other item (MCP, shell, code interpreter ...) goes on opaque. The non-stream Response plays
as the same events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..model import (
    Annotation,
    ArgumentsDelta,
    Call,
    CallDone,
    CallStart,
    Event,
    Finish,
    FinishReason,
    Json,
    Message,
    Opaque,
    OpaqueEvent,
    OutputFormat,
    Reasoning,
    ReasoningDelta,
    ReasoningDone,
    ReasoningStart,
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
from ..wire import parse_json_event, read_sse, text_of, upstream_error
from .base import Upstream

__all__ = ["INCOMPLETE_REASONS", "ReadState", "ResponsesUpstream"]

#: incomplete_details.reason -> the neutral reason.
INCOMPLETE_REASONS: dict[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "content_filter"}
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
#: Output item types the neutral model translates; any other item (mcp_call, shell_call, code_interpreter_call,
#: web_search_call ...) goes on as `OpaqueEvent`s.
TRANSLATED = ("message", "function_call", "custom_tool_call", "reasoning")
#: Opaque items that are calls the client must run (a front that cannot carry them fails the answer).
CLIENT_RUN = ("shell_call", "local_shell_call", "computer_call", "apply_patch_call")


@dataclass(eq=False)
class ReadState:
    """One answer being read; never shared between requests."""

    calls: set[int] = field(default_factory=set)  # output indexes of the function calls
    argued: set[int] = field(default_factory=set)  # ... that streamed arguments
    done: set[int] = field(default_factory=set)  # ... that are done
    reasoning: dict[int, dict[int | None, str]] = field(default_factory=dict)  # streamed text by summary part
    refused: dict[int, str] = field(default_factory=dict)  # refusal text streamed, by message output index
    opaque: dict[int, str] = field(default_factory=dict)  # the opaque items' types, by output index


class ResponsesUpstream(Upstream):
    dialect = "responses"
    path = "/responses"
    takes_custom_tools = True

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
        if request.output_format is not None:
            body["text"] = {"format": self.translate_output_format(request.output_format)}
        return {key: value for key, value in body.items() if value is not None}

    def translate_output_format(self, output: OutputFormat) -> Json:
        """text.format: json_schema {name, schema, strict, description} (the schema unchanged; a front without a
        name, Anthropic, gets "output"), or json_object."""
        if output.type == "json_object":
            return {"type": "json_object"}
        format: Json = {"type": "json_schema", "name": output.name or "output", "schema": output.schema}
        if output.strict is not None:
            format["strict"] = output.strict
        if output.description is not None:
            format["description"] = output.description
        return format

    def translate_input(self, request: Request) -> list[Json]:
        items: list[Json] = []
        for part in request.history:
            if isinstance(part, Message):
                items.append({"type": "message", "role": part.role, "content": part.text})
            elif isinstance(part, Call) and part.kind == "custom":
                items.append({"type": "custom_tool_call", "call_id": part.id, "name": part.name,
                              "input": part.arguments})
            elif isinstance(part, Call):
                items.append({"type": "function_call", "call_id": part.id, "name": part.name,
                              "arguments": part.arguments or "{}"})
            elif isinstance(part, Result):
                kind = "custom_tool_call_output" if part.kind == "custom" else "function_call_output"
                items.append({"type": kind, "call_id": part.call_id, "output": part.output})
            elif isinstance(part, Opaque) or (isinstance(part, Reasoning) and part.issuer == self.dialect):
                # byte for byte (a ciphertext is its issuer's: stateful.md §3)
                items.append(dict(part.item))
        return items

    def translate_tool(self, tool: Tool) -> Json:
        if tool.kind == "custom":  # as the client offered it: name, description, format
            custom: Json = {"type": "custom", "name": tool.name}
            if tool.description is not None:
                custom["description"] = tool.description
            return {**custom, "format": tool.format} if tool.format is not None else custom
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
        if kind in TERMINAL:
            return self.on_response(event.get("response") or {})
        if not isinstance(index, int):
            return []
        if index in state.opaque or (kind == "response.output_item.added" and (event.get("item") or {}).get(
                "type") not in TRANSLATED):
            return self.on_opaque(state, index, event)
        if kind == "response.output_text.delta" and event.get("delta"):
            return [TextDelta(event["delta"])]
        if kind == "response.output_text.annotation.added" and isinstance(event.get("annotation"), dict):
            return [Annotation(event["annotation"])]
        if kind == "response.refusal.delta" and event.get("delta"):
            state.refused[index] = state.refused.get(index, "") + event["delta"]
            return [RefusalDelta(event["delta"])]
        if kind == "response.output_item.added":
            return self.on_added(state, index, event.get("item") or {})
        if kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            if index in state.calls and event.get("delta"):
                state.argued.add(index)
                return [ArgumentsDelta(index, event["delta"])]
        elif kind == "response.function_call_arguments.done":
            return self.whole_arguments(state, index, event.get("arguments"))
        elif kind == "response.custom_tool_call_input.done":
            return self.whole_arguments(state, index, event.get("input"))
        elif index in state.reasoning:
            return self.on_reasoning(state, index, event)
        elif kind == "response.output_item.done":
            return self.on_done(state, index, event.get("item") or {})
        return []  # created, in_progress, parts and unknown events: nothing to translate

    def on_added(self, state: ReadState, index: int, item: Json) -> list[Event]:
        if item.get("type") in ("function_call", "custom_tool_call"):
            state.calls.add(index)
            custom = item.get("type") == "custom_tool_call"
            return [CallStart(index, item.get("call_id") or None, str(item.get("name") or ""),
                              "custom" if custom else "function")]
        if item.get("type") == "reasoning":
            state.reasoning[index] = {}
            return [ReasoningStart(index, self.dialect, str(item["id"]) if item.get("id") else None)]
        return []

    def on_opaque(self, state: ReadState, index: int, event: Json) -> list[Event]:
        """An event of an item the model does not translate, as it came."""
        if event.get("type") == "response.output_item.added":
            state.opaque[index] = str((event.get("item") or {}).get("type") or "")
        kind = state.opaque[index]
        return [OpaqueEvent(index, event, kind, kind in CLIENT_RUN)]

    def on_reasoning(self, state: ReadState, index: int, event: Json) -> list[Event]:
        """A reasoning item's summary parts and text, deltas or (when none came) whole at their done."""
        kind, streamed = str(event.get("type")), state.reasoning[index]
        part: int | None = event.get("summary_index") if "summary" in kind else None
        if kind == "response.reasoning_summary_part.added" and isinstance(part, int):
            streamed.setdefault(part, "")
            return [ReasoningDelta(index, "", part)]
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta") and event.get("delta"):
            streamed[part] = streamed.get(part, "") + str(event["delta"])
            return [ReasoningDelta(index, str(event["delta"]), part)]
        if kind in ("response.reasoning_summary_text.done", "response.reasoning_text.done"):
            return self.whole_reasoning(state, index, part, event.get("text"))
        if kind == "response.output_item.done":
            item = event.get("item") or {}
            events = [e for i, p in enumerate(item.get("summary") or []) if isinstance(p, dict)
                      for e in self.whole_reasoning(state, index, i, p.get("text"))]
            events += [e for p in item.get("content") or [] if isinstance(p, dict)
                       for e in self.whole_reasoning(state, index, None, p.get("text"))]
            del state.reasoning[index]
            sealed = item.get("encrypted_content")
            return [*events, ReasoningDone(index, sealed if isinstance(sealed, str) else None, self.dialect)]
        return []

    def whole_reasoning(self, state: ReadState, index: int, part: int | None, text: Any) -> list[Event]:
        """Reasoning text given whole, when no delta carried it."""
        streamed = state.reasoning[index]
        if streamed.get(part) or not isinstance(text, str) or not text:
            return []
        streamed[part] = text
        return [ReasoningDelta(index, text, part)]

    def on_done(self, state: ReadState, index: int, item: Json) -> list[Event]:
        if index in state.calls:
            events = self.whole_arguments(state, index, item.get("input" if item.get("type") == "custom_tool_call"
                                                                 else "arguments"))
            state.done.add(index)
            return [*events, CallDone(index)]
        if item.get("type") == "message" and not state.refused.get(index):  # a refusal given whole
            refusal = "".join(str(p.get("refusal") or "") for p in item.get("content") or []
                              if isinstance(p, dict) and p.get("type") == "refusal")
            return [RefusalDelta(refusal)] if refusal else []
        return []

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
        state = ReadState()
        events: list[Event] = []
        for index, item in enumerate(body.get("output") or []):
            if not isinstance(item, dict):
                continue
            if item.get("type") == "message":
                events += self.message_events(item)
                continue
            added = {"type": "response.output_item.added", "output_index": index, "item": item}
            events += self.on_event(state, added)
            events += self.on_event(state, {"type": "response.output_item.done", "output_index": index, "item": item})
        return [*events, *self.on_response(body)]

    def message_events(self, item: Json) -> list[Event]:
        """A whole message: its text (then the text's annotations) and refusal, part by part."""
        events: list[Event] = []
        for part in item.get("content") or []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "output_text":
                events += [TextDelta(text_of([part]))] if text_of([part]) else []
                events += [Annotation(a) for a in part.get("annotations") or [] if isinstance(a, dict)]
            elif part.get("type") == "refusal" and part.get("refusal"):
                events.append(RefusalDelta(str(part["refusal"])))
        return events
