"""A reference gateway: serves the OpenAI Responses API (`POST /v1/responses`) in front of a Chat Completions
upstream (`Gateway`) or an Anthropic Messages upstream (`AnthropicGateway`), translating requests one way and the
upstream's stream back, event by event, as it arrives.

    python examples/gateway.py --upstream http://127.0.0.1:8000/v1 --port 8080
    python examples/gateway.py --upstream-dialect anthropic --upstream https://api.anthropic.com/v1 --port 8080

Check it against the callproof mock:  callproof run --launch 'python examples/gateway.py --upstream {upstream}
--port {port}' (add `--upstream-dialect anthropic` to both commands for the Anthropic upstream). `Gateway` is
built from small methods so that a subclass can change one behaviour at a time (tests/fakes/gateways.py breaks it
on purpose, one defect per subclass).

The front half (the per-response `Turn`, Responses events and objects) does not depend on the upstream. Another
upstream dialect subclasses `Gateway`, overrides the upstream half (`upstream_path`, `upstream_headers`,
`translate_request`, `read_chunks`, `on_chunk`, `completion_chunks`, `status_for`) and registers itself in
`DIALECTS`, as `AnthropicGateway` does.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = [
    "DIALECTS", "AnthropicGateway", "Gateway", "Item", "Turn", "UpstreamCut", "UpstreamError", "create_app", "main",
    "parser", "serve",
]

Json = dict[str, Any]
log = logging.getLogger("gateway")

#: Chat finish_reason -> (Responses status, incomplete_details.reason).
FINISH: dict[str, tuple[str, str | None]] = {
    "stop": ("completed", None),
    "tool_calls": ("completed", None),
    "function_call": ("completed", None),
    "length": ("incomplete", "max_output_tokens"),
    "content_filter": ("incomplete", "content_filter"),
}
#: Anthropic stop_reason -> (Responses status, incomplete_details.reason).
STOP_REASONS: dict[str, tuple[str, str | None]] = {
    "end_turn": ("completed", None),
    "tool_use": ("completed", None),
    "stop_sequence": ("completed", None),
    "pause_turn": ("completed", None),
    "max_tokens": ("incomplete", "max_output_tokens"),
    "model_context_window_exceeded": ("incomplete", "max_output_tokens"),
    "refusal": ("incomplete", "content_filter"),
}
TERMINAL = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}
#: SSE line ends (WHATWG HTML 9.2.6): CRLF, LF or CR, nothing else.
SSE_EOL = re.compile(r"\r\n|\r|\n")
#: Upstream error headers the client needs to retry well.
ERROR_HEADERS = ("retry-after", "retry-after-ms")


class UpstreamError(Exception):
    """The upstream failed after answering 200 (an error object, unusable data): the response fails."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class UpstreamCut(UpstreamError):
    """The upstream stream ended before its end (the connection dropped, or no `[DONE]` / finish_reason)."""

    def __init__(self, message: str) -> None:
        super().__init__("upstream_disconnected", message)


@dataclass(eq=False)
class Item:
    """One output item: a message (`text` is its text) or a function call (`text` is its arguments)."""

    type: str  # "message" | "function_call"
    id: str
    output_index: int = -1  # set when the item is added at the front
    text: str = ""
    name: str = ""
    call_id: str = ""
    upstream_id: str | None = None
    done: Json | None = None  # the item as output_item.done sent it
    touched: int = 0  # Turn.clock at the item's start or latest fragment


@dataclass(eq=False)
class Turn:
    """Everything one front response accumulates; never shared between requests."""

    front: Json
    id: str
    model: str
    created_at: int = field(default_factory=lambda: int(time.time()))
    items: list[Item] = field(default_factory=list)  # added items, in output_index order
    calls: dict[int, Item] = field(default_factory=dict)  # by chat tool_calls[].index / Anthropic block index
    message: Item | None = None  # the message item text goes to, until a call is added
    call_ids: set[str] = field(default_factory=set)
    finish_reason: str | None = None
    usage: Json | None = None
    upstream_usage: Json = field(default_factory=dict)  # the upstream's usage so far (Anthropic sends it in parts)
    events: list[Json] = field(default_factory=list)  # emitted, not yet written
    sequence: int = 0
    clock: int = 0  # counts item starts and fragments
    last_start: int = 0  # clock of the latest item start
    result: Json | None = None  # the terminal Response object
    closed: bool = False

    def emit(self, type: str, **fields: Any) -> None:
        self.events.append({"type": type, "sequence_number": self.sequence, **fields})
        self.sequence += 1

    def take(self) -> list[Json]:
        events, self.events = self.events, []
        return events


class Gateway:
    """Responses front, Chat Completions upstream. The steps, each a method to override:

    - request: `translate_request` (-> `translate_messages`, `translate_tool`, `translate_tool_choice`);
    - upstream HTTP errors: `error_response` (same status, OpenAI error body), `error_headers` (Retry-After);
    - stream: `stream_events` writes each upstream chunk's events as soon as `read_chunks` yields it and
      `on_chunk` (-> `on_text`, `on_tool_call`, `merge_name`, `on_arguments`) translated it; the ending is
      `finish` (`status_for` maps finish_reason), `on_upstream_cut` or `fail`;
    - non-stream: `translate_completion` plays the chat.completion through the same steps;
    - front: `new_turn`, `response_object`, `encode_event`; ids: `new_id`, `call_id`, `final_arguments`.

    Chat calls are added at the front once their name is complete and stay open until the finish, because the
    deltas of parallel calls may interleave by index; text goes to a message item closed when a call is added.
    """

    upstream_path = "/chat/completions"

    def __init__(self, upstream: str) -> None:
        self.upstream_url = upstream.rstrip("/") + self.upstream_path
        self._client: httpx.AsyncClient | None = None

    # -- the app ------------------------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/responses", self.handle, methods=["POST"])], lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        yield
        if self._client is not None:
            await self._client.aclose()

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(300.0, connect=10.0))
        return self._client

    async def handle(self, request: Request) -> Response:
        try:
            front = await request.json()
        except ValueError:
            return error_json(400, "The request body is not valid JSON.", "invalid_request_error")
        if not isinstance(front, dict):
            return error_json(400, "The request body must be a JSON object.", "invalid_request_error")
        try:
            chat = self.translate_request(front)
        except (AttributeError, TypeError, KeyError, ValueError) as exc:  # ValueError: arguments not JSON
            return error_json(400, f"The request does not have the Responses API shape ({exc!r}).",
                              "invalid_request_error")
        outgoing = self.client.build_request("POST", self.upstream_url, json=chat,
                                             headers=self.upstream_headers(request))
        try:
            upstream = await self.client.send(outgoing, stream=True)
        except httpx.HTTPError as exc:  # unreachable: 502; reached but silent: 504
            late = isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout)
            return error_json(504 if late else 502, f"The upstream failed to answer ({exc!r}).", "server_error")
        if upstream.status_code >= 400:
            try:
                content = await upstream.aread()
            except httpx.HTTPError:
                content = b""
            finally:
                await upstream.aclose()
            return self.error_response(front, upstream, content)
        if front.get("stream") is True:
            return StreamingResponse(self.stream_events(front, upstream), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache", "x-accel-buffering": "no"})
        try:
            completion: Any = json.loads(await upstream.aread())
        except (httpx.HTTPError, ValueError) as exc:
            completion = {"error": {"code": "bad_upstream_response", "message": f"unreadable upstream body: {exc}"}}
        finally:
            await upstream.aclose()
        return JSONResponse(self.translate_completion(front, completion))  # a failed turn: status "failed"

    def upstream_headers(self, request: Request) -> dict[str, str]:
        """The client's credentials, passed on."""
        return {"authorization": request.headers["authorization"]} if "authorization" in request.headers else {}

    # -- request translation (Responses -> Chat Completions) ----------------------------------------------

    def translate_request(self, front: Json) -> Json:
        stream = front.get("stream") is True
        chat: Json = {"model": front.get("model"), "messages": self.translate_messages(front), "stream": stream}
        if stream:
            chat["stream_options"] = {"include_usage": True}
        tools = [self.translate_tool(t) for t in front.get("tools") or [] if t.get("type", "function") == "function"]
        if tools:
            chat["tools"] = tools
        if front.get("tool_choice") is not None:
            chat["tool_choice"] = self.translate_tool_choice(front["tool_choice"])
        if front.get("parallel_tool_calls") is not None:
            chat["parallel_tool_calls"] = front["parallel_tool_calls"]
        if front.get("max_output_tokens") is not None:
            chat["max_completion_tokens"] = front["max_output_tokens"]
        return {key: value for key, value in chat.items() if value is not None}

    def translate_messages(self, front: Json) -> list[Json]:
        messages: list[Json] = []
        if front.get("instructions"):
            messages.append({"role": "system", "content": front["instructions"]})
        for item in input_items(front):
            kind = item.get("type", "message")
            if kind == "message":
                messages.append({"role": item.get("role", "user"), "content": text_of(item.get("content"))})
            elif kind == "function_call":
                call = {"id": item.get("call_id"), "type": "function",
                        "function": {"name": item.get("name"), "arguments": item.get("arguments") or "{}"}}
                previous = messages[-1] if messages else {}
                if previous.get("role") == "assistant" and "tool_calls" in previous:
                    previous["tool_calls"].append(call)  # consecutive calls: one assistant message
                else:
                    messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            elif kind == "function_call_output":
                messages.append({"role": "tool", "tool_call_id": item.get("call_id"),
                                 "content": text_of(item.get("output"))})
        return messages

    def translate_tool(self, tool: Json) -> Json:
        function = {key: tool[key] for key in ("name", "description", "parameters", "strict") if key in tool}
        return {"type": "function", "function": function}

    def translate_tool_choice(self, choice: Any) -> Any:
        if isinstance(choice, dict) and choice.get("type") == "function":
            return {"type": "function", "function": {"name": choice.get("name")}}
        if isinstance(choice, dict) and choice.get("type") == "allowed_tools":
            tools = [{"type": "function", "function": {"name": t.get("name")}} for t in choice.get("tools", [])]
            return {"type": "allowed_tools", "allowed_tools": {"mode": choice.get("mode", "auto"), "tools": tools}}
        return choice  # "auto" | "none" | "required"

    # -- upstream stream -> front events ------------------------------------------------------------------

    async def stream_events(self, front: Json, upstream: httpx.Response) -> AsyncIterator[bytes]:
        turn = self.new_turn(front)
        try:
            self.start(turn)
            yield self.flush(turn)
            try:
                async for chunk in self.read_chunks(upstream):
                    self.on_chunk(turn, chunk)
                    if turn.events:
                        yield self.flush(turn)
                self.finish(turn)
            except UpstreamCut as exc:
                self.on_upstream_cut(turn, str(exc))
            except UpstreamError as exc:
                self.fail(turn, exc.code, str(exc))
            except Exception as exc:  # a bug or an unexpected chunk shape: still end the stream properly
                log.exception("translating the upstream stream failed")
                self.fail(turn, "server_error", f"The gateway failed: {exc!r}")
            yield self.flush(turn)
        finally:
            turn.closed = True
            await upstream.aclose()

    async def read_chunks(self, upstream: httpx.Response) -> AsyncIterator[Json]:
        """The JSON chunks of a chat SSE stream; returns at `data: [DONE]`, raises UpstreamCut without it."""
        async for data in read_sse(upstream):
            if data == "[DONE]":
                return
            chunk = parse_chunk(data)
            if chunk is not None:
                yield chunk
        raise UpstreamCut("the upstream stream ended without data: [DONE]")

    def on_chunk(self, turn: Turn, chunk: Json) -> None:
        if chunk.get("error"):
            raise upstream_error(chunk["error"], "code")
        if chunk.get("usage"):
            turn.usage = self.translate_usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # only the first choice (n=1)
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.on_text(turn, delta["content"])
            for position, tool_call in enumerate(delta.get("tool_calls") or []):
                self.on_tool_call(turn, tool_call, position)
            if choice.get("finish_reason"):
                turn.finish_reason = choice["finish_reason"]

    def on_text(self, turn: Turn, text: str) -> None:
        message = self.open_message(turn)
        message.text += text
        self.touch(turn, message)
        turn.emit("response.output_text.delta", **where(message), content_index=0, delta=text, logprobs=[])

    def open_message(self, turn: Turn) -> Item:
        """The message item text goes to, added at the front if there is none open."""
        self.add_pending_calls(turn)  # text after a call's name: the name is complete
        if turn.message is None:
            message = turn.message = Item("message", self.new_id("msg"))
            self.touch(turn, message, start=True)
            self.add(turn, message, {"type": "message", "status": "in_progress", "content": [], "role": "assistant"})
            turn.emit("response.content_part.added", **where(message), content_index=0, part=text_part(""))
        return turn.message

    def on_tool_call(self, turn: Turn, tool_call: Json, position: int) -> None:
        """One `delta.tool_calls[]` entry. A call is added at the front once its name is complete: when its
        arguments start after the name, when another call starts, or at the finish."""
        index = tool_call.get("index")
        if not isinstance(index, int):  # not allowed, but seen: assume the entries are in call order
            index = position
        function = tool_call.get("function") or {}
        call = turn.calls.get(index)
        if call is None:
            self.add_pending_calls(turn)  # another call starts: the earlier calls' names are complete
            call = turn.calls[index] = Item("function_call", self.new_id("fc"))
            self.touch(turn, call, start=True)
        if call.upstream_id is None and call.output_index < 0:
            call.upstream_id = tool_call.get("id") or None
        arguments = function.get("arguments") or ""
        if call.output_index < 0:
            if not (call.name and arguments):  # once arguments follow the name, later names are repeats
                call.name = self.merge_name(call.name, function.get("name") or "")
            if call.name and arguments:
                self.add_call(turn, call)
        if arguments:
            self.on_arguments(turn, call, arguments)

    def merge_name(self, name: str, fragment: str) -> str:
        return name + fragment

    def on_arguments(self, turn: Turn, call: Item, fragment: str) -> None:
        call.text += fragment
        self.touch(turn, call)
        if call.output_index >= 0:  # else buffered: sent as one delta when the call is added
            turn.emit("response.function_call_arguments.delta", **where(call), delta=fragment)

    def add_pending_calls(self, turn: Turn) -> None:
        for call in turn.calls.values():
            if call.output_index < 0 and call.name:
                self.add_call(turn, call)

    def add_call(self, turn: Turn, call: Item) -> None:
        if turn.message is not None:  # text before a call is its own message; later text starts a new one
            self.close(turn, turn.message, "completed")
            turn.message = None
        call.call_id = self.call_id(turn, call.upstream_id)
        self.add(turn, call, {"type": "function_call", "status": "in_progress", "arguments": "",
                              "call_id": call.call_id, "name": call.name})
        if call.text:
            turn.emit("response.function_call_arguments.delta", **where(call), delta=call.text)

    def add(self, turn: Turn, item: Item, fields: Json) -> None:
        item.output_index = len(turn.items)
        turn.items.append(item)
        turn.emit("response.output_item.added", output_index=item.output_index, item={"id": item.id, **fields})

    def touch(self, turn: Turn, item: Item, *, start: bool = False) -> None:
        turn.clock += 1
        item.touched = turn.clock
        if start:
            turn.last_start = turn.clock

    def close(self, turn: Turn, item: Item, status: str) -> None:
        if item.type == "message":
            turn.emit("response.output_text.done", **where(item), content_index=0, text=item.text, logprobs=[])
            turn.emit("response.content_part.done", **where(item), content_index=0, part=text_part(item.text))
            item.done = {"id": item.id, "type": "message", "status": status, "content": [text_part(item.text)],
                         "role": "assistant"}
        else:
            arguments = self.final_arguments(item.text)
            if arguments and not item.text:
                turn.emit("response.function_call_arguments.delta", **where(item), delta=arguments)
            turn.emit("response.function_call_arguments.done", **where(item), name=item.name, arguments=arguments)
            item.done = {"id": item.id, "type": "function_call", "status": status, "arguments": arguments,
                         "call_id": item.call_id, "name": item.name}
        turn.emit("response.output_item.done", output_index=item.output_index, item=item.done)

    def final_arguments(self, arguments: str) -> str:
        """A call without arguments gets '{}': clients json-decode the arguments."""
        return arguments or "{}"

    # -- endings ------------------------------------------------------------------------------------------

    def finish(self, turn: Turn) -> None:
        """The upstream ended properly: close every open item and send the terminal event."""
        if turn.finish_reason is None:
            self.on_upstream_cut(turn, "the upstream stream ended without a finish_reason")
            return
        for call in turn.calls.values():
            if call.output_index < 0:
                if not call.name:
                    raise UpstreamError("bad_upstream_response", "the upstream sent a tool call without a name")
                self.add_call(turn, call)
        status, reason = self.status_for(turn.finish_reason)

        def cut(item: Item) -> bool:  # still being written when the upstream stopped: no item started since
            return status == "incomplete" and item.touched >= turn.last_start

        for item in sorted((i for i in turn.items if i.done is None), key=lambda i: (cut(i), i.output_index)):
            self.close(turn, item, "incomplete" if cut(item) else "completed")
        self.terminate(turn, status, incomplete_details={"reason": reason} if reason else None)

    def status_for(self, finish_reason: str) -> tuple[str, str | None]:
        return FINISH.get(finish_reason, ("completed", None))

    def on_upstream_cut(self, turn: Turn, message: str) -> None:
        """The upstream dropped or ended early: whatever was streamed is unfinished, never `completed`."""
        self.fail(turn, "upstream_disconnected", message)

    def fail(self, turn: Turn, code: str, message: str) -> None:
        """response.failed; items still open stay open (their content is cut)."""
        self.terminate(turn, "failed", error={"code": code, "message": message})

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        turn.result = self.response_object(turn, status, **fields)
        turn.emit(TERMINAL[status], response=turn.result)
        turn.closed = True

    # -- non-stream ---------------------------------------------------------------------------------------

    def translate_completion(self, front: Json, completion: Any) -> Json:
        """A non-stream upstream body through the same translation as a stream (`completion_chunks`), so both
        agree."""
        turn = self.new_turn(front)
        self.start(turn)
        try:
            if not isinstance(completion, dict):
                raise UpstreamError("bad_upstream_response", "the upstream body is not a JSON object")
            for chunk in self.completion_chunks(completion):
                self.on_chunk(turn, chunk)
            self.finish(turn)
        except UpstreamError as exc:
            self.fail(turn, exc.code, str(exc))
        assert turn.result is not None
        return turn.result

    def completion_chunks(self, completion: Json) -> list[Json]:
        """A chat.completion as the one chunk that streams the same content."""
        return [completion_as_chunk(completion)]

    # -- the Responses front ------------------------------------------------------------------------------

    def new_turn(self, front: Json) -> Turn:
        return Turn(front, self.new_id("resp"), str(front.get("model") or ""))

    def start(self, turn: Turn) -> None:
        turn.emit("response.created", response=self.response_object(turn, "in_progress"))
        turn.emit("response.in_progress", response=self.response_object(turn, "in_progress"))

    def response_object(self, turn: Turn, status: str, *, error: Json | None = None,
                        incomplete_details: Json | None = None) -> Json:
        front = turn.front
        return {
            "id": turn.id, "object": "response", "created_at": turn.created_at, "status": status,
            "completed_at": int(time.time()) if status == "completed" else None,
            "error": error, "incomplete_details": incomplete_details,
            "instructions": front.get("instructions"), "max_output_tokens": front.get("max_output_tokens"),
            "model": turn.model, "output": [item.done for item in turn.items if item.done is not None],
            "parallel_tool_calls": front.get("parallel_tool_calls", True),
            "tool_choice": front.get("tool_choice", "auto"), "tools": front.get("tools") or [],
            "usage": turn.usage if status in ("completed", "incomplete") else None, "metadata": {},
        }

    def translate_usage(self, usage: Json) -> Json:
        prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0
        written = (usage.get("prompt_tokens_details") or {}).get("cache_write_tokens") or 0
        inputs = {"cache_write_tokens": written, "cached_tokens": cached}
        return {"input_tokens": prompt, "input_tokens_details": inputs,
                "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": reasoning},
                "total_tokens": usage.get("total_tokens") or prompt + completion}

    def flush(self, turn: Turn) -> bytes:
        return b"".join(self.encode_event(event) for event in turn.take())

    def encode_event(self, event: Json) -> bytes:
        data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        return f"event: {event['type']}\ndata: {data}\n\n".encode()

    # -- ids ----------------------------------------------------------------------------------------------

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{secrets.token_hex(24)}"

    def call_id(self, turn: Turn, upstream_id: str | None) -> str:
        """The upstream's tool-call id, or a new one when it has none or repeats one already used."""
        call_id = upstream_id if upstream_id and upstream_id not in turn.call_ids else self.new_id("call")
        turn.call_ids.add(call_id)
        return call_id

    # -- errors -------------------------------------------------------------------------------------------

    def error_response(self, front: Json, upstream: httpx.Response, content: bytes) -> Response:
        """An upstream HTTP error stays an HTTP error: same status, OpenAI error body, Retry-After kept."""
        status = upstream.status_code
        try:
            payload: Any = json.loads(content)
        except ValueError:
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        if not isinstance(error, dict):
            text = error if isinstance(error, str) else content.decode("utf-8", "replace")[:500]
            error = {"message": text or f"The upstream answered HTTP {status}."}
        kind = error.get("type") or ("server_error" if status >= 500 else "invalid_request_error")
        return error_json(status, str(error.get("message")), str(kind), error.get("code"), error.get("param"),
                          headers=self.error_headers(upstream))

    def error_headers(self, upstream: httpx.Response) -> dict[str, str]:
        return {name: upstream.headers[name] for name in ERROR_HEADERS if name in upstream.headers}


# -- helpers ------------------------------------------------------------------------------------------------


def where(item: Item) -> Json:
    return {"item_id": item.id, "output_index": item.output_index}


def text_part(text: str) -> Json:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def input_items(front: Json) -> list[Json]:
    """The input items; a bare string input is one user message."""
    items = front.get("input") or []
    return [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items)


def text_of(content: Any) -> str:
    """Message content or a tool output as one string (parts joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else json.dumps(content)


async def sse_lines(upstream: httpx.Response) -> AsyncIterator[str]:
    """The body's lines, ended by CRLF, LF or CR only (WHATWG SSE). Not httpx's aiter_lines(): it also breaks at
    U+2028, U+2029 and U+0085, which JSON strings may carry raw, and would cut a `data:` line in two."""
    buffer = ""
    async for text in upstream.aiter_text():
        buffer += text
        cut = len(buffer) - 1 if buffer.endswith("\r") else len(buffer)  # a final CR may be half of a CRLF
        *lines, rest = SSE_EOL.split(buffer[:cut])
        buffer = rest + buffer[cut:]
        for line in lines:
            yield line
    for line in SSE_EOL.split(buffer)[:-1]:  # lines the body ended; an unterminated last line is dropped
        yield line


async def read_sse(upstream: httpx.Response) -> AsyncIterator[str]:
    """The `data:` of each SSE event of the upstream body; a dropped connection raises UpstreamCut."""
    data: list[str] = []
    try:
        async for line in sse_lines(upstream):
            if line:
                name, _, value = line.partition(":")
                if name == "data":
                    data.append(value.removeprefix(" "))
            elif data:
                yield "\n".join(data)
                data = []
    except httpx.HTTPError as exc:
        raise UpstreamCut(f"the upstream connection failed mid-stream: {exc!r}") from None


def parse_chunk(data: str) -> Json | None:
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise UpstreamError("bad_upstream_response", f"malformed upstream chunk: {exc}") from None
    return chunk if isinstance(chunk, dict) else None


def upstream_error(error: Any, code_field: str) -> UpstreamError:
    """An error object the upstream sent with status 200 (chat: {code, message}; Anthropic: {type, message})."""
    code = error.get(code_field) if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return UpstreamError(str(code or "upstream_error"), str(message or "The upstream failed."))


def completion_as_chunk(completion: Json) -> Json:
    if "error" in completion:
        return completion
    choice = (completion.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    calls = [{"index": index, **call} for index, call in enumerate(message.get("tool_calls") or [])]
    return {"choices": [{"index": 0, "delta": {"content": message.get("content"), "tool_calls": calls},
                         "finish_reason": choice.get("finish_reason")}], "usage": completion.get("usage")}


def error_json(status: int, message: str, type: str, code: Any = None, param: Any = None,
               headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return JSONResponse(body, status_code=status, headers=headers)


# -- the Anthropic Messages upstream ------------------------------------------------------------------------


class AnthropicGateway(Gateway):
    """Responses front, Anthropic Messages upstream (`POST /v1/messages`): only the upstream half differs.

    Anthropic streams whole content blocks one after another: a tool_use block's id and name come on its
    content_block_start, so the call is added at the front right there, and its input_json_delta fragments are
    its arguments. Items stay open until message_delta's stop_reason says how the turn ended (`STOP_REASONS`);
    message_stop ends the stream, an `error` event fails it. The non-stream Message plays as the same events.
    """

    upstream_path = "/messages"
    version = "2023-06-01"
    default_max_tokens = 4096  # Anthropic requires max_tokens; Responses does not

    def upstream_headers(self, request: Request) -> dict[str, str]:
        """The client's bearer token becomes the x-api-key."""
        headers = {"anthropic-version": self.version}
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token:
            headers["x-api-key"] = token
        return headers

    # -- request translation (Responses -> Anthropic Messages) -------------------------------------------

    def translate_request(self, front: Json) -> Json:
        max_tokens = front.get("max_output_tokens") or self.default_max_tokens
        body: Json = {"model": front.get("model"), "max_tokens": max_tokens,
                      "messages": self.translate_messages(front), "stream": front.get("stream") is True}
        system = [front.get("instructions") or ""] + [
            text_of(item.get("content")) for item in input_items(front)
            if item.get("type", "message") == "message" and item.get("role") in ("system", "developer")]
        if any(system):
            body["system"] = "\n\n".join(text for text in system if text)
        tools = [self.translate_tool(t) for t in front.get("tools") or [] if t.get("type", "function") == "function"]
        if tools:
            body["tools"] = tools
            choice = self.translate_tool_choice(front.get("tool_choice"))
            if front.get("parallel_tool_calls") is False and (choice or {}).get("type") != "none":
                choice = {**(choice or {"type": "auto"}), "disable_parallel_tool_use": True}
            if choice is not None:
                body["tool_choice"] = choice
        return {key: value for key, value in body.items() if value is not None}

    def translate_messages(self, front: Json) -> list[Json]:
        """Calls become tool_use blocks of one assistant message, their outputs tool_result blocks of one user
        message; system and developer messages go to `system`."""
        messages: list[Json] = []

        def add_block(role: str, block: Json) -> None:
            previous = messages[-1] if messages else {}
            if previous.get("role") == role and isinstance(previous["content"], list):
                previous["content"].append(block)
            elif previous.get("role") == role:  # text then blocks of the same role: one message
                previous["content"] = [{"type": "text", "text": previous["content"]}, block]
            else:
                messages.append({"role": role, "content": [block]})

        for item in input_items(front):
            kind = item.get("type", "message")
            if kind == "message" and item.get("role", "user") in ("user", "assistant"):
                messages.append({"role": item.get("role", "user"), "content": text_of(item.get("content"))})
            elif kind == "function_call":
                add_block("assistant", {"type": "tool_use", "id": item.get("call_id"), "name": item.get("name"),
                                        "input": json.loads(item.get("arguments") or "{}")})
            elif kind == "function_call_output":
                add_block("user", {"type": "tool_result", "tool_use_id": item.get("call_id"),
                                   "content": text_of(item.get("output"))})
        return messages

    def translate_tool(self, tool: Json) -> Json:
        translated: Json = {key: tool[key] for key in ("name", "description") if key in tool}
        return {**translated, "input_schema": tool.get("parameters") or {"type": "object", "properties": {}}}

    def translate_tool_choice(self, choice: Any) -> Any:
        if isinstance(choice, dict) and choice.get("type") == "function":
            return {"type": "tool", "name": choice.get("name")}
        if isinstance(choice, dict) and choice.get("type") == "allowed_tools":  # no subset: the mode only
            choice = choice.get("mode", "auto")
        return {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}.get(choice)

    # -- upstream stream -> front events ------------------------------------------------------------------

    async def read_chunks(self, upstream: httpx.Response) -> AsyncIterator[Json]:
        """The events of a Messages stream; returns at message_stop, raises UpstreamCut without it."""
        async for data in read_sse(upstream):
            event = parse_chunk(data)
            if event is not None:
                yield event
                if event.get("type") == "message_stop":
                    return
        raise UpstreamCut("the upstream stream ended without message_stop")

    def on_chunk(self, turn: Turn, chunk: Json) -> None:
        kind, index = chunk.get("type"), chunk.get("index")
        if kind == "error":
            raise upstream_error(chunk.get("error"), "type")
        if kind == "message_start":
            self.on_usage(turn, (chunk.get("message") or {}).get("usage") or {})
        elif kind == "content_block_start" and isinstance(index, int):
            self.on_block(turn, index, chunk.get("content_block") or {})
        elif kind == "content_block_delta" and isinstance(index, int):
            delta = chunk.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                self.on_text(turn, delta["text"])
            elif delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                if index not in turn.calls:
                    raise UpstreamError("bad_upstream_response", f"input_json_delta for block {index}, not a tool_use")
                self.on_arguments(turn, turn.calls[index], delta["partial_json"])
        elif kind == "message_delta":
            turn.finish_reason = (chunk.get("delta") or {}).get("stop_reason") or turn.finish_reason
            self.on_usage(turn, chunk.get("usage") or {})
        # content_block_stop, message_stop, ping, thinking blocks and unknown events: nothing to translate

    def on_block(self, turn: Turn, index: int, block: Json) -> None:
        """A text block opens the message at once (the start shows at the front as early as upstream); a tool_use
        block is a call, added at once (its name is whole). A non-stream block carries its whole text or input."""
        if block.get("type") == "text":
            self.open_message(turn)
            if block.get("text"):
                self.on_text(turn, block["text"])
        elif block.get("type") == "tool_use":
            call = turn.calls[index] = Item("function_call", self.new_id("fc"), name=block.get("name") or "",
                                            upstream_id=block.get("id") or None)
            self.touch(turn, call, start=True)
            if call.name:  # else `finish` fails the turn
                self.add_call(turn, call)
            if block.get("input"):
                self.on_arguments(turn, call, json.dumps(block["input"], ensure_ascii=False))

    def on_usage(self, turn: Turn, usage: Json) -> None:
        """message_start has the input tokens, message_delta the cumulative output tokens."""
        raw = turn.upstream_usage = {**turn.upstream_usage, **{k: v for k, v in usage.items() if v is not None}}
        cached = raw.get("cache_read_input_tokens") or 0
        prompt = (raw.get("input_tokens") or 0) + cached + (raw.get("cache_creation_input_tokens") or 0)
        details = {"cached_tokens": cached, "cache_write_tokens": raw.get("cache_creation_input_tokens") or 0}
        turn.usage = self.translate_usage({"prompt_tokens": prompt, "completion_tokens": raw.get("output_tokens"),
                                           "prompt_tokens_details": details})

    def status_for(self, finish_reason: str) -> tuple[str, str | None]:
        return STOP_REASONS.get(finish_reason, ("completed", None))

    def completion_chunks(self, completion: Json) -> list[Json]:
        """A Message as the events that stream it (each block whole on its content_block_start)."""
        if completion.get("type") == "error" or "error" in completion:
            return [{"type": "error", "error": completion.get("error")}]
        blocks = [{"type": "content_block_start", "index": index, "content_block": block}
                  for index, block in enumerate(completion.get("content") or []) if isinstance(block, dict)]
        return [{"type": "message_start", "message": {"usage": completion.get("usage") or {}}}, *blocks,
                {"type": "message_delta", "delta": {"stop_reason": completion.get("stop_reason")}}]


#: Upstream dialects this gateway speaks.
DIALECTS: dict[str, type[Gateway]] = {"chat": Gateway, "anthropic": AnthropicGateway}


def create_app(upstream: str, *, dialect: str = "chat", gateway: type[Gateway] | None = None) -> Starlette:
    """The gateway as an ASGI app: `upstream` is the upstream base URL including /v1."""
    return (gateway or DIALECTS[dialect])(upstream).app()


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="A Responses API gateway in front of a Chat Completions or an "
                                     "Anthropic Messages upstream.")
    parser.add_argument("--upstream", required=True, help="upstream base URL including /v1")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--upstream-dialect", choices=sorted(DIALECTS), default="chat")
    return parser


def serve(app: Starlette, host: str, port: int) -> None:
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    serve(create_app(args.upstream, dialect=args.upstream_dialect), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
