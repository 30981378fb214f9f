"""The OpenAI Chat Completions front (`POST /v1/chat/completions`).

Stream: `data:` lines only, every chunk {id chatcmpl-..., object, created, model, choices: [{index: 0, delta,
logprobs: null, finish_reason}]}. The first chunk carries the assistant role (written before the upstream
answers); text is `delta.content`; a call takes the next tool-call index (0, 1, 2 in order of appearance), its
first delta carries {index, id, type, function: {name, arguments: ""}}, the later ones only {index, function:
{arguments}}. The finish chunk has finish_reason tool_calls / stop / length / content_filter, a usage chunk
(`choices: []`) follows when the request asked for stream_options.include_usage, then `data: [DONE]`. An
upstream that fails or drops ends the stream with an error object `data: {"error": {...}}` and no finish_reason
or [DONE] after it. Non-stream: a chat.completion, or HTTP 502 with the error body when the upstream failed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse, Response

from ..model import Call, FinishReason, Json, Message, OutputFormat, Part, Request, Result, Tool, ToolChoice, Usage
from ..wire import encode_sse, new_id, text_of
from .base import Front, RequestShapeError, number, tool_name

__all__ = ["ChatCall", "ChatFront", "ChatTurn"]


@dataclass(eq=False)
class ChatCall:
    key: int  # the upstream's call key
    index: int  # the tool-call index at the front
    id: str
    name: str
    arguments: str = ""


@dataclass(eq=False)
class ChatTurn:
    """Everything one completion accumulates; never shared between requests."""

    request: Request
    id: str
    model: str
    created: int = field(default_factory=lambda: int(time.time()))
    text: str = ""
    refusal: str | None = None  # delta.refusal so far (None: no refusal)
    calls: dict[int, ChatCall] = field(default_factory=dict)  # by the upstream's call key
    call_ids: set[str] = field(default_factory=set)
    usage: Usage | None = None
    finish_reason: str | None = None
    error: Json | None = None
    events: list[Json] = field(default_factory=list)  # chunks (or the error object) not yet written
    done: bool = False  # the [DONE] sentinel is owed
    done_written: bool = False


class ChatFront(Front[ChatTurn]):
    dialect = "chat"
    path = "/v1/chat/completions"

    # -- request ----------------------------------------------------------------------------------------------

    def parse_request(self, body: Json) -> Request:
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise RequestShapeError("`messages` must be a list")
        system = [text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
        options = body.get("stream_options")
        offered = list(enumerate(body.get("tools") or []))
        for index, tool in offered:  # a function or custom tool without a name: refused, never forwarded
            kind = tool.get("type", "function")
            if kind in ("function", "custom"):
                tool_name((tool.get(kind) or {}).get("name") if isinstance(tool.get(kind), dict) else None, index)
        tools = [self.parse_tool(t) if t.get("type", "function") == "function" else self.parse_custom_tool(t)
                 for _, t in offered if t.get("type", "function") in ("function", "custom")]
        max_tokens = number(body.get("max_completion_tokens"))
        return Request(model=body.get("model"), system=system, history=self.parse_history(messages), tools=tools,
                       tool_choice=self.parse_tool_choice(body.get("tool_choice")),
                       parallel_tool_calls=body.get("parallel_tool_calls"),
                       max_tokens=max_tokens if max_tokens is not None else number(body.get("max_tokens")),
                       stream=body.get("stream") is True,
                       include_usage=isinstance(options, dict) and options.get("include_usage") is True, front=body,
                       output_format=self.parse_output_format(body.get("response_format")))

    def parse_output_format(self, format: Any) -> OutputFormat | None:
        """response_format: json_schema {name, schema, strict, description} or json_object; text (or none): None."""
        if not isinstance(format, dict) or format.get("type") in (None, "text"):
            return None
        if format.get("type") == "json_object":
            return OutputFormat("json_object")
        schema = format.get("json_schema")
        if format.get("type") != "json_schema" or not isinstance(schema, dict):
            raise RequestShapeError(f"response_format must be text, json_object or json_schema: {format!r}")
        return OutputFormat("json_schema", schema.get("schema") if isinstance(schema.get("schema"), dict) else None,
                            schema.get("name"), schema.get("strict"), schema.get("description"))

    def parse_custom_tool(self, tool: Json) -> Tool:
        """A custom (freeform) tool {type: custom, custom: {name, description, format}}."""
        custom = tool["custom"]
        return Tool(str(custom["name"]), custom.get("description"), kind="custom",
                    format=self.neutral_format(custom.get("format")))

    def neutral_format(self, format: Any) -> Json | None:
        """A custom tool's format in the neutral (Responses) shape: Chat nests a grammar's syntax and definition
        under `grammar`, Responses has them beside `type`."""
        if isinstance(format, dict) and format.get("type") == "grammar" and isinstance(format.get("grammar"), dict):
            return {"type": "grammar", **format["grammar"]}
        return format if isinstance(format, dict) else None

    def parse_history(self, messages: list[Json]) -> list[Part]:
        history: list[Part] = []
        for message in messages:
            role = message.get("role")
            if role in ("user", "assistant") and text_of(message.get("content")):
                history.append(Message(role, text_of(message.get("content"))))
            if role == "assistant":
                for call in message.get("tool_calls") or []:
                    if call.get("type") == "custom":  # {type: custom, custom: {name, input}}
                        custom = call.get("custom") or {}
                        history.append(Call(str(call.get("id") or ""), str(custom.get("name") or ""),
                                            str(custom.get("input") or ""), "custom"))
                        continue
                    function = call.get("function") or {}
                    history.append(Call(str(call.get("id") or ""), str(function.get("name") or ""),
                                        function.get("arguments") or "{}"))
            elif role == "tool":
                call_id = str(message.get("tool_call_id") or "")
                custom = any(isinstance(p, Call) and p.kind == "custom" and p.id == call_id for p in history)
                history.append(Result(call_id, text_of(message.get("content")),
                                      kind="custom" if custom else "function"))
        return history

    def parse_tool(self, tool: Json) -> Tool:
        function = tool["function"]
        return Tool(str(function["name"]), function.get("description"), function.get("parameters"),
                    function.get("strict"))

    def parse_tool_choice(self, choice: Any) -> ToolChoice | None:
        if isinstance(choice, dict) and choice.get("type") == "function":
            return ToolChoice("required", str(choice["function"]["name"]))
        if isinstance(choice, dict) and choice.get("type") == "allowed_tools":  # no subset: the mode only
            choice = (choice.get("allowed_tools") or {}).get("mode", "auto")
        if choice in ("auto", "none", "required"):
            return ToolChoice(choice)
        if choice is not None:
            raise RequestShapeError(f"unknown tool_choice {choice!r}")
        return None

    # -- the stream -------------------------------------------------------------------------------------------

    def new_turn(self, request: Request) -> ChatTurn:
        return ChatTurn(request, new_id("chatcmpl", "-"), str(request.model or ""))

    def chunk(self, turn: ChatTurn, delta: Json, finish_reason: str | None = None) -> None:
        turn.events.append({"id": turn.id, "object": "chat.completion.chunk", "created": turn.created,
                            "model": turn.model, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                                              "finish_reason": finish_reason}]})

    def start(self, turn: ChatTurn) -> None:
        self.chunk(turn, {"role": "assistant", "content": "", "refusal": None})

    def on_text(self, turn: ChatTurn, text: str) -> None:
        turn.text += text
        self.chunk(turn, {"content": text})

    def on_refusal(self, turn: ChatTurn, text: str) -> None:
        """delta.refusal (message.refusal in the non-stream body): never content."""
        turn.refusal = (turn.refusal or "") + text
        self.chunk(turn, {"refusal": text})

    def on_call_start(self, turn: ChatTurn, key: int, upstream_id: str | None, name: str) -> None:
        call = turn.calls[key] = ChatCall(key, self.next_index(turn), self.call_id(turn, upstream_id), name)
        self.chunk(turn, {"tool_calls": [{"index": call.index, "id": call.id, "type": "function",
                                          "function": {"name": call.name, "arguments": ""}}]})

    def next_index(self, turn: ChatTurn) -> int:
        """The tool-call index of a new call: 0, 1, 2 in order of appearance."""
        return len(turn.calls)

    def on_arguments(self, turn: ChatTurn, key: int, fragment: str) -> None:
        call = turn.calls[key]
        call.arguments += fragment
        self.chunk(turn, {"tool_calls": [{"index": call.index, "function": {"arguments": fragment}}]})

    def on_usage(self, turn: ChatTurn, usage: Usage) -> None:
        turn.usage = usage

    def finish(self, turn: ChatTurn, reason: FinishReason) -> None:
        """Calls without arguments get '{}' (clients json-decode them), then the finish chunk, the usage chunk
        when asked for, and [DONE]."""
        for call in turn.calls.values():
            if not call.arguments:
                self.on_arguments(turn, call.key, "{}")
        turn.finish_reason = self.finish_reason_for(turn, reason)
        self.chunk(turn, {}, turn.finish_reason)
        if turn.request.include_usage:
            turn.events.append({"id": turn.id, "object": "chat.completion.chunk", "created": turn.created,
                                "model": turn.model, "choices": [], "usage": self.translate_usage(turn.usage)})
        turn.done = True

    def finish_reason_for(self, turn: ChatTurn, reason: FinishReason) -> str:
        if reason == "stop":
            return "tool_calls" if turn.calls else "stop"
        return reason  # "length" | "content_filter"

    def fail(self, turn: ChatTurn, code: str, message: str) -> None:
        """An error object ends the stream: no finish_reason, no [DONE]."""
        turn.error = {"message": message, "type": "server_error", "param": None, "code": code}
        turn.events.append({"error": turn.error})

    def ended(self, turn: ChatTurn) -> bool:
        return turn.finish_reason is not None or turn.error is not None

    def flush(self, turn: ChatTurn) -> bytes:
        events, turn.events = turn.events, []
        out = b"".join(self.encode_event(event) for event in events)
        if turn.done and not turn.done_written:
            turn.done_written = True
            out += self.done_sentinel()
        return out

    def encode_event(self, event: Json) -> bytes:
        return encode_sse(event)

    def done_sentinel(self) -> bytes:
        return b"data: [DONE]\n\n"

    # -- the front's shapes -----------------------------------------------------------------------------------

    def translate_usage(self, usage: Usage | None) -> Json:
        usage = usage or Usage()
        return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                "total_tokens": usage.total_tokens,
                "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
                "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens}}

    def body(self, turn: ChatTurn) -> Response:
        if turn.error is not None:
            return JSONResponse({"error": turn.error}, status_code=502)
        message: Json = {"role": "assistant", "content": turn.text or None, "refusal": turn.refusal}
        if turn.calls:
            message["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments}}
                                     for c in sorted(turn.calls.values(), key=lambda c: c.index)]
        return JSONResponse({
            "id": turn.id, "object": "chat.completion", "created": turn.created, "model": turn.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": turn.finish_reason}],
            "usage": self.translate_usage(turn.usage),
        })

    def call_id(self, turn: ChatTurn, upstream_id: str | None) -> str:
        """The upstream's call id, or a new one when it has none or repeats one already used."""
        call_id = upstream_id if upstream_id and upstream_id not in turn.call_ids else new_id("call")
        turn.call_ids.add(call_id)
        return call_id

