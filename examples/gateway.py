"""A reference gateway: serves the OpenAI Responses API (`POST /v1/responses`) in front of a Chat Completions
upstream, translating requests one way and the upstream's stream back, event by event, as it arrives.

    python examples/gateway.py --upstream http://127.0.0.1:8000/v1 --port 8080

Check it against the callproof mock:  callproof run --launch 'python examples/gateway.py --upstream {upstream}
--port {port}'. `Gateway` is built from small methods so that a subclass can change one behaviour at a time
(tests/fakes/gateways.py breaks it on purpose, one defect per subclass).

The front half (the per-response `Turn`, Responses events and objects) does not depend on the upstream. Another
upstream dialect subclasses `Gateway`, overrides the upstream half (`upstream_path`, `translate_request`,
`read_chunks`, `on_chunk`, `translate_completion`) and registers itself in `DIALECTS`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
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
    "DIALECTS", "Gateway", "Item", "Turn", "UpstreamCut", "UpstreamError", "create_app", "main", "parser", "serve",
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
TERMINAL = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}
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
    calls: dict[int, Item] = field(default_factory=dict)  # by chat tool_calls[].index
    message: Item | None = None  # the message item text goes to, until a call is added
    call_ids: set[str] = field(default_factory=set)
    finish_reason: str | None = None
    usage: Json | None = None
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
        except (AttributeError, TypeError, KeyError) as exc:
            return error_json(400, f"The request does not have the Responses API shape ({exc!r}).",
                              "invalid_request_error")
        headers = {"authorization": request.headers["authorization"]} if "authorization" in request.headers else {}
        outgoing = self.client.build_request("POST", self.upstream_url, json=chat, headers=headers)
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
        items = front.get("input") or []
        for item in [{"role": "user", "content": items}] if isinstance(items, str) else items:
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
        data: list[str] = []
        try:
            async for line in upstream.aiter_lines():
                if line:
                    name, _, value = line.partition(":")
                    if name == "data":
                        data.append(value.removeprefix(" "))
                    continue
                if not data:
                    continue
                payload, data = "\n".join(data), []
                if payload == "[DONE]":
                    return
                try:
                    chunk = json.loads(payload)
                except ValueError as exc:
                    raise UpstreamError("bad_upstream_response", f"malformed upstream chunk: {exc}") from None
                if isinstance(chunk, dict):
                    yield chunk
        except httpx.HTTPError as exc:
            raise UpstreamCut(f"the upstream connection failed mid-stream: {exc!r}") from None
        raise UpstreamCut("the upstream stream ended without data: [DONE]")

    def on_chunk(self, turn: Turn, chunk: Json) -> None:
        error = chunk.get("error")
        if error:
            code = error.get("code") if isinstance(error, dict) else None
            message = error.get("message") if isinstance(error, dict) else error
            raise UpstreamError(str(code or "upstream_error"), str(message or "The upstream failed."))
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
        self.add_pending_calls(turn)  # text after a call's name: the name is complete
        message = turn.message
        if message is None:
            message = turn.message = Item("message", self.new_id("msg"))
            self.touch(turn, message, start=True)
            self.add(turn, message, {"type": "message", "status": "in_progress", "content": [], "role": "assistant"})
            turn.emit("response.content_part.added", **where(message), content_index=0, part=text_part(""))
        message.text += text
        self.touch(turn, message)
        turn.emit("response.output_text.delta", **where(message), content_index=0, delta=text, logprobs=[])

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
        """A chat.completion as one chunk through the same translation as a stream, so both agree."""
        turn = self.new_turn(front)
        self.start(turn)
        try:
            if not isinstance(completion, dict):
                raise UpstreamError("bad_upstream_response", "the upstream body is not a JSON object")
            self.on_chunk(turn, completion_as_chunk(completion))
            self.finish(turn)
        except UpstreamError as exc:
            self.fail(turn, exc.code, str(exc))
        assert turn.result is not None
        return turn.result

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
        return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached},
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


def text_of(content: Any) -> str:
    """Message content or a tool output as one string (parts joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else json.dumps(content)


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


#: Upstream dialects this gateway speaks (Anthropic Messages: a later subclass).
DIALECTS: dict[str, type[Gateway]] = {"chat": Gateway}


def create_app(upstream: str, *, dialect: str = "chat", gateway: type[Gateway] | None = None) -> Starlette:
    """The gateway as an ASGI app: `upstream` is the upstream base URL including /v1."""
    return (gateway or DIALECTS[dialect])(upstream).app()


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="A Responses API gateway in front of a Chat Completions upstream.")
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
