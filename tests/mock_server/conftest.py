"""Fixtures of the server tests: a real uvicorn server on 127.0.0.1 and an ephemeral port (one per xdist worker),
serving the bundled corpus plus fault and timing variants of it, and a client that records every chunk with its
arrival time (never ASGITransport, which buffers whole bodies)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest

from callproof.harness import SSEEvent, parse_sse
from callproof.mock_server import MockServer, Scenario, bundled_scenarios
from callproof.mock_server._render import Dialect, RenderContext
from callproof.mock_server._scenario import Fault, RawFrame, Timing
from callproof.mock_server.renderers import RENDERERS

DIALECTS: tuple[Dialect, ...] = tuple(d for d in ("responses", "chat", "anthropic") if d in RENDERERS)
PATHS: dict[Dialect, str] = {"responses": "/responses", "chat": "/chat/completions", "anthropic": "/messages"}
#: The scripted gap of the timing tests (ms): long enough to stand out of a loaded 2-core CI's noise.
GAP_MS = 30.0
TIMEOUT = httpx.Timeout(10.0)


def _variant(base: Scenario, id_: str, **changes: Any) -> Scenario:
    return replace(base, id=id_, **changes)


def _scenarios() -> dict[str, Scenario]:
    bundled = bundled_scenarios()
    call, text = bundled["one_call"], bundled["text_only"]
    faults: dict[str, tuple[Fault, ...]] = {
        "f_429": (Fault("http_error", params={"status": 429, "retry_after": 2}),),
        "f_500": (Fault("http_error", params={"status": 500, "message": "upstream exploded"}),),
        "f_503": (Fault("http_error", params={"status": 503, "retry_after": 0.25}),),
        "f_stream_error": (Fault("stream_error", params={"after_events": 3, "message": "boom mid-stream"}),),
        "f_stream_error_end": (Fault("stream_error", params={"message": "boom at the end"}),),
        "f_disconnect_events": (Fault("disconnect", params={"after_events": 3}),),
        "f_disconnect_bytes": (Fault("disconnect", params={"after_bytes": 100}),),
        "f_truncate": (Fault("truncate"),),
        "f_malformed": (Fault("malformed", params={"after_events": 2}),),
        "f_stall": (Fault("stall", params={"ms": 200, "after_events": 2}),),
        "f_keepalive": (Fault("keepalive", params={"every_events": 2}),),
        "f_fragment": (Fault("fragment", params={"bytes": 1}),),
        "f_crlf": (Fault("crlf"),),
        "f_slow_first_byte": (Fault("slow_first_byte", params={"ms": 150}),),
        "f_chaos": (
            Fault("http_error", 0.2, {"status": 500}),
            Fault("disconnect", 0.3, {"after_events": 4}),
            Fault("malformed", 0.3),
            Fault("keepalive", 0.5, {"every_events": 3}),
            Fault("crlf", 0.5),
            Fault("fragment", 0.3, {"bytes": 7}),
        ),
    }
    found = dict(bundled)
    for id_, fault_list in faults.items():
        found[id_] = _variant(call, id_, faults=fault_list)
    found["f_chaos"] = replace(found["f_chaos"], timing=Timing(jitter_ms=2))
    found["t_gap"] = _variant(call, "t_gap", timing=Timing(gap_ms=GAP_MS))
    found["t_ttft"] = _variant(text, "t_ttft", timing=Timing(ttft_ms=150))
    raw = (RawFrame(b'data: {"raw":1}\n\n'), RawFrame(b'data: {"raw":2}\n\n', delay_ms=GAP_MS))
    found["f_raw"] = _variant(text, "f_raw", raw={d: raw for d in ("responses", "chat", "anthropic")})
    return found


SCENARIOS = _scenarios()


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


@pytest.fixture(scope="session")
def _strict_server() -> Iterator[MockServer]:
    with MockServer(SCENARIOS, strict=True, seed=1) as server:
        yield server


@pytest.fixture
def mock(_strict_server: MockServer) -> Iterator[Mock]:
    """The strict mock (journal reset for each test) and a client with a timeout."""
    _strict_server.journal.reset()
    with httpx.Client(timeout=TIMEOUT) as client:
        yield Mock(_strict_server, client)
