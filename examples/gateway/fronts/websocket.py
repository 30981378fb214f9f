"""The Responses API's WebSocket mode on the Responses front's path (a GET upgrade of `/v1/responses`).

The client sends `response.create` messages (the `POST /v1/responses` body without `stream`, plus `"type":
"response.create"`); the gateway answers each with the same events as its HTTP Responses front streams, one JSON
text message per event (no SSE framing). The mode's own rules (docs/spec/gateway-websocket.md):

- one response in flight per socket: a `response.create` that comes while one is being answered gets an `error`
  event with code `response_already_in_flight` and is not played (the one in flight goes on);
- `previous_response_id` continues the connection's last response: the upstream (stateless: every dialect the
  gateway speaks takes the whole conversation) gets that response's input and output items, then the new input;
  any other id gets an `error` event with code `previous_response_not_found`;
- `generate: false` (a warm-up) answers an empty completed response without calling the upstream, and remembers
  its input for the next turn;
- an upstream failure never closes the socket: an HTTP error becomes an `error` event with the upstream's status
  (`{"type": "error", "status": N, "error": {"type", "code", "message", "param"}}`, Retry-After in
  `error.headers`), a failure after the stream began the front's `response.failed`;
- closing the socket cancels the response in flight, and so its upstream request (the upstream connection is
  closed, not drained).

Everything one socket holds lives in one `Connection`; the front object is stateless and shared.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..model import Event, Json, Request, Untranslatable, UpstreamHTTPError
from .responses import TERMINAL, ResponsesFront, Turn, input_items

__all__ = ["Connection", "OpenUpstream", "WebSocketFront", "error_event"]

log = logging.getLogger("gateway")

#: The upstream call of one response: its neutral events (an iterator that closes the upstream request when it is
#: closed or cancelled), or the upstream's HTTP error. Raises one of `BAD_SHAPE` for a request it cannot translate.
OpenUpstream = Callable[[Request, "str | None"], Awaitable["AsyncIterator[Event] | UpstreamHTTPError"]]
#: What a request the front cannot translate raises (the client's fault: an invalid_request_error event).
BAD_SHAPE = (AttributeError, TypeError, KeyError, ValueError)


def error_event(status: int, type: str, code: str | None, message: str, param: str | None = None,
                headers: dict[str, str] | None = None) -> Json:
    """The WebSocket mode's error event (the SDK's `ResponseWsError`)."""
    error: Json = {"type": type, "code": code, "message": message, "param": param}
    if headers:
        error["headers"] = headers
    return {"type": "error", "status": status, "error": error}


class WebSocketFront(ResponsesFront):
    """The Responses front over a WebSocket: the same turn, each event encoded as one JSON line (a message)."""

    transport = "websocket"

    def encode_event(self, event: Json) -> bytes:
        return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    def messages(self, output: bytes) -> list[str]:
        """The messages of one flush: one per event."""
        return [line.decode() for line in output.split(b"\n") if line]

    # -- the mode's own answers (subclasses in tests/fakes break them one at a time) ---------------------------

    def in_flight_error(self) -> Json | None:
        """The answer to a `response.create` while a response is in flight (None: play it anyway)."""
        return error_event(400, "invalid_request_error", "response_already_in_flight",
                           "A response is already in flight on this connection; wait for its terminal event "
                           "(response.completed, response.incomplete, response.failed or error) before sending "
                           "another response.create.")

    def continuation(self, connection: Connection, previous: str) -> list[Json] | Json:
        """The items a continuation of `previous` starts from (the last response's input and output), or the
        error event when the connection has no such response."""
        if connection.last is not None and connection.last[0] == previous:
            return list(connection.last[1])
        return error_event(400, "invalid_request_error", "previous_response_not_found",
                           f"Previous response with id {previous!r} not found on this connection: a WebSocket "
                           "continues only its own last response. Send the whole conversation as input instead.",
                           "previous_response_id")

    def upstream_error_event(self, error: UpstreamHTTPError) -> Json:
        """An upstream HTTP error (or no answer) before the stream began, as an error event: the socket stays."""
        code = error.code if isinstance(error.code, str) or error.code is None else str(error.code)
        param = error.param if isinstance(error.param, str) or error.param is None else str(error.param)
        return error_event(error.status, error.type, code, error.message, param, dict(error.headers) or None)

    def close_after_failure(self) -> bool:
        """Whether the socket is closed after a turn whose upstream failed (never: the socket serves on)."""
        return False

    def connect(self, socket: WebSocket, open_upstream: OpenUpstream, authorization: str | None) -> Connection:
        """The `Connection` that serves one client socket (what one socket holds lives there)."""
        return Connection(socket, self, open_upstream, authorization)

    def remembered(self, items: list[Json], response: Json) -> list[Json] | None:
        """The conversation a later `previous_response_id` continues, after `response` ended (None: forget it;
        a failed response is not continued)."""
        if response.get("status") not in ("completed", "incomplete"):
            return None
        return [*items, *(item for item in response.get("output") or [] if isinstance(item, dict))]


@dataclass(eq=False)
class Connection:
    """One client socket: the response in flight and the last response (its id and conversation items)."""

    socket: WebSocket
    front: WebSocketFront
    open_upstream: OpenUpstream
    authorization: str | None = None
    task: asyncio.Task[None] | None = None
    last: tuple[str, list[Json]] | None = None
    #: A response is being answered: from its create until its terminal (or error) event is about to be sent (the
    #: task may still be closing the upstream then; the client may already send the next create).
    answering: bool = False
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def serve(self) -> None:
        """Accept, answer every `response.create` until the client closes; then cancel what is in flight."""
        await self.socket.accept()
        try:
            while True:
                message = await self.socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None and message.get("bytes") is not None:
                    text = message["bytes"].decode("utf-8", "replace")
                await self.on_message(text or "")
        except WebSocketDisconnect:
            pass
        finally:
            await self.cancel()

    async def cancel(self) -> None:
        """The client went away: cancel the response in flight (its upstream request is closed)."""
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    @property
    def in_flight(self) -> bool:
        return self.answering and self.task is not None and not self.task.done()

    async def send(self, messages: list[str]) -> bool:
        """Send messages in order; False when the socket is gone."""
        async with self.sending:
            try:
                for message in messages:
                    await self.socket.send_text(message)
            except (WebSocketDisconnect, RuntimeError, OSError):
                return False
        return True

    async def send_event(self, event: Json) -> None:
        await self.send([json.dumps(event, ensure_ascii=False, separators=(",", ":"))])

    async def on_message(self, text: str) -> None:
        try:
            body: Any = json.loads(text)
        except ValueError:
            await self.send_event(error_event(400, "invalid_request_error", "invalid_json",
                                              "The message is not valid JSON."))
            return
        if not isinstance(body, dict) or body.get("type") != "response.create":
            kind = body.get("type") if isinstance(body, dict) else None
            await self.send_event(error_event(400, "invalid_request_error", "unsupported_event",
                                              f"Unsupported client event {kind!r}: this gateway takes "
                                              "response.create.", "type"))
            return
        if self.in_flight:
            refusal = self.front.in_flight_error()
            if refusal is not None:
                await self.send_event(refusal)
                return
        await self.create(body)

    async def create(self, event: Json) -> None:
        body = {key: value for key, value in event.items() if key not in ("type", "stream_id", "generate")}
        items = input_items(body)
        previous = body.pop("previous_response_id", None)
        if previous:
            earlier = self.front.continuation(self, str(previous))
            if isinstance(earlier, dict):
                await self.send_event(earlier)
                return
            items = [*earlier, *items]
        body.update(input=items, stream=True)
        try:
            request = self.front.parse_request(body)
        except BAD_SHAPE as exc:
            await self.send_event(error_event(400, "invalid_request_error", None,
                                              f"The request does not have the responses shape ({exc!r})."))
            return
        if previous:  # echoed in the Response object (the upstream gets the whole conversation instead)
            request.front["previous_response_id"] = previous
        play = self.warm_up(request, items) if event.get("generate") is False else self.play(request, items)
        self.answering = True
        self.task = asyncio.create_task(play)

    async def warm_up(self, request: Request, items: list[Json]) -> None:
        """`generate: false`: an empty completed response, no upstream call; its input is remembered."""
        front = self.front
        turn: Turn = front.new_turn(request)
        front.start(turn)
        front.terminate(turn, "completed")
        assert turn.result is not None
        self.remember(items, turn.result)
        self.answering = False
        await self.send(front.messages(front.flush(turn)))

    async def play(self, request: Request, items: list[Json]) -> None:
        try:
            answer = await self.open_upstream(request, self.authorization)
        except BAD_SHAPE as exc:
            self.answering = False
            message = f"This gateway cannot carry the request to its upstream: {exc}" if isinstance(
                exc, Untranslatable) else f"The request does not have the responses shape ({exc!r})."
            await self.send_event(error_event(400, "invalid_request_error", None, message))
            return
        if isinstance(answer, UpstreamHTTPError):
            self.answering = False
            await self.send_event(self.front.upstream_error_event(answer))
            if self.front.close_after_failure():
                await self.socket.close(1011)
            return
        terminal: Json | None = None
        stream = self.front.stream_events(request, answer)
        try:
            async for output in stream:
                messages = self.front.messages(output)
                for message in messages:
                    if '"type":"response.' in message:  # cheap filter before parsing
                        event = json.loads(message)
                        if event.get("type") in TERMINAL.values():
                            terminal = event.get("response")
                            if isinstance(terminal, dict):  # remembered before the client can continue it
                                self.remember(items, terminal)
                            self.answering = False
                if not await self.send(messages):
                    return  # the client went away: closing the stream closes the upstream request
        finally:
            self.answering = False
            await aclose(stream)
            await aclose(answer)
        if (terminal is None or terminal.get("status") == "failed") and self.front.close_after_failure():
            await self.socket.close(1011)

    def remember(self, items: list[Json], response: Json) -> None:
        kept = self.front.remembered(items, response)
        self.last = None if kept is None else (str(response.get("id")), kept)


async def aclose(iterator: AsyncIterator[Any]) -> None:
    """Close an async generator (its `finally` runs now, not when it is collected)."""
    closer = getattr(iterator, "aclose", None)
    if closer is not None:
        await closer()
