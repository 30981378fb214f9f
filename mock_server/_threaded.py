"""An ASGI app on a real uvicorn server in a background thread, bound to a host and port (0: a free one): what
`MockServer` and `RecordServer` run on. Real sockets, so tests observe chunk timing and dropped connections, which
ASGITransport cannot show; the plain asyncio loop (timer precision: see `_serve`) and httptools' C HTTP parser."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Literal, Self

import uvicorn
import uvicorn.protocols.http.httptools_impl  # see below
import uvicorn.protocols.websockets.websockets_sansio_impl  # see below
from starlette.applications import Starlette

from ._ws_protocol import BatchingWebSocketProtocol

__all__ = ["ThreadedServer"]

# The protocol modules the server runs, imported with this module rather than when a server first starts: an
# in-process pytest run (pytester) forgets the modules first imported during it, and an httptools or websockets
# imported again afterwards raises exception classes the server's modules no longer catch (a WebSocket upgrade then
# fails with an uncaught HttpParserUpgrade).


class ThreadedServer:
    """`start()` binds and waits until the server accepts connections; `stop()` asks it to finish (open streams get
    `graceful_timeout` seconds), then forces it; both safe to call again. A context manager: the block runs with the
    server started. `root_url` is where it listens, `url` the same with /v1 (an OpenAI client's base_url)."""

    def __init__(self, app: Starlette, *, host: str, port: int, name: str, lifespan: Literal["on", "off"] = "off",
                 graceful_timeout: int = 1, log_level: str = "warning") -> None:
        self.app = app
        self.host = host
        self.port = 0
        self._requested_port = port
        self._name = name
        self._lifespan = lifespan
        self._graceful = graceful_timeout
        self._log_level = log_level
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def root_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout: float = 10.0) -> Self:
        """Bind, start serving and wait until the server accepts connections (RuntimeError after `timeout`)."""
        if self._thread is not None:
            raise RuntimeError(f"{self._name} already started")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio disables Nagle only on sockets whose proto says TCP, and with Nagle a small
        # write waits for the ACK of the previous one (up to 40 ms of delayed ACK): scripted timing would be lost.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind((self.host, self._requested_port))
        except OSError:
            sock.close()
            raise
        self._socket = sock
        self.port = sock.getsockname()[1]
        # WebSockets through the `websockets` package's sans-I/O protocol (the mock's Responses WebSocket mode), with
        # a turn's messages due at once sent in one write (`_ws_protocol`).
        config = uvicorn.Config(
            self.app, loop="asyncio", http="httptools", ws=BatchingWebSocketProtocol, lifespan=self._lifespan,
            log_level=self._log_level, log_config=None, access_log=False,
            timeout_graceful_shutdown=max(1, self._graceful),
        )
        server = self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                                        name=self._name.replace(" ", "-"), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the {self._name} did not start on {self.root_url} within {timeout} s")
            time.sleep(0.005)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Shut down and wait for the server thread (at most `timeout` seconds, then forced)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
