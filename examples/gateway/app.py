"""The gateway: every front on its path, one upstream behind them, and the HTTP between (the upstream call, its
HTTP errors, streaming the answer through the front as it arrives). Also the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, NoReturn, TypeVar

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket

from .custom_tools import MODES, CallsBack, custom_tools_mode
from .fronts import AnthropicFront, ChatFront, Front, ResponsesFront, WebSocketFront
from .model import Event, Request, Untranslatable, UpstreamError, UpstreamHTTPError
from .state import StatefulRefusal
from .upstreams import AnthropicUpstream, ChatUpstream, ResponsesUpstream, Upstream, WebSocketUpstream

__all__ = ["FRONTS", "UPSTREAMS", "Gateway", "create_app", "main", "parser", "serve"]

#: The fronts the gateway serves, each on its path.
FRONTS: tuple[type[Front[Any]], ...] = (ResponsesFront, ChatFront, AnthropicFront)
#: The upstream dialects it speaks (`--upstream-dialect`).
UPSTREAMS: dict[str, type[Upstream]] = {"chat": ChatUpstream, "anthropic": AnthropicUpstream,
                                        "responses": ResponsesUpstream}
#: Request shapes a front or upstream cannot translate: the client's fault (HTTP 400).
BAD_SHAPE = (AttributeError, TypeError, KeyError, ValueError)


class Gateway:
    """Every front of `fronts` in front of one `upstream` at the base URL `upstream_url` (ending in /v1)."""

    def __init__(self, upstream_url: str, upstream: Upstream, fronts: Sequence[Front[Any]],
                 websocket: WebSocketFront | None = None) -> None:
        self.upstream_url = upstream_url.rstrip("/")
        self.upstream = upstream
        self.fronts = list(fronts)
        self._client: httpx.AsyncClient | None = None
        #: The Responses WebSocket mode on the Responses front's path (None: no WebSocket front).
        self.websocket: WebSocketFront | None = websocket

    def app(self) -> Starlette:
        routes: list[BaseRoute] = [Route(front.path, self.endpoint(front), methods=["POST"]) for front in self.fronts]
        if self.websocket is not None:
            routes.append(WebSocketRoute(self.websocket.path, self.websocket_endpoint))
        return Starlette(routes=routes, lifespan=self._lifespan)

    async def websocket_endpoint(self, socket: WebSocket) -> None:
        """One client socket of the Responses WebSocket mode (fronts/websocket.py)."""
        assert self.websocket is not None
        await self.websocket.connect(socket, self.stream_upstream, socket.headers.get("authorization")).serve()

    async def stream_upstream(self, request: Request, authorization: str | None) -> AsyncIterator[Event] \
            | UpstreamHTTPError:
        """The upstream's streamed answer to `request` as neutral events (closing the iterator closes the upstream
        request), or its HTTP error (502/504 when it gave no answer). Raises one of BAD_SHAPE."""
        if isinstance(self.upstream, WebSocketUpstream):  # the Responses WebSocket mode: a socket per answer
            return await self.upstream.open(self.upstream_url, request, authorization)
        outgoing = self.upstream.translate_request(request)
        sent = self.client.build_request("POST", self.upstream_url + self.upstream.path, json=outgoing,
                                         headers=self.upstream.headers(authorization))
        try:
            answer = await self.client.send(sent, stream=True)
        except httpx.HTTPError as exc:
            late = isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout)
            return UpstreamHTTPError(504 if late else 502, f"The upstream failed to answer ({exc!r}).", "server_error")
        if answer.status_code >= 400:
            try:
                content = await answer.aread()
            except httpx.HTTPError:
                content = b""
            finally:
                await answer.aclose()
            return self.upstream.http_error(answer, content)
        return self.closing_events(answer, self.upstream.calls_back(request))

    async def closing_events(self, answer: httpx.Response, back: CallsBack | None = None) -> AsyncIterator[Event]:
        try:
            async for event in self.upstream.events(answer):
                for neutral in back.see(event) if back is not None else [event]:
                    yield neutral
        finally:
            await answer.aclose()

    def endpoint(self, front: Front[Any]) -> Callable[[HTTPRequest], Awaitable[Response]]:
        async def endpoint(request: HTTPRequest) -> Response:
            return await self.handle(front, request)
        return endpoint

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

    async def handle(self, front: Front[Any], http: HTTPRequest) -> Response:
        try:
            body = await http.json()
        except ValueError:
            return front.invalid_request("The request body is not valid JSON.")
        if not isinstance(body, dict):
            return front.invalid_request("The request body must be a JSON object.")
        try:
            request = front.parse_request(body)
            outgoing = self.upstream.translate_request(request)
        except StatefulRefusal as exc:  # a previous_response_id it does not hold (docs/spec/stateful.md §1)
            return exc.response()
        except Untranslatable as exc:  # e.g. a custom tool toward an upstream without them (custom_tools.py)
            return front.invalid_request(f"This gateway cannot carry the request to its {self.upstream.dialect} "
                                         f"upstream: {exc}")
        except BAD_SHAPE as exc:  # ValueError: arguments that are not JSON, RequestShapeError
            return front.invalid_request(f"The request does not have the {front.dialect} shape ({exc!r}).")
        if isinstance(self.upstream, WebSocketUpstream):
            return await self.handle_events(front, request, http)
        sent = self.client.build_request("POST", self.upstream_url + self.upstream.path, json=outgoing,
                                         headers=self.upstream.headers(http.headers.get("authorization")))
        try:
            answer = await unless_gone(http, self.client.send(sent, stream=True))
        except ClientGone:  # nobody to answer; the upstream request was closed with the send
            return Response(status_code=499)
        except httpx.HTTPError as exc:  # unreachable: 502; reached but silent: 504
            late = isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout)
            error = UpstreamHTTPError(504 if late else 502, f"The upstream failed to answer ({exc!r}).",
                                      "server_error")
            return front.error_response(request, error)
        if answer.status_code >= 400:
            try:
                content = await answer.aread()
            except httpx.HTTPError:
                content = b""
            finally:
                await answer.aclose()
            return front.error_response(request, self.upstream.http_error(answer, content))
        if request.stream:
            return StreamingResponse(self.relay(front, request, answer), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache", "x-accel-buffering": "no"})
        return front.complete(request, await self.read_body(answer, self.upstream.calls_back(request)))

    async def relay(self, front: Front[Any], request: Request, answer: httpx.Response) -> AsyncIterator[bytes]:
        """The front stream of a streamed upstream answer, each write as soon as its upstream event came."""
        back = self.upstream.calls_back(request)
        events = self.upstream.events(answer) if back is None else converted(self.upstream.events(answer), back)
        try:
            async for output in front.stream_events(request, events):
                yield output
        finally:
            await answer.aclose()

    async def handle_events(self, front: Front[Any], request: Request, http: HTTPRequest) -> Response:
        """An HTTP front's answer from `stream_upstream`'s events (the upstream over WebSocket); a client that goes
        away while the upstream socket opens or before its first message closes that socket."""
        try:
            answer = await unless_gone(http, self.stream_upstream(request, http.headers.get("authorization")))
        except ClientGone:
            return Response(status_code=499)
        if isinstance(answer, UpstreamHTTPError):
            return front.error_response(request, answer)
        if request.stream:
            return StreamingResponse(self.relay_events(front, request, answer), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache", "x-accel-buffering": "no"})
        events: list[Event] = []
        try:
            async for event in answer:
                events.append(event)
        except UpstreamError as exc:
            return front.complete(request, exc)
        return front.complete(request, events)

    async def relay_events(self, front: Front[Any], request: Request,
                           events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        stream = front.stream_events(request, events)
        try:
            async for output in stream:
                yield output
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
            await events.aclose()  # type: ignore[attr-defined]

    async def read_body(self, answer: httpx.Response, back: CallsBack | None = None) -> list[Event] | UpstreamError:
        """The neutral events of a non-stream upstream answer, or how it failed."""
        try:
            events = list(self.upstream.body_events(json.loads(await answer.aread())))
            return events if back is None else [neutral for event in events for neutral in back.see(event)]
        except httpx.HTTPError as exc:
            return UpstreamError("upstream_disconnected", f"the upstream body was cut: {exc!r}")
        except ValueError as exc:
            return UpstreamError("bad_upstream_response", f"unreadable upstream body: {exc}")
        except UpstreamError as exc:
            return exc
        finally:
            await answer.aclose()


_T = TypeVar("_T")


async def converted(events: AsyncIterator[Event], back: CallsBack) -> AsyncIterator[Event]:
    """`events` with the calls of converted custom tools turned back into custom calls (custom_tools.py)."""
    async for event in events:
        for neutral in back.see(event):
            yield neutral


class ClientGone(Exception):
    """The client closed its connection while the gateway waited for the upstream."""


async def unless_gone(http: HTTPRequest, pending: Awaitable[_T]) -> _T:
    """What `pending` gives, unless the client goes away first: then `pending` is cancelled (an upstream request
    being sent, or waiting for its headers, is closed with it) and ClientGone raised. A streamed answer is watched
    by StreamingResponse itself, from its first write on (docs/spec/cancellation.md §2)."""
    task = asyncio.ensure_future(pending)
    gone = asyncio.ensure_future(_disconnected(http))
    try:
        await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait((task,))
    if task.cancelled():
        raise ClientGone()
    return task.result()


async def _disconnected(http: HTTPRequest) -> None:
    """Returns when the client has gone away (its body was read already: only the disconnect comes)."""
    while (await http.receive())["type"] != "http.disconnect":
        pass


def create_app(upstream: str, *, dialect: str = "chat", fronts: Sequence[type[Front[Any]]] = (),
               upstream_class: type[Upstream] | None = None,
               websocket: type[WebSocketFront] | None = WebSocketFront, upstream_transport: str = "http",
               custom_tools: str | None = None) -> Starlette:
    """The gateway as an ASGI app: `upstream` is the upstream base URL ending in /v1. `fronts` replace the
    default front of their dialect, `upstream_class` the upstream of `dialect`, `websocket` the Responses
    WebSocket front (None: none) (the fakes break one of them). `upstream_transport` websocket (or a ws:// or
    wss:// `upstream`): the Responses upstream over its WebSocket mode. `custom_tools`: refuse or convert custom
    tools toward an upstream without them (None: $CALLPROOF_GATEWAY_CUSTOM_TOOLS, else refuse)."""
    chosen = {front.dialect: front for front in FRONTS} | {front.dialect: front for front in fronts}
    if upstream_transport == "websocket" or upstream.startswith(("ws://", "wss://")):
        if dialect != "responses":
            raise ValueError(f"--upstream-transport websocket is the Responses API's WebSocket mode; "
                             f"--upstream-dialect {dialect} has none: use --upstream-dialect responses")
        upstream_class = upstream_class or WebSocketUpstream
    chosen_upstream = (upstream_class or UPSTREAMS[dialect])()
    chosen_upstream.custom_tools = custom_tools_mode(custom_tools)
    return Gateway(upstream, chosen_upstream, [f() for f in chosen.values()],
                   websocket() if websocket is not None else None).app()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A usage error in one line, exit status 2."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=f"python -m {__package__}", description="A gateway serving the Responses, Chat "
                     "Completions and Anthropic Messages APIs in front of an upstream of any of them.")
    parser.add_argument("--upstream", required=True, help="upstream base URL ending in /v1")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--upstream-dialect", choices=sorted(UPSTREAMS), default="chat",
                        help="the upstream's API (default: chat)")
    parser.add_argument("--upstream-transport", choices=("http", "websocket"), default="http",
                        help="how the gateway reaches the upstream: http, or websocket (the Responses API's "
                        "WebSocket mode; --upstream-dialect responses; a ws:// --upstream implies it) (default: http)")
    parser.add_argument("--custom-tools", choices=MODES, default=None,
                        help="custom (freeform) tools toward a chat or anthropic upstream, which has none: refuse "
                        "(HTTP 400) or convert (a function tool with one string parameter `input`, its call turned "
                        "back into a custom call); the run policy custom-tools=VALUE (default: "
                        "$CALLPROOF_GATEWAY_CUSTOM_TOOLS, else refuse)")
    return parser


def serve(app: ASGIApp, host: str, port: int) -> None:
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    command = parser()
    args = command.parse_args(argv)
    try:
        app = create_app(args.upstream, dialect=args.upstream_dialect, upstream_transport=args.upstream_transport,
                         custom_tools=args.custom_tools)
    except ValueError as exc:
        command.error(str(exc))
    serve(app, args.host, args.port)
    return 0
