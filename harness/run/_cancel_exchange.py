"""The cancellation cases (GW-CANCEL-*, docs/spec/cancellation.md): the harness is a client that goes away. It sends
the front request of a `cancellation` scenario over its own socket, reads `CANCEL_AFTER` events of the front's
answer (or, for a scenario whose upstream headers come late, waits until the mock's journal shows the gateway's
upstream request and reads nothing), closes the connection, notes the instant on the journal's clock, then watches
the journal: for the upstream request's end (bounded), then a grace window for retries. `_cancel_verdict`
judges the figures (`check_cancellation`).

The socket is the harness's own (HTTP/1.1 through h11, the parser httpx itself uses) rather than an httpx stream:
httpx cannot close a request before its response headers arrive, which is the point of the before-the-first-byte
case.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import h11

from callproof.harness.check import SSEParser
from callproof.harness.judge import UpstreamAttempt

from ._calibrate import Calibration

if TYPE_CHECKING:
    from callproof.mock_server import Journal

__all__ = ["CANCEL_AFTER", "HOPS", "Closed", "Closer", "attempts", "cancel_bound", "close_front", "watch_limits",
           "watch_upstream"]

#: The client closes after this many events of the front's answer (any type: the first ones of a Responses stream
#: are response.created and the like, so a few content deltas have come by then).
CANCEL_AFTER = 5
#: The bound is this many calibrated slacks (docs/spec/cancellation.md §3): the close reaching the gateway, its
#: event loop cancelling the response, closing the upstream connection, that close reaching the mock: a handful of
#: loopback hops and event-loop turns, each of the kind the calibration probe measures, with room to spare.
HOPS = 20
#: The journal is polled this often while watching.
POLL = 0.005


def cancel_bound(calibration: Calibration) -> float:
    """Seconds the gateway has from the client's close to the mock's `cancelled` stamp: HOPS x the run's
    calibrated slack (max(5 ms, 3 x the p95 of its mock -> harness delay); the default slack without a probe)."""
    return HOPS * calibration.slack


def watch_limits(bound: float) -> tuple[float, float]:
    """(how long to wait for the upstream request's end after the close, the grace window for retries after it):
    max(1 s, 3 x bound), then max(0.5 s, bound). A late close is measured, not cut off at the bound."""
    return max(1.0, 3 * bound), max(0.5, bound)


@dataclass(frozen=True, slots=True)
class Closed:
    """How the client's side went: `closed`, the instant it closed the connection (monotonic, the journal's clock;
    None: it never got that far, `problem` says why); `sent`, when the request went out; the HTTP `status` and the
    `events` read before the close; `bytes` of the answer read before it."""

    sent: float
    closed: float | None
    status: int | None = None
    events: int = 0
    bytes: int = 0
    problem: str | None = None


def _connect(url: str, timeout: float) -> tuple[socket.socket, str, str]:
    parts = urlsplit(url)
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    host = parts.hostname or "127.0.0.1"
    sock = socket.create_connection((host, port), timeout=timeout)
    if secure:
        sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return sock, f"{host}:{port}" if parts.port else host, target


def close_front(url: str, body: Mapping[str, Any], headers: Mapping[str, str], *, timeout: float,
                after_events: int, upstream_called: Callable[[], bool] | None = None) -> Closed:
    """Send `body` to the front at `url`, then close the connection: after `after_events` SSE events of the answer,
    or, with `upstream_called` (before the first byte), as soon as it says the gateway has called its upstream,
    reading nothing. At most `timeout` seconds in all. Never raises for what the IUT does."""
    sent = time.monotonic()
    deadline = sent + timeout
    data = json.dumps(body).encode()
    try:
        sock, host, target = _connect(url, min(timeout, 10.0))
    except OSError as exc:
        return Closed(sent, None, problem=f"the front at {url} refused the connection: {exc}")
    conn = h11.Connection(h11.CLIENT)
    head = [("host", host), ("content-type", "application/json"), ("accept", "text/event-stream"),
            ("content-length", str(len(data))), *((k, v) for k, v in headers.items())]
    status: int | None = None
    events = size = 0
    parser = SSEParser()
    try:
        sock.sendall(conn.send(h11.Request(method="POST", target=target, headers=head)) + conn.send(h11.Data(data=data))
                     + conn.send(h11.EndOfMessage()))
        if upstream_called is not None:
            return _close_before_first_byte(sock, sent, timeout, upstream_called)
        while events < after_events:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            size += len(chunk)
            conn.receive_data(chunk)
            while (event := conn.next_event()) not in (h11.NEED_DATA, h11.PAUSED):
                if isinstance(event, h11.Response):
                    status = event.status_code
                    if status != 200:
                        return Closed(sent, None, status, problem=f"the front answered HTTP {status} before "
                                      "streaming: no stream to walk away from")
                elif isinstance(event, h11.Data):
                    events += len(parser.feed(bytes(event.data)))
                    if events >= after_events:  # walk away now, whatever else this read brought
                        return Closed(sent, _close(sock), status, events, size)
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    return Closed(sent, None, status, events, size, problem=f"the front's answer ended after "
                                  f"{events} events, before the client would close after {after_events}")
            if not chunk:
                return Closed(sent, None, status, events, size, problem=f"the front closed the connection after "
                              f"{events} events, before the client would close after {after_events}")
        return Closed(sent, _close(sock), status, events, size)
    except TimeoutError:
        return Closed(sent, None, status, events, size, problem=f"the front sent {events} events within the case "
                      f"timeout of {timeout:g} s, fewer than the {after_events} the client reads before closing")
    except (OSError, h11.ProtocolError) as exc:
        return Closed(sent, None, status, events, size, problem=f"the exchange with the front failed: "
                      f"{type(exc).__name__}: {exc}")
    finally:
        sock.close()


def _close_before_first_byte(sock: socket.socket, sent: float, timeout: float,
                             upstream_called: Callable[[], bool]) -> Closed:
    """Close the connection as soon as `upstream_called` says the gateway has called its upstream, reading nothing
    (the bytes already waiting are counted, not read)."""
    deadline = sent + timeout
    while not upstream_called():
        if time.monotonic() > deadline:
            return Closed(sent, None, problem=f"the gateway did not call its upstream within {timeout:g} s "
                          "of the request: there was nothing to cancel")
        time.sleep(POLL)
    sock.setblocking(False)
    try:
        size = len(sock.recv(65536, socket.MSG_PEEK))
    except (BlockingIOError, ssl.SSLWantReadError):
        size = 0
    return Closed(sent, _close(sock), bytes=size)


class Closer(Protocol):
    """Sends a front request and closes the client's connection as `close_front` does (another transport's)."""

    def __call__(self, url: str, body: Mapping[str, Any], headers: Mapping[str, str], *, timeout: float,
                 after_events: int, upstream_called: Callable[[], bool] | None = None) -> Closed: ...


def _close(sock: socket.socket) -> float:
    """Close the client's side now (a FIN, or a reset where unread data remains, as a client that walks away
    does); the instant, on the journal's clock."""
    closed = time.monotonic()
    sock.close()
    return closed


def attempts(journal: Journal, case: str) -> tuple[UpstreamAttempt, ...]:
    """The case's upstream requests from the journal, each with how and when its answer ended."""
    out: list[UpstreamAttempt] = []
    for request in journal.requests(case=case):
        end = journal.end(request.id)
        out.append(UpstreamAttempt(request.id, request.time, end.outcome if end else None, end.time if end else None))
    return tuple(out)


def watch_upstream(journal: Journal, case: str, closed: float, bound: float) -> tuple[tuple[UpstreamAttempt, ...],
                                                                                      float]:
    """Watch the journal after the client's close: until every upstream request of the case open at the close has
    ended (at most `watch_limits(bound)[0]` after the close), then the grace window for retries after that. The
    attempts as read at the end, and that instant."""
    wait, grace = watch_limits(bound)
    until = closed + wait
    while time.monotonic() < until:
        if all(a.ended is not None for a in attempts(journal, case) if a.time <= closed):
            break
        time.sleep(POLL)
    end = min(time.monotonic(), until) + grace
    while time.monotonic() < end:
        time.sleep(POLL)
    return attempts(journal, case), time.monotonic()
