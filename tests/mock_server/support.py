"""Helpers of the server tests: the scenarios the test servers play (the bundled corpus plus the fault and timing
variants of tests/mock_server/data/server_variants.json), request bodies, the fault-free stream a request should get,
and a client that records every chunk with its arrival time (never ASGITransport, which buffers whole bodies).
The fixtures that use them are in conftest.py."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from callproof.harness import SSEEvent, parse_sse
from callproof.mock_server import MockServer, Scenario, bundled_scenarios, load_scenarios
from callproof.mock_server.dialects import RENDERERS, Dialect, RenderContext

DATA = Path(__file__).resolve().parent / "data"
DIALECTS: tuple[Dialect, ...] = tuple(d for d in ("responses", "chat", "anthropic") if d in RENDERERS)
PATHS: dict[Dialect, str] = {"responses": "/responses", "chat": "/chat/completions", "anthropic": "/messages"}
TIMEOUT = httpx.Timeout(10.0)

SCENARIOS: dict[str, Scenario] = {**bundled_scenarios(), **load_scenarios([DATA / "server_variants.json"])}
#: The scripted gap of the timing tests (ms), t_gap's (f_raw's second frame waits as long): long enough to stand
#: out of a loaded 2-core CI's noise.
GAP_MS = SCENARIOS["t_gap"].timing.gap_ms


def request_body(dialect: Dialect, scenario: str | None, *, stream: bool = True, text: str = "Hello") -> dict[str, Any]:
    """A minimal request of `dialect` selecting `scenario` by model name (None: no selector at all)."""
    model = f"callproof/{scenario}" if scenario else "gpt-test"
    body: dict[str, Any] = {"model": model, "stream": stream}
    if dialect == "responses":
        body["input"] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]
    else:
        body["messages"] = [{"role": "user", "content": text}]
    if dialect == "anthropic":
        body["max_tokens"] = 256
    return body


def expected_stream(dialect: Dialect, scenario: str, body: Mapping[str, Any]) -> bytes:
    """What the mock renders for this request without faults (the server's context: model and request echoed)."""
    ctx = RenderContext(model=str(body["model"]), request=dict(body))
    return RENDERERS[dialect].stream(SCENARIOS[scenario], ctx).body


@dataclass
class Capture:
    """One response as the client saw it: when the request was sent and every chunk with its arrival, on the
    monotonic clock the in-process server's journal also uses (so arrivals compare with `JournalRequest.start`)."""

    status: int
    headers: httpx.Headers
    sent: float
    headers_at: float
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    error: Exception | None = None

    @property
    def body(self) -> bytes:
        return b"".join(c for _, c in self.chunks)

    def events(self) -> list[SSEEvent]:
        return parse_sse(self.body)[0]


def events_of(wire: bytes) -> list[tuple[str, str]]:
    """(type, data) of every event of a stream."""
    return [(e.type, e.data) for e in parse_sse(wire)[0]]


@dataclass
class Mock:
    server: MockServer
    client: httpx.Client

    def post(self, dialect: Dialect, body: Any, *, headers: Mapping[str, str] | None = None,
             path: str | None = None, content: bytes | None = None) -> Capture:
        url = self.server.root_url + (path if path is not None else "/v1" + PATHS[dialect])
        sent = time.monotonic()
        kwargs: dict[str, Any] = {"content": content} if content is not None else {"json": body}
        with self.client.stream("POST", url, headers=dict(headers or {}), **kwargs) as response:
            got = Capture(response.status_code, response.headers, sent, time.monotonic())
            try:
                for chunk in response.iter_raw():
                    got.chunks.append((time.monotonic(), chunk))
            except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
                got.error = exc
        return got
