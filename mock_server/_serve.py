"""Serving the mock: `MockServer` runs the app on uvicorn in a background thread on 127.0.0.1 and an ephemeral port
(a real server, so tests observe chunk timing and dropped connections, which ASGITransport cannot show), and
`serve_forever` is `callproof mock`: in the foreground until SIGINT or SIGTERM.

uvicorn runs with the plain asyncio loop and httptools: fixed deadlines on asyncio keep scripted gaps within a
millisecond (bench/results.md, timing fidelity), where uvloop's timers resolve to 1 ms; the HTTP parser has no part
in timing, and httptools' C parser serves about twice h11's short streams per second.
"""

from __future__ import annotations

import ipaddress
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import FrameType
from typing import TextIO

from callproof.harness import CallproofError
from callproof.harness.scenario import Scenario, bundled_scenarios, load_scenarios

from ._app import DEFAULT_CONNECTION_LIMIT, DEFAULT_MAX_BODY_BYTES, create_app
from ._clock import Clock, VirtualClock
from ._hold import Holds
from ._journal import Journal
from ._threaded import ThreadedServer

__all__ = ["ExposedControlError", "MockServer", "is_loopback", "serve_forever"]


class ExposedControlError(CallproofError):
    """`callproof mock` asked to listen beyond loopback with an open control API."""


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) only reaches this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class MockServer(ThreadedServer):
    """The mock upstream on a real uvicorn server in a background thread.

        with MockServer(strict=True) as mock:
            client = OpenAI(base_url=mock.url, api_key="callproof")
            ...
            assert mock.journal.requests()[0].scenario == "one_call"

    `url` is the base URL including /v1 (an OpenAI client's base_url); `root_url` is the same without it (an
    Anthropic client's base_url, and the control API under /_callproof/). `port=0` picks a free port. Leaving the
    block (or `stop()`) shuts the server down, giving open streams `graceful_timeout` seconds before they are cut.
    uvicorn logs (warnings and up) go through the standard `logging` tree; the server configures no handlers."""

    def __init__(
        self,
        scenarios: Mapping[str, Scenario] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        strict: bool = False,
        seed: int = 0,
        speed: float = 1.0,
        journal: Journal | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        graceful_timeout: int = 1,
        log_level: str = "warning",
        control: bool = True,
        control_token: str | None = None,
        clock: Clock | None = None,
        ws_connection_limit: float = DEFAULT_CONNECTION_LIMIT,
    ) -> None:
        self.journal = journal if journal is not None else Journal()
        #: The clock the plans play against (None: the real one); a `VirtualClock` plays timing instantly.
        self.clock = clock
        app = create_app(scenarios, strict=strict, seed=seed, speed=speed, journal=self.journal,
                         max_body_bytes=max_body_bytes, control=control, control_token=control_token, clock=clock,
                         ws_connection_limit=ws_connection_limit)
        self._holds: Holds = app.state.holds
        super().__init__(app, host=host, port=port, name="callproof mock", graceful_timeout=graceful_timeout,
                         log_level=log_level)

    def hold(self, cases: Iterable[str], timeout: float) -> None:
        """Hold the requests tagged with `cases` before their first byte until every one has arrived, for at most
        `timeout` seconds (docs/mock.md#holds): their streams are then in flight at once."""
        self._holds.hold(cases, timeout)


def serve_forever(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    scenario_paths: Iterable[Path] = (),
    scenarios: Mapping[str, Scenario] | None = None,
    strict: bool = False,
    seed: int = 0,
    journal_path: Path | None = None,
    speed: float = 1.0,
    out: TextIO = sys.stdout,
    control: bool = True,
    control_token: str | None = None,
    virtual_clock: bool = False,
    ws_connection_limit: float = DEFAULT_CONNECTION_LIMIT,
) -> None:
    """`callproof mock`: serve until SIGINT or SIGTERM, then shut down cleanly. Serves `scenarios` when given,
    else the files of `scenario_paths`, else the bundled corpus. `virtual_clock` plays every scripted delay at once
    (a `VirtualClock`: the journal's times still show the scripted gaps). `ws_connection_limit`: the seconds a
    WebSocket connection may stay open (docs/mock.md#websocket-mode).

    Raises `ScenarioError` for bad scenario files, `ExposedControlError` for a non-loopback address whose control
    API would be open to anyone, and `OSError` when the address cannot be bound."""
    logging.basicConfig(level=logging.WARNING, format="callproof mock: %(levelname)s: %(message)s")
    if not is_loopback(host):
        if control and not control_token:
            raise ExposedControlError(
                f"--host {host} exposes the mock beyond this machine, and its control API (/_callproof/journal holds "
                "every prompt, /_callproof/reset clears it) to anyone who can reach it: give --control-token TOKEN "
                "or --no-control")
        logging.getLogger("callproof.mock").warning(
            "listening on %s: reachable from other machines; the mock is a test double, not a server to expose", host)
    if scenarios is None:
        paths = list(scenario_paths)
        scenarios = load_scenarios(paths) if paths else bundled_scenarios()
    journal = Journal(journal_path) if journal_path is not None else None
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    server = MockServer(scenarios, host=host, port=port, strict=strict, seed=seed, speed=speed, journal=journal,
                        control=control, control_token=control_token,
                        clock=VirtualClock(time.monotonic()) if virtual_clock else None,
                        ws_connection_limit=ws_connection_limit)
    try:
        server.start()
        print(f"callproof mock listening on {server.url}", file=out, flush=True)
        while not stop.wait(0.5):
            if not server.running:
                raise RuntimeError("the mock server stopped unexpectedly")
    finally:
        server.stop()
        server.journal.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
