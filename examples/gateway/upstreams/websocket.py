"""The OpenAI Responses upstream over the Responses API's WebSocket mode (`--upstream-transport websocket`).

One socket per answer (`ws://.../v1/responses`, the upstream URL's scheme made ws/wss): the request goes as a
`response.create` message (the Responses body without `stream`), the answer comes as one JSON message per event,
read by the Responses upstream's own event reader. An `error` event before the response began is the HTTP error it
stands for (its `status`, its `error` object, `Retry-After` from `error.headers`); a socket that closes before the
terminal event cuts the answer (`UpstreamCut`). Closing the iterator closes the socket: a client that goes away
cancels the upstream turn. The upstream keeps no state for the gateway: every request carries the whole
conversation, so no `previous_response_id` is sent.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ..model import Event, Json, Request, UpstreamCut, UpstreamHTTPError
from ..wire import parse_json_event
from .base import redact_credentials
from .responses import TERMINAL, ReadState, ResponsesUpstream

__all__ = ["WebSocketUpstream", "ws_url"]


def ws_url(url: str) -> str:
    """`url` with an http(s) scheme made ws(s); a ws(s) URL as it is."""
    for http, ws in (("https://", "wss://"), ("http://", "ws://")):
        if url.startswith(http):
            return ws + url.removeprefix(http)
    return url


class WebSocketUpstream(ResponsesUpstream):
    transport = "websocket"

    def create_message(self, request: Request) -> Json:
        body = {key: value for key, value in self.translate_request(request).items() if key != "stream"}
        return {"type": "response.create", **body}

    def error_of(self, event: Json) -> UpstreamHTTPError:
        """An error event before the response began, as the HTTP error it stands for."""
        nested = event.get("error")
        error: Json = nested if isinstance(nested, dict) else event
        status = event.get("status")
        status = status if isinstance(status, int) and 400 <= status <= 599 else 502
        given = error.get("headers")
        headers: Json = given if isinstance(given, dict) else {}
        kept = {str(k).lower(): str(v) for k, v in headers.items()
                if str(k).lower() in ("retry-after", "retry-after-ms")}
        kind = error.get("type") or ("server_error" if status >= 500 else "invalid_request_error")
        return UpstreamHTTPError(status, str(error.get("message") or f"The upstream answered {status}."), str(kind),
                                 error.get("code"), error.get("param"), kept)

    async def open(self, base_url: str, request: Request, authorization: str | None) \
            -> AsyncIterator[Event] | UpstreamHTTPError:
        """The upstream's answer to `request` as neutral events, or its error before the response began."""
        url = ws_url(base_url.rstrip("/")) + self.path
        # The connection is entered as the asynchronous context manager websockets documents; closing the stack
        # closes the socket.
        stack = contextlib.AsyncExitStack()
        try:
            socket = await stack.enter_async_context(connect(
                url, additional_headers=self.headers(authorization) or None, open_timeout=10, max_size=None,
                proxy=None))
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            return UpstreamHTTPError(502, f"The upstream WebSocket could not be opened ({exc!r}).", "server_error")
        try:
            await socket.send(json.dumps(self.create_message(request), ensure_ascii=False))
            first = await self.receive(socket)
        except UpstreamCut as exc:
            await stack.aclose()
            return UpstreamHTTPError(502, f"The upstream failed to answer ({exc}).", "server_error")
        except BaseException:  # cancelled while waiting for the first message (the client went away): close it
            await stack.aclose()
            raise
        if first is not None and first.get("type") == "error":
            await stack.aclose()
            error = self.error_of(first)  # its message without the credentials sent (GW-FAULT-005)
            error.message = redact_credentials(error.message, httpx.Request("GET", url, headers=self.headers(
                authorization)))
            return error
        return self.read(socket, first, stack)

    async def receive(self, socket: ClientConnection) -> Json | None:
        try:
            data: Any = await socket.recv()
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            raise UpstreamCut(f"the upstream closed the socket before the response ended (close code {code})") \
                from None
        return parse_json_event(data if isinstance(data, str) else data.decode("utf-8", "replace"))

    async def read(self, socket: ClientConnection, first: Json | None,
                   stack: contextlib.AsyncExitStack[bool | None]) -> AsyncIterator[Event]:
        state = ReadState()
        event = first
        try:
            while True:
                if event is not None:
                    for neutral in self.on_event(state, event):
                        yield neutral
                    if event.get("type") in TERMINAL:
                        return
                event = await self.receive(socket)
        finally:
            await stack.aclose()
