"""The recording proxy of `callproof record`: every request is forwarded to the upstream (same path and query, its
headers but the hop-by-hop ones) and the answer streamed back as it arrives, byte for byte; each POST exchange of a
dialect endpoint (.../responses, .../chat/completions, .../messages) is then written as one scenario file through
the capture import (`callproof.harness.capture`): the answer's frames and their measured delays, its
structure, and a `match` built from the request, so the mock replays it for the same request with no marker.

Headers never reach the files (the scenario holds the request's text, model, tools and stream flag, and the answer's
body), and the log names no header value. An unreachable upstream gets the caller a 502 in its dialect's error shape
and a log line; nothing is written for it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import signal
import sys
import threading
import time
import zlib
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from callproof.harness import InputError
from callproof.harness.capture import Capture, import_capture, read_capture, request_match, scenario_file
from callproof.harness.dialects import DIALECTS

from ._serve import is_loopback
from ._threaded import ThreadedServer
from ._upstream import dialect_of
from .dialects import RENDERERS, Dialect

__all__ = ["HOP_BY_HOP", "RecordServer", "Recorder", "create_record_app", "record_forever"]

_LOG = logging.getLogger("callproof.record")

#: Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), plus what the client library sets anew.
HOP_BY_HOP = frozenset((
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
    "transfer-encoding", "upgrade", "host", "content-length",
))
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_FILE = re.compile(r"^rec_(\d+)_")


@dataclass(frozen=True, slots=True)
class _Exchange:
    """One recorded exchange: the request, the answer's status, Retry-After, encoding, arrival times (ms)."""

    dialect: Dialect
    request: Mapping[str, Any]
    status: int
    retry_after: float | None
    encoding: str
    first_byte_ms: float


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: not scriptable


def _decoded(data: bytes, encoding: str) -> bytes:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(data, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(data)
    return data


class Recorder:
    """The proxy's state: where it forwards, where it writes, and the exchanges in flight."""

    def __init__(self, upstream: str, out: Path, *, client: httpx.AsyncClient | None = None) -> None:
        self.upstream = upstream.rstrip("/")
        self.out = out
        self.client = client
        self.recorded: list[Path] = []
        self._lock = threading.Lock()
        self._next = 1 + max((int(m.group(1)) for p in out.glob("rec_*.json") if (m := _FILE.match(p.name))),
                             default=0)
        # Files are written off the event loop (an import reads and checks the whole answer): the streams that are
        # still flowing through the proxy keep their timing.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="callproof-record-writer")

    def _client(self) -> httpx.AsyncClient:
        if self.client is None:
            self.client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0), follow_redirects=False)
        return self.client

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        self.flush()

    def flush(self) -> None:
        """Wait until every exchange handed to the writer is written (no new ones are taken after)."""
        self._writer.shutdown(wait=True)

    def _target(self, request: Request) -> str:
        path = request.url.path
        if self.upstream.endswith("/v1") and path.startswith("/v1/"):
            path = path[3:]  # --upstream http://host/v1 and a caller's /v1/...: one /v1
        query = request.url.query
        return f"{self.upstream}{path}" + (f"?{query}" if query else "")

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        dialect = dialect_of(request.url.path)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        started = time.monotonic()
        upstream = self._client().build_request(request.method, self._target(request), headers=headers,
                                                content=body)
        try:
            answer = await self._client().send(upstream, stream=True)
        except httpx.TransportError as exc:
            message = f"callproof record: the upstream {self.upstream} is unreachable ({type(exc).__name__}: {exc})"
            _LOG.error("%s %s: %s; nothing recorded", request.method, request.url.path, message)
            renderer = RENDERERS[dialect or "responses"]
            error = renderer.error_body(502, message)
            if DIALECTS[renderer.dialect].error_envelope_type is None:  # Responses, Chat: {"error": {message, type}}
                error = {"error": {"message": message, "type": "upstream_unreachable"}}
            return JSONResponse(error, status_code=502)
        first_byte_ms = (time.monotonic() - started) * 1000.0
        out_headers = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in HOP_BY_HOP]
        exchange: _Exchange | None = None
        if request.method == "POST" and dialect is not None:
            try:
                decoded = json.loads(body) if body else None
            except ValueError:
                decoded = None
            if isinstance(decoded, dict):
                exchange = _Exchange(dialect, decoded, answer.status_code,
                                     _retry_after(answer.headers.get("retry-after")),
                                     answer.headers.get("content-encoding", "identity").lower(), first_byte_ms)
        response = StreamingResponse(self._relay(answer, exchange), status_code=answer.status_code)
        response.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in out_headers]
        return response

    async def _relay(self, answer: httpx.Response, exchange: _Exchange | None) -> AsyncIterator[bytes]:
        """The upstream's bytes as they arrive, untouched; the exchange written once the answer ended (or was cut:
        what arrived is written, at shutdown too)."""
        chunks: list[tuple[float, bytes]] = []
        opened = time.monotonic()
        try:
            async for chunk in answer.aiter_raw():
                chunks.append(((time.monotonic() - opened) * 1000.0, chunk))
                yield chunk
        finally:
            await answer.aclose()
            if exchange is not None:
                try:
                    self._writer.submit(self._write, exchange, chunks)
                except RuntimeError:  # shutting down: the writer was flushed already, write it here
                    self._write(exchange, chunks)

    def _write(self, exchange: _Exchange, chunks: list[tuple[float, bytes]]) -> None:
        with self._lock:
            number = self._next
            self._next += 1
        name = f"rec_{number:04d}_{exchange.dialect}"
        raw = b"".join(data for _, data in chunks)
        try:
            data = _decoded(raw, exchange.encoding)
            encoded = exchange.encoding not in ("identity", "")
            try:
                capture = read_capture(data, name, exchange.dialect)
            except InputError:
                if exchange.status < 400:
                    raise
                capture = Capture(data, "json", exchange.dialect)
            scenario = import_capture(
                capture, scenario_id=name, status=exchange.status, retry_after=exchange.retry_after,
                chunks=None if encoded else chunks, first_byte_ms=exchange.first_byte_ms,
                request=exchange.request, tags=("recorded",),
                description=f"recorded {exchange.dialect} {capture.kind} answer, HTTP {exchange.status}",
            )
        except (InputError, zlib.error) as exc:
            _LOG.error("%s: not recorded: %s", name, exc)
            return
        except Exception as exc:  # a bug must not go unseen in a worker thread
            _LOG.error("%s: not recorded: %s: %s", name, type(exc).__name__, exc)
            return
        scenario["match"] = request_match(exchange.dialect, exchange.request)
        document = scenario_file(name, f"An exchange recorded by callproof record ({exchange.dialect}).", [scenario])
        path = self.out / f"{name}.json"
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        self.recorded.append(path)
        _LOG.info("recorded %s", path)


def create_record_app(upstream: str, out: Path, *, client: httpx.AsyncClient | None = None) -> Starlette:
    """The recording proxy as an ASGI app: forwards to `upstream`, writes scenario files to `out` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    recorder = Recorder(upstream, out, client=client)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await recorder.aclose()

    app = Starlette(routes=[Route("/{path:path}", recorder.handle, methods=_METHODS)], lifespan=lifespan)
    app.state.recorder = recorder
    return app


class RecordServer(ThreadedServer):
    """The recording proxy on a real uvicorn server in a background thread (127.0.0.1, `port=0`: a free one);
    `url` is its base URL with /v1. Leaving the block (or `stop()`) shuts it down: answers still streaming get
    `graceful_timeout` seconds, then are cut, and what they had received is written."""

    def __init__(self, upstream: str, out: Path, *, host: str = "127.0.0.1", port: int = 0,
                 graceful_timeout: int = 2, log_level: str = "warning") -> None:
        app = create_record_app(upstream, out)
        self.recorder: Recorder = app.state.recorder
        super().__init__(app, host=host, port=port, name="callproof record", lifespan="on",
                         graceful_timeout=graceful_timeout, log_level=log_level)

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down (answers still streaming get the graceful timeout) and write what was recorded."""
        super().stop(timeout)
        self.recorder.flush()


def record_forever(*, upstream: str, out: Path, host: str = "127.0.0.1", port: int = 0,
                   stdout: TextIO = sys.stdout) -> int:
    """`callproof record`: proxy and record until SIGINT or SIGTERM, then let the answers in flight end (or cut
    them after a grace period), write what they received, and return how many exchanges were recorded.
    Raises OSError when the address cannot be bound."""
    logging.basicConfig(level=logging.INFO, format="callproof record: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    if not is_loopback(host):
        _LOG.warning("listening on %s: anyone who can reach it can use the upstream through it, with their own "
                     "credentials or none, and have their exchanges written to %s", host, out)
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    server = RecordServer(upstream, out, host=host, port=port)
    try:
        server.start()
        print(f"callproof record listening on {server.url}, forwarding to {upstream}, writing {out}", file=stdout,
              flush=True)
        while not stop.wait(0.2):
            if not server.running:
                raise RuntimeError("the recording proxy stopped unexpectedly")
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return len(server.recorder.recorded)
