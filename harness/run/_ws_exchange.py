"""Turns over a gateway's Responses WebSocket front (`--front-transport websocket`), recorded as they arrive.

A turn is one `response.create` message (the HTTP request body without `stream` and `stream_options`) and the
server messages that answer it, up to its terminal event (`response.completed`, `response.incomplete`,
`response.failed`) or an `error` event, each stamped with `time.monotonic()` when it was read (the mock's journal
uses the same clock). `turn_exchange` makes a turn an `Exchange`, so every GW rule reads it as it reads an HTTP
answer: the messages are the events (rendered as SSE events, so the stream checker parses them; no SSE framing
rule is planned over WebSocket), an `error` event before the response began is the HTTP error it stands for (its
`status`, its `error` object as the body). Nothing here raises for what the gateway does: a refused upgrade, a
closed socket, a silence past the deadline are recorded.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import connect
from websockets.sync.connection import Connection

from callproof.harness._types import JSONValue
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.transports import transport

from ._http_exchange import Limits

__all__ = ["TERMINAL", "Message", "Socket", "Turn", "create_message", "message_as_sse", "turn_exchange", "ws_url"]

#: The events that end a response over the socket.
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def ws_url(url: str) -> str:
    """The WebSocket URL of a front URL (http -> ws, https -> wss): the transport table's row builds it."""
    return transport("websocket").url(url)


def create_message(body: Mapping[str, Any], **extra: JSONValue) -> dict[str, Any]:
    """The `response.create` message of an HTTP Responses request body (no `stream`, `stream_options`: implicit)."""
    kept = {key: value for key, value in body.items() if key not in ("stream", "stream_options")}
    return {"type": "response.create", **kept, **extra}


@dataclass(frozen=True, slots=True)
class Message:
    """One server message: when it was read, its text, its JSON object (None: not a JSON object)."""

    time: float
    text: str
    event: dict[str, Any] | None

    @property
    def type(self) -> str | None:
        value = self.event.get("type") if self.event is not None else None
        return value if isinstance(value, str) else None

    @property
    def ends_turn(self) -> bool:
        return self.type in TERMINAL or self.type == "error"


@dataclass(frozen=True, slots=True)
class Turn:
    """One `response.create` and what came back: its messages in order, and why reading stopped early (`error`:
    the socket closed or failed; `timed_out`: no terminal event within the deadline; `over_limit`: a run limit)."""

    url: str
    request: Mapping[str, Any]
    sent: float
    messages: tuple[Message, ...]
    error: str | None = None
    timed_out: bool = False
    over_limit: str | None = None

    @property
    def terminal(self) -> Message | None:
        last = self.messages[-1] if self.messages else None
        return last if last is not None and last.ends_turn else None

    @property
    def response(self) -> dict[str, Any] | None:
        """The terminal event's Response object, or None."""
        terminal = self.terminal
        value = terminal.event.get("response") if terminal is not None and terminal.event is not None else None
        return value if isinstance(value, dict) else None


@dataclass
class Socket:
    """One client socket to the front; `open` connects (or records why not in `error`)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    limits: Limits = field(default_factory=Limits)
    connection: Connection | None = None
    error: str | None = None
    #: Messages read past a turn's end (a late answer to an earlier create), kept for the next read.
    pending: list[Message] = field(default_factory=list)
    #: Every client message sent and server message read, in that order: the socket's transcript (RSP-WS-*).
    log: list[Mapping[str, Any] | Message] = field(default_factory=list)
    #: The connection entered as the context manager websockets documents (a bare `connect()` warns since 17.1);
    #: `close` exits it.
    _stack: contextlib.ExitStack[bool | None] = field(default_factory=contextlib.ExitStack, init=False, repr=False)

    def open(self) -> bool:
        try:
            self.connection = self._stack.enter_context(connect(
                self.url, additional_headers=dict(self.headers) or None, open_timeout=min(self.timeout, 10.0),
                max_size=None, proxy=None))
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            self.error = f"the WebSocket upgrade of {self.url} failed: {type(exc).__name__}: {exc}"
            return False
        return True

    @property
    def closed(self) -> bool:
        return self.connection is None or self.connection.close_code is not None

    def send(self, message: Mapping[str, Any]) -> float:
        """Send one client message; its time. A closed socket is recorded in `error`."""
        sent = time.monotonic()
        if self.connection is None:
            return sent
        try:
            self.connection.send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        except (ConnectionClosed, OSError) as exc:
            self.error = self.error or f"the socket was closed before the message could be sent ({exc})"
        else:
            self.log.append(message)
        return sent

    def read(self, wait: float) -> Message | str | None:
        """The next message, or why there is none (a closed socket: str), or None after `wait` seconds."""
        if self.pending:
            return self.pending.pop(0)
        if self.connection is None:
            return self.error or "the socket is not open"
        try:
            data = self.connection.recv(timeout=max(wait, 0.0))
        except TimeoutError:
            return None
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
            return f"the gateway closed the socket (close code {code})" if code is not None else \
                f"the socket was closed without a close frame ({type(exc).__name__})"
        except OSError as exc:
            return f"the socket failed: {type(exc).__name__}: {exc}"
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        message = Message(time.monotonic(), text, parsed if isinstance(parsed, dict) else None)
        self.log.append(message)
        return message

    def turn(self, message: Mapping[str, Any]) -> Turn:
        """Send one `response.create` and read its answer to its end, within the socket's timeout."""
        sent = self.send(message)
        return self.read_turn(message, sent)

    def read_turn(self, message: Mapping[str, Any], sent: float) -> Turn:
        deadline = sent + self.timeout
        messages: list[Message] = []
        size = 0
        while True:
            got = self.read(deadline - time.monotonic())
            if got is None:
                return Turn(self.url, message, sent, tuple(messages),
                            f"no terminal event within the case timeout of {self.timeout:g} s", True)
            if isinstance(got, str):
                return Turn(self.url, message, sent, tuple(messages), got)
            messages.append(got)
            size += len(got.text.encode())
            over = self.limits.exceeded(size, len(messages))
            if over is not None:
                self.close()
                return Turn(self.url, message, sent, tuple(messages), over, over_limit=over)
            if got.ends_turn:
                return Turn(self.url, message, sent, tuple(messages))

    def close(self) -> None:
        with contextlib.suppress(ConnectionClosed, OSError):
            self._stack.close()


#: SSE line ends (CRLF, LF, CR): a JSON text holds none raw, but may hold U+2028 or U+0085, which are not line ends.
_LINE_END = re.compile(r"\r\n|\r|\n")


def _sse(message: Message) -> bytes:
    kind = message.type
    head = f"event: {kind}\n" if kind is not None and "\n" not in kind else ""
    lines = "".join(f"data: {line}\n" for line in _LINE_END.split(message.text))  # SSE line ends only
    return f"{head}{lines}\n".encode()


def message_as_sse(data: bytes) -> bytes:
    """A WebSocket write of the mock's journal (JSON text messages, a newline after each) as SSE events, so the
    readers of an upstream's SSE writes read it."""
    return b"".join(b"data: " + line + b"\n\n" for line in data.splitlines() if line.strip())


def turn_exchange(turn: Turn) -> Exchange:
    """The turn as an `Exchange` the gateway rules read: the messages as SSE events (status 200), or an `error`
    event that came before the response began as the HTTP error it stands for (its `status`, default 500, and
    `{"error": ...}` as the JSON body); no message at all is no answer (status None)."""
    messages = turn.messages
    if not messages:
        why = turn.error or "no message"
        return Exchange(turn.url, turn.request, turn.sent, None, {}, (), why, turn.timed_out, turn.over_limit)
    first = messages[0]
    if first.type == "error" and first.event is not None:
        status = first.event.get("status")
        status = status if isinstance(status, int) and 400 <= status <= 599 else 500
        error = first.event.get("error")
        body = json.dumps({"error": error if isinstance(error, dict) else first.event}).encode()
        head = {"content-type": "application/json", "x-callproof-transport": "websocket"}
        headers = error.get("headers") if isinstance(error, dict) else None
        if isinstance(headers, dict):
            head.update({str(k).lower(): str(v) for k, v in headers.items()})
        return Exchange(turn.url, turn.request, turn.sent, status, head, (Chunk(first.time, body),))
    chunks = tuple(Chunk(m.time, _sse(m)) for m in messages)
    head = {"content-type": "text/event-stream", "x-callproof-transport": "websocket"}
    return Exchange(turn.url, turn.request, turn.sent, 200, head, chunks, turn.error, turn.timed_out,
                    turn.over_limit)
