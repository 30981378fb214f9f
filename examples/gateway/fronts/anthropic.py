"""The Anthropic Messages front (`POST /v1/messages`).

Stream: `event: <type>` + `data:` blocks. message_start (written before the upstream answers, usage so far
zero), then content blocks indexed 0, 1, 2 in order of start: text goes to a text block (stopped when a call
starts; later text starts a new one), a call is a tool_use block {id, name, input: {}} whose arguments are
input_json_delta fragments, stopped when the upstream says the call is done or at the finish (the blocks of
parallel calls whose arguments interleave upstream are open together). The ending: every open block stopped,
message_delta {stop_reason tool_use / end_turn / max_tokens / refusal, usage (cumulative)}, message_stop. An
upstream that fails or drops ends the stream with an `error` event and no message_delta or message_stop after
it. Non-stream: the Message, or HTTP 502 with the error body when the upstream failed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse, Response

from ..model import (
    Call,
    FinishReason,
    Json,
    Message,
    OutputFormat,
    Part,
    Reasoning,
    Request,
    Result,
    Tool,
    ToolChoice,
    UpstreamHTTPError,
    Usage,
)
from ..wire import encode_sse, new_id, text_of
from .base import Front, RequestShapeError, number, tool_name

__all__ = ["AnthropicFront", "AnthropicTurn", "Block"]

#: The neutral finish reason -> stop_reason ("stop" is tool_use or end_turn).
STOP_REASONS = {"length": "max_tokens", "content_filter": "refusal"}
#: HTTP status -> Anthropic error type (docs.claude.com/en/api/errors).
ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
    404: "not_found_error", 408: "timeout_error", 413: "request_too_large", 429: "rate_limit_error",
    500: "api_error", 502: "api_error", 503: "api_error", 504: "timeout_error", 529: "overloaded_error",
}


@dataclass(eq=False)
class Block:
    """One content block: text (`text` is its text) or tool_use (`text` is its input's JSON)."""

    index: int
    type: str  # "text" | "tool_use" | "thinking"
    text: str = ""  # a thinking block's: its thinking
    signature: str = ""
    id: str = ""
    name: str = ""
    stopped: bool = False


@dataclass(eq=False)
class AnthropicTurn:
    """Everything one message accumulates; never shared between requests."""

    request: Request
    id: str
    model: str
    blocks: list[Block] = field(default_factory=list)
    text: Block | None = None  # the open text block
    refused: bool = False  # the answer holds a refusal (stop_reason "refusal")
    stop_details: Json | None = None  # the refusal's stop_details as the upstream sent them (an Anthropic upstream)
    thinking: dict[int, Block] = field(default_factory=dict)  # open thinking blocks, by the upstream's key
    calls: dict[int, Block] = field(default_factory=dict)  # by the upstream's call key
    call_ids: set[str] = field(default_factory=set)
    usage: Usage | None = None
    stop_reason: str | None = None
    error: Json | None = None
    events: list[Json] = field(default_factory=list)  # emitted, not yet written


class AnthropicFront(Front[AnthropicTurn]):
    dialect = "anthropic"
    path = "/v1/messages"

    # -- request ----------------------------------------------------------------------------------------------

    def parse_request(self, body: Json) -> Request:
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise RequestShapeError("`messages` must be a list")
        system = body.get("system")
        offered = [(i, tool) for i, tool in enumerate(body.get("tools") or [])
                   if tool.get("type", "custom") == "custom"]
        for index, tool in offered:  # a tool without a name: refused, never forwarded
            tool_name(tool.get("name"), index)
        tools = [self.parse_tool(tool) for _, tool in offered]
        choice = body.get("tool_choice")
        output = body.get("output_config")
        return Request(model=body.get("model"), system=[text_of(system)] if system else [],
                       history=self.parse_history(messages), tools=tools, tool_choice=self.parse_tool_choice(choice),
                       parallel_tool_calls=False if isinstance(choice, dict) and choice.get(
                           "disable_parallel_tool_use") is True else None,
                       max_tokens=number(body.get("max_tokens")), stream=body.get("stream") is True, front=body,
                       output_format=self.parse_output_format(output.get("format") if isinstance(output, dict)
                                                              else None))

    def parse_output_format(self, format: Any) -> OutputFormat | None:
        """output_config.format: json_schema {schema} (Anthropic has no name or strict flag for it)."""
        if format is None:
            return None
        if not isinstance(format, dict) or format.get("type") != "json_schema" or not isinstance(
                format.get("schema"), dict):
            raise RequestShapeError(f"output_config.format must be json_schema with a schema: {format!r}")
        return OutputFormat("json_schema", format["schema"])

    def parse_history(self, messages: list[Json]) -> list[Part]:
        history: list[Part] = []
        for message in messages:
            role = message.get("role")
            if role not in ("user", "assistant"):
                raise RequestShapeError(f"unknown role {role!r}")
            content = message.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
            for block in blocks:
                kind = block.get("type")
                if kind == "text" and block.get("text"):
                    previous = history[-1] if history else None
                    if isinstance(previous, Message) and previous.role == role:  # one message, several blocks
                        history[-1] = Message(role, previous.text + "\n" + block["text"])
                    else:
                        history.append(Message(role, block["text"]))
                elif kind == "tool_use":
                    history.append(Call(str(block.get("id") or ""), str(block.get("name") or ""),
                                        json.dumps(block.get("input") or {}, ensure_ascii=False)))
                elif kind in ("thinking", "redacted_thinking") and role == "assistant":  # for an Anthropic upstream
                    history.append(Reasoning(dict(block), self.dialect))
                elif kind == "tool_result":
                    history.append(Result(str(block.get("tool_use_id") or ""), text_of(block.get("content")),
                                          block.get("is_error") is True))
        return history

    def parse_tool(self, tool: Json) -> Tool:
        strict = tool.get("strict")
        return Tool(str(tool["name"]), tool.get("description"), tool.get("input_schema"),
                    strict if isinstance(strict, bool) else None)

    def parse_tool_choice(self, choice: Any) -> ToolChoice | None:
        if choice is None:
            return None
        kind = choice.get("type")
        if kind == "tool":
            return ToolChoice("required", str(choice["name"]))
        modes: dict[str, Any] = {"auto": "auto", "any": "required", "none": "none"}
        if kind not in modes:
            raise RequestShapeError(f"unknown tool_choice {choice!r}")
        return ToolChoice(modes[kind])

    # -- the stream -------------------------------------------------------------------------------------------

    def new_turn(self, request: Request) -> AnthropicTurn:
        return AnthropicTurn(request, new_id("msg"), str(request.model or ""))

    def emit(self, turn: AnthropicTurn, type: str, **fields: Any) -> None:
        turn.events.append({"type": type, **fields})

    def start(self, turn: AnthropicTurn) -> None:
        self.emit(turn, "message_start", message={
            "id": turn.id, "type": "message", "role": "assistant", "model": turn.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}})

    def open_block(self, turn: AnthropicTurn, block: Block, content_block: Json) -> Block:
        turn.blocks.append(block)
        self.emit(turn, "content_block_start", index=block.index, content_block=content_block)
        return block

    def stop_block(self, turn: AnthropicTurn, block: Block) -> None:
        if not block.stopped:
            block.stopped = True
            self.emit(turn, "content_block_stop", index=block.index)

    def on_text(self, turn: AnthropicTurn, text: str) -> None:
        if turn.text is None:
            turn.text = self.open_block(turn, Block(len(turn.blocks), "text"), {"type": "text", "text": ""})
        turn.text.text += text
        self.emit(turn, "content_block_delta", index=turn.text.index, delta={"type": "text_delta", "text": text})

    def on_refusal(self, turn: AnthropicTurn, text: str) -> None:
        """Anthropic has no refusal part: the refusal is a text block, and the stop_reason says "refusal"."""
        turn.refused = True
        self.on_text(turn, text)

    def on_refusal_ending(self, turn: AnthropicTurn, details: Json) -> None:
        turn.refused, turn.stop_details = True, details

    def on_reasoning_start(self, turn: AnthropicTurn, key: int, issuer: str, upstream_id: str | None = None) -> None:
        """A thinking block, for Anthropic's own thinking only: a block needs the signature only Anthropic makes
        (OpenAI reasoning is dropped here)."""
        if issuer != self.dialect:
            return
        if turn.text is not None:
            self.stop_block(turn, turn.text)
            turn.text = None
        turn.thinking[key] = self.open_block(turn, Block(len(turn.blocks), "thinking"),
                                             {"type": "thinking", "thinking": "", "signature": ""})

    def on_reasoning(self, turn: AnthropicTurn, key: int, fragment: str, summary_index: int | None) -> None:
        block = turn.thinking.get(key)
        if block is not None and fragment:
            block.text += fragment
            self.emit(turn, "content_block_delta", index=block.index,
                      delta={"type": "thinking_delta", "thinking": fragment})

    def on_reasoning_done(self, turn: AnthropicTurn, key: int, sealed: str | None) -> None:
        """The signature, byte for byte, just before the block's stop."""
        block = turn.thinking.pop(key, None)
        if block is None:
            return
        if sealed:
            block.signature = sealed
            self.emit(turn, "content_block_delta", index=block.index,
                      delta={"type": "signature_delta", "signature": sealed})
        self.stop_block(turn, block)

    def on_call_start(self, turn: AnthropicTurn, key: int, upstream_id: str | None, name: str) -> None:
        if turn.text is not None:  # text before a call is its own block; later text starts a new one
            self.stop_block(turn, turn.text)
            turn.text = None
        block = Block(len(turn.blocks), "tool_use", id=self.call_id(turn, upstream_id), name=name)
        turn.calls[key] = self.open_block(turn, block, {"type": "tool_use", "id": block.id, "name": name,
                                                        "input": {}})

    def on_arguments(self, turn: AnthropicTurn, key: int, fragment: str) -> None:
        block = turn.calls[key]
        block.text += fragment
        self.emit(turn, "content_block_delta", index=block.index,
                  delta={"type": "input_json_delta", "partial_json": fragment})

    def on_call_done(self, turn: AnthropicTurn, key: int) -> None:
        self.stop_block(turn, turn.calls[key])

    def on_usage(self, turn: AnthropicTurn, usage: Usage) -> None:
        turn.usage = usage

    def finish(self, turn: AnthropicTurn, reason: FinishReason) -> None:
        for block in turn.blocks:
            self.stop_block(turn, block)
        turn.stop_reason = self.stop_reason_for(turn, reason)
        delta: Json = {"stop_reason": turn.stop_reason, "stop_sequence": None}
        if turn.refused and turn.stop_reason == "refusal":
            delta["stop_details"] = turn.stop_details or {"type": "refusal"}
        self.emit(turn, "message_delta", delta=delta, usage=self.translate_usage(turn.usage))
        self.emit(turn, "message_stop")

    def stop_reason_for(self, turn: AnthropicTurn, reason: FinishReason) -> str:
        if reason == "stop" and turn.refused:
            return "refusal"
        if reason == "stop":
            return "tool_use" if turn.calls else "end_turn"
        return STOP_REASONS[reason]

    def fail(self, turn: AnthropicTurn, code: str, message: str) -> None:
        """An `error` event ends the stream; blocks still open stay open (their content is cut)."""
        turn.error = {"type": "api_error", "message": f"{message} ({code})"}
        self.emit(turn, "error", error=turn.error)

    def ended(self, turn: AnthropicTurn) -> bool:
        return turn.stop_reason is not None or turn.error is not None

    def flush(self, turn: AnthropicTurn) -> bytes:
        events, turn.events = turn.events, []
        return b"".join(self.encode_event(event) for event in events)

    def encode_event(self, event: Json) -> bytes:
        return encode_sse(event, event=event["type"])

    # -- the front's shapes -----------------------------------------------------------------------------------

    def translate_usage(self, usage: Usage | None) -> Json:
        """Anthropic counts input_tokens without the cached ones."""
        usage = usage or Usage()
        return {"input_tokens": max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens),
                "cache_creation_input_tokens": usage.cache_write_tokens,
                "cache_read_input_tokens": usage.cached_tokens, "output_tokens": usage.output_tokens}

    def body(self, turn: AnthropicTurn) -> Response:
        if turn.error is not None:
            return JSONResponse({"type": "error", "error": turn.error}, status_code=502)
        content = [{"type": "text", "text": b.text} if b.type == "text" else
                   {"type": "thinking", "thinking": b.text, "signature": b.signature} if b.type == "thinking" else
                   {"type": "tool_use", "id": b.id, "name": b.name, "input": input_object(b.text)}
                   for b in turn.blocks]
        message: Json = {"id": turn.id, "type": "message", "role": "assistant", "model": turn.model,
                         "content": content, "stop_reason": turn.stop_reason, "stop_sequence": None,
                         "usage": self.translate_usage(turn.usage)}
        if turn.refused and turn.stop_reason == "refusal":
            message["stop_details"] = turn.stop_details or {"type": "refusal"}
        return JSONResponse(message)

    def error_body(self, error: UpstreamHTTPError) -> Json:
        """Anthropic's error shape; the type the upstream gave when it is Anthropic's, else the status's."""
        kind = error.type if error.type in ERROR_TYPES.values() else ERROR_TYPES.get(
            error.status, "api_error" if error.status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": error.message}}

    def call_id(self, turn: AnthropicTurn, upstream_id: str | None) -> str:
        """The upstream's call id, or a new one when it has none or repeats one already used."""
        call_id = upstream_id if upstream_id and upstream_id not in turn.call_ids else new_id("toolu")
        turn.call_ids.add(call_id)
        return call_id


def input_object(arguments: str) -> Any:
    """A call's arguments parsed, {} when they are not a JSON object (a Message cannot carry them otherwise)."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
