"""One HTTP exchange with the implementation under test, recorded as it arrives.

Every chunk of the body is stamped with `time.monotonic()` when it is read off the socket: the mock's journal
uses the same clock, so the gateway rules can compare when the upstream sent a byte with when the front
forwarded it. The exchange never raises for what the IUT does: a refused connection, a reset, a hang past the
case deadline are recorded in `error` and `timed_out`, and whatever arrived before is kept. A body that did not
end cleanly after the head arrived (the connection closed before a chunked body's zero-length last chunk, or short
of its Content-Length: httpx raises `RemoteProtocolError`; a reset: `ReadError`) is recorded in `aborted` too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from callproof.harness.check import SSEParser
from callproof.harness.outcome import Chunk, Exchange

__all__ = ["PROBE_S", "Limits", "exchange", "head_problem"]


@dataclass(frozen=True, slots=True)
class Limits:
    """The most one answer may hold (`--max-events N`, `--max-bytes N`); None: no limit."""

    events: int | None = None
    bytes: int | None = None

    def exceeded(self, size: int, events: int) -> str | None:
        """Why an answer of `size` bytes and `events` events so far is over a limit, or None."""
        if self.bytes is not None and size > self.bytes:
            return f"--max-bytes {self.bytes}: the answer exceeded it ({size} bytes read, then the harness stopped " \
                   f"reading and closed the connection)"
        if self.events is not None and events > self.events:
            return f"--max-events {self.events}: the answer exceeded it ({events} events read, then the harness " \
                   f"stopped reading and closed the connection)"
        return None


#: The preflight waits this long at most (or the case timeout, if shorter) for the gateway's answer to one GET.
PROBE_S = 10.0


def head_problem(client: httpx.Client, url: str, headers: Mapping[str, str], timeout: float) -> str | None:
    """Why `url` gave no HTTP answer to a GET within min(`timeout`, PROBE_S) seconds, or None: any status will do (a
    404, a 405), and only its head is read. A front that accepts connections and never answers is caught here, before
    any case waits its whole timeout for it."""
    wait = min(timeout, PROBE_S)
    try:
        with client.stream("GET", url, headers=headers or None, timeout=httpx.Timeout(wait)):
            return None
    except httpx.TimeoutException:
        return (f"the IUT accepts connections at {url} but sent no HTTP answer to a GET within {wait:g} s: it is hung, "
                "or not an HTTP server there")
    except httpx.HTTPError as exc:
        return f"the IUT at {url} did not answer an HTTP request: {type(exc).__name__}: {exc}"


def exchange(
    client: httpx.Client, url: str, body: Mapping[str, Any], *, timeout: float,
    headers: Mapping[str, str] | None = None, limits: Limits = Limits(),
) -> Exchange:
    """POST `body` to `url` and read the answer as it arrives, for at most `timeout` seconds in all, and at most
    `limits`: past one, reading stops and the connection is closed (`Exchange.over_limit` says which and how much)."""
    sent = time.monotonic()
    deadline = sent + timeout
    chunks: list[Chunk] = []
    status: int | None = None
    head: dict[str, str] = {}
    counter = SSEParser() if limits.events is not None else None
    size = events = 0
    try:
        with client.stream("POST", url, json=body, headers=headers,
                           timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0))) as response:
            status = response.status_code
            head = {k.lower(): v for k, v in response.headers.items()}
            for data in response.iter_bytes():
                chunks.append(Chunk(time.monotonic(), data))
                size += len(data)
                events += len(counter.feed(data)) if counter is not None else 0
                over = limits.exceeded(size, events)
                if over is not None:  # leaving the block unread closes the connection (it is not reused)
                    return Exchange(url, body, sent, status, head, tuple(chunks), over, over_limit=over)
                if time.monotonic() > deadline:
                    return Exchange(url, body, sent, status, head, tuple(chunks),
                                    f"no end of the answer within the case timeout of {timeout:g} s", True)
    except httpx.TimeoutException:
        what = "no answer" if status is None else "no end of the answer"
        return Exchange(url, body, sent, status, head, tuple(chunks),
                        f"{what} within the case timeout of {timeout:g} s", True)
    except httpx.HTTPError as exc:
        reason = f"{type(exc).__name__}: {str(exc) or type(exc).__name__}"
        # after the head, the body was aborted (an incomplete chunked read, a reset); before it, there is no answer
        return Exchange(url, body, sent, status, head, tuple(chunks), reason,
                        aborted=reason if status is not None else None)
    return Exchange(url, body, sent, status, head, tuple(chunks))
