"""The implementation under test in gateway mode: a command the harness launches, a URL already running, or an
ASGI app served in-process on a real uvicorn server (docs/spec/contracts.md §4).

A launched IUT starts once (per process, so once per pytest-xdist worker) and is reused across cases; when it has
died, the next case restarts it, and the case that killed it carries its stderr tail as evidence. Starting fails
with `IUTError` naming the fix; a start that failed is not retried for every case (it would only fail again).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol, cast

import httpx

from callproof.harness._errors import CallproofError

from ._stop import GroupGuard, forget_group, record_group, stop_group
from ._templates import TemplateError, launch_argv, placeholders, render

if TYPE_CHECKING:
    import respx
    import uvicorn
    from starlette.types import ASGIApp

__all__ = ["AppIUT", "Gateway", "IUTError", "LaunchedIUT", "TargetIUT", "free_port"]

_TAIL_LINES = 40


class IUTError(CallproofError):
    """The implementation under test could not be started or reached; the message says why and how to fix it."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (the IUT binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class Gateway(Protocol):
    """An IUT serving a front dialect: `start()` makes it ready, `front_url` is where cases are sent."""

    description: str

    @property
    def front_url(self) -> str: ...

    def start(self) -> None: ...

    def alive(self) -> bool: ...

    def exited(self, grace: float) -> bool:
        """Whether the IUT has exited, given up to `grace` seconds to finish an exit under way (a process that
        dropped a connection as it died is not reaped at once: its last stderr line would be missed)."""
        ...

    def stderr_tail(self) -> str: ...

    def stop(self) -> None: ...


def _wait_ready(host: str, port: int, ready_url: str | None, deadline: float, alive: Callable[[], bool]) -> str | None:
    """None once the IUT is ready, else why not (with what the last attempt got: a status or a connection error)."""
    last = "no attempt"
    while time.monotonic() < deadline:
        if not alive():
            return "it exited before it was ready"
        if ready_url is None:
            try:
                with socket.create_connection((host, port), timeout=0.2):
                    return None
            except OSError as exc:
                last = exc.strerror or type(exc).__name__
        else:
            try:
                answer = httpx.get(ready_url, timeout=0.5)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            else:
                if answer.is_success:
                    return None
                last = f"HTTP {answer.status_code}"
        time.sleep(0.05)
    what = f"{ready_url} never answered 2xx" if ready_url else f"port {port} never accepted a connection"
    return f"{what} within the start timeout (the last attempt got: {last})"


@dataclass
class _Tail:
    """The last lines a process wrote to stderr, read by a thread so a chatty IUT never blocks on a full pipe."""

    lines: deque[str]
    thread: threading.Thread

    @classmethod
    def follow(cls, stream: IO[bytes]) -> _Tail:
        lines: deque[str] = deque(maxlen=_TAIL_LINES)

        def pump() -> None:
            for raw in iter(stream.readline, b""):
                lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
            stream.close()

        thread = threading.Thread(target=pump, name="callproof-iut-stderr", daemon=True)
        thread.start()
        return cls(lines, thread)

    def text(self) -> str:
        return "\n".join(self.lines)


class LaunchedIUT:
    """`--launch 'CMD ... {upstream} ... {port}'`: a process the harness starts, watches and stops."""

    def __init__(
        self, command: str, *, upstream: str, upstream_root: str, front_url: str = "http://127.0.0.1:{port}/v1/responses",
        ready_url: str | None = None, start_timeout: float = 30.0, cwd: Path | None = None,
    ) -> None:
        self.command = command
        self.upstream = upstream
        self.upstream_root = upstream_root
        self.front_template = front_url
        self.ready_template = ready_url
        self.start_timeout = start_timeout
        self.cwd = cwd
        self.description = command
        self.port = 0
        self.failure: str | None = None
        self.starts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._tail: _Tail | None = None
        self._guard: GroupGuard | None = None

    def _expand(self, template: str, flag: str = "--front-url") -> str:
        return render(template, flag, upstream=self.upstream, upstream_root=self.upstream_root, port=self.port)

    @property
    def front_url(self) -> str:
        return self._expand(self.front_template)

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def exited(self, grace: float) -> bool:
        if self._process is None:
            return True
        try:
            self._process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return False
        return True

    def start(self) -> None:
        """Start it unless it runs; raise `IUTError` (also on every later call) when it cannot be started."""
        if self.alive():
            return
        if self.failure is not None:
            raise IUTError(self.failure)
        self.stop()
        self.port = free_port()
        try:  # the templates as the run's check reads them (callproof run checks them before anything starts)
            argv = launch_argv(self.command, upstream=self.upstream, upstream_root=self.upstream_root, port=self.port)
            ready = None if self.ready_template is None else self._expand(self.ready_template, "--ready-url")
            self._expand(self.front_template)
        except TemplateError as exc:
            self.failure = str(exc)
            raise IUTError(self.failure) from None
        if "port" not in placeholders(self.command):  # a fixed port, named by --front-url: nothing else may hold it
            host, port = self._listens_on()
            with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
                self.failure = (f"port {port} of --front-url {self.front_url} is in use before the gateway started; "
                                "stop what holds it, or put {port} in --launch so callproof picks a free port")
                raise IUTError(self.failure)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        try:
            self._process = subprocess.Popen(  # the user's own command
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.cwd,
                env=env, start_new_session=True,
            )
        except OSError as exc:
            self.failure = f"--launch could not run {argv[0]!r}: {exc.strerror or exc}; check the command and PATH"
            raise IUTError(self.failure) from None
        record_group(self._process.pid)
        self._guard = GroupGuard.start(self._process.pid)  # the group dies with this process, even on SIGKILL
        assert self._process.stderr is not None
        self._tail = _Tail.follow(self._process.stderr)
        self.starts += 1
        host, port = self._listens_on()
        problem = _wait_ready(host, port, ready, time.monotonic() + self.start_timeout, self.alive)
        if problem is not None:
            code = self._process.poll()
            self.stop()
            status = f" (exit status {code})" if code is not None else ""
            tail = self.stderr_tail()
            last = f"; its last stderr line: {tail.splitlines()[-1]!r}" if tail.strip() else "; its stderr was empty"
            self.failure = (f"the IUT did not start: {problem}{status}{last}; command: {argv!r}"
                            + (f"\nstderr tail:\n{tail}" if tail.strip() else ""))
            raise IUTError(self.failure)

    def _listens_on(self) -> tuple[str, int]:
        """Where the gateway listens: the port callproof picked, or the fixed one of a --front-url without {port}."""
        if "port" in placeholders(self.command):
            return "127.0.0.1", self.port
        url = httpx.URL(self.front_url)
        return url.host or "127.0.0.1", url.port or (443 if url.scheme == "https" else 80)

    def stderr_tail(self) -> str:
        if self._tail is None:
            return ""
        self._tail.thread.join(timeout=0.2 if not self.alive() else 0)
        return self._tail.text()

    def exit_status(self) -> int | None:
        return None if self._process is None else self._process.poll()

    @property
    def pid(self) -> int | None:
        """The launched process's id while it runs (its children are its own: a process group)."""
        return self._process.pid if self.alive() and self._process is not None else None

    def stop(self) -> None:
        """SIGTERM the whole process group (the gateway and whatever it started), SIGKILL it after 3 s."""
        process = self._process
        if process is None:
            return
        stop_group(process.pid, reap=process.poll)  # also when the leader is gone: its children may hold the port
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=3)
        forget_group(process.pid)
        if self._guard is not None:
            self._guard.release()
            self._guard = None
        if self._tail is not None:
            self._tail.thread.join(timeout=1)


class TargetIUT:
    """`--target URL`: an IUT the user runs and points at the mock; the harness only sends it requests."""

    def __init__(self, url: str, upstream: str | None = None) -> None:
        self.url = url
        self.upstream = upstream
        self.description = url
        self.failure: str | None = None

    @property
    def front_url(self) -> str:
        return self.url

    def start(self) -> None:
        if self.failure is not None:
            raise IUTError(self.failure)
        parsed = httpx.URL(self.url)
        host, port = parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80)
        try:
            with socket.create_connection((host, port), timeout=5):
                pass
        except OSError as exc:
            self.failure = (f"--target {self.url}: nothing accepts connections on {host}:{port} "
                            f"({exc.strerror or exc}); start the IUT first, pointed at the mock"
                            + (f", {self.upstream}" if self.upstream else ""))
            raise IUTError(self.failure) from None

    def alive(self) -> bool:
        return True

    def exited(self, grace: float) -> bool:
        return False

    def stderr_tail(self) -> str:
        return ""

    def stop(self) -> None:
        return None


def load_object(spec: str, option: str) -> object:
    """`module:attr` (attr may be dotted) imported from the current directory and sys.path."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise IUTError(f"{option} {spec!r} is not module:attribute (e.g. {option} myapp.main:app)")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: object = importlib.import_module(module_name)
    except Exception as exc:  # any failure importing user code is a setup error
        raise IUTError(f"{option} {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise IUTError(f"{option} {spec!r}: {module_name!r} has no attribute {attr!r}") from None
    return target


class AppIUT:
    """`--app module:attr`: an ASGI app on a real uvicorn server in a thread (ASGITransport would buffer whole
    bodies and hide streaming bugs). Before the import the harness sets `CALLPROOF_UPSTREAM` and `OPENAI_BASE_URL`
    to the mock's URL (with /v1), `ANTHROPIC_BASE_URL` to its root and `CALLPROOF_UPSTREAM_DIALECT` to the run's
    `--upstream-dialect`, so an app that reads them streams from the
    real mock server; httpx calls to api.openai.com / api.anthropic.com are routed to the mock with respx."""

    def __init__(self, spec: str, *, upstream: str, upstream_root: str, mock_app: ASGIApp,
                 front_url: str = "http://127.0.0.1:{port}/v1/responses", upstream_dialect: str = "chat") -> None:
        self.spec = spec
        self.upstream_dialect = upstream_dialect
        self.upstream = upstream
        self.upstream_root = upstream_root
        self.mock_app = mock_app
        self.front_template = front_url
        self.description = spec
        self.failure: str | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._router: respx.MockRouter | None = None
        self.port = 0

    @property
    def front_url(self) -> str:
        return render(self.front_template, upstream=self.upstream, upstream_root=self.upstream_root, port=self.port)

    def start(self) -> None:
        # Start-up guard: respx, uvicorn and the mock's respx route load only for an --app IUT.
        import respx
        import uvicorn

        from callproof.mock_server import route_to_mock  # the start-up guard above

        if self._thread is not None and self._thread.is_alive():
            return
        if self.failure is not None:
            raise IUTError(self.failure)
        os.environ.update(CALLPROOF_UPSTREAM=self.upstream, OPENAI_BASE_URL=self.upstream,
                          ANTHROPIC_BASE_URL=self.upstream_root, CALLPROOF_UPSTREAM_DIALECT=self.upstream_dialect)
        app = load_object(self.spec, "--app")
        # Apps that hard-code the vendors' URLs reach the mock through respx (content only); everything else,
        # the harness's own requests included, passes through to the network.
        self._router = respx.mock(assert_all_called=False)
        for base in ("https://api.openai.com", "https://api.anthropic.com"):
            route_to_mock(self._router, base, app=self.mock_app)
        self._router.route().pass_through()
        self._router.start()
        self.port = free_port()
        # the user's object goes to uvicorn as it is: uvicorn says what is not an ASGI app
        config = uvicorn.Config(cast("ASGIApp", app), host="127.0.0.1", port=self.port, log_level="warning",
                                lifespan="auto")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="callproof-app", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.failure = f"--app {self.spec}: uvicorn did not start the app (see its log above)"
                raise IUTError(self.failure)
            time.sleep(0.01)

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def exited(self, grace: float) -> bool:
        return not self.alive()

    def stderr_tail(self) -> str:
        return ""

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._router is not None:
            self._router.stop()
            self._router = None
