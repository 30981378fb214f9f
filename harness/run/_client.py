"""Client mode: a client under test, run through an adapter against the mock (docs/spec/contracts.md §5).

`--client-cmd CMD` runs the adapter program once per case (stdin: the case's request in the client's dialect,
`--client-dialect`; stdout: one result object); `--client module:function` calls `function(request, base_url)`
in-process, with `dialect=` too when the function takes it. Either way the outcome is an `AdapterRun`: the result
object when the adapter kept the protocol, else why not (crash, timeout, garbage) with its stderr tail. Nothing the
adapter does raises here.

`base_url` (env `CALLPROOF_BASE_URL`) is the mock's URL with /v1, whatever the dialect: the dialect's path appended
is its endpoint (`/responses`, `/chat/completions`, `/messages`). A command also gets `CALLPROOF_DIALECT`, the
OpenAI SDK's variables, and the Anthropic SDK's (`ANTHROPIC_BASE_URL` without /v1: that SDK appends /v1/messages).

`--client-transport websocket` (Responses only) tells the adapter to use the Responses API's WebSocket mode: a
command gets `CALLPROOF_TRANSPORT=websocket` and `CALLPROOF_WS_URL` (the base URL with a ws scheme: the SDKs append
/responses to it), a function `transport="websocket"` (it must take a `transport` parameter, or `**kwargs`).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from callproof.harness._types import Dialect
from callproof.harness.judge import AdapterRun, protocol_problem
from callproof.harness.transports import DEFAULT_TRANSPORT, transport

from ._iut import IUTError, load_object

__all__ = ["ClientAdapter", "CommandClient", "InProcessClient", "program_problem"]

_TAIL = 4000


class ClientAdapter(Protocol):
    description: str

    def run(self, request: Mapping[str, Any], base_url: str, timeout: float, *,
            case_env: Mapping[str, str] | None = None) -> AdapterRun: ...


def _tail(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text[-_TAIL:]


def program_problem(adapter: ClientAdapter) -> str | None:
    """Why an adapter program cannot be run (its program is not found or not executable), or None: checked once
    before any case, so a typo is one line, not an error per case."""
    if isinstance(adapter, CommandClient) and shutil.which(adapter.argv[0]) is None:
        return (f"--client-cmd could not run {adapter.argv[0]!r}: no such program, or it is not executable; check the "
                "command and PATH")
    return None


class CommandClient:
    """`--client-cmd CMD`: the adapter program, run per case in its own process group."""

    def __init__(self, command: str, dialect: Dialect, transport: str = "http") -> None:
        self.dialect = dialect
        self.transport = transport
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise IUTError(f"--client-cmd {command!r} is not a valid command ({exc})") from None
        if not self.argv:
            raise IUTError("--client-cmd is empty: give the adapter command, e.g. 'python my_adapter.py'")
        self.description = command

    def run(self, request: Mapping[str, Any], base_url: str, timeout: float, *,
            case_env: Mapping[str, str] | None = None) -> AdapterRun:
        env = {**os.environ, "CALLPROOF_BASE_URL": base_url, "CALLPROOF_DIALECT": self.dialect,
               "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "callproof",
               "ANTHROPIC_BASE_URL": base_url.removesuffix("/v1"), "ANTHROPIC_API_KEY": "callproof",
               "CALLPROOF_MAX_RETRIES": "0", "PYTHONUNBUFFERED": "1", "CALLPROOF_TRANSPORT": self.transport}
        spec = transport(self.transport)
        if spec.url_env is not None:  # the transport's base URL (an http one's scheme swapped: ws://)
            env[spec.url_env] = spec.url(base_url)
        env.update(case_env or {})  # a sequence case: CALLPROOF_TOOL_LOOP, CALLPROOF_MAX_RETRIES (docs/adapters.md)
        start = time.monotonic()
        try:
            process = subprocess.Popen(  # the user's own command
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise IUTError(f"--client-cmd could not run {self.argv[0]!r}: {exc.strerror or exc}; check the command "
                           "and PATH") from None
        try:
            out, err = process.communicate(json.dumps(request).encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            return AdapterRun(None, f"the adapter did not finish within the case timeout of {timeout:g} s",
                              _tail(err), time.monotonic() - start, timed_out=True)
        seconds = time.monotonic() - start
        if process.returncode != 0:
            return AdapterRun(None, f"the adapter exited with status {process.returncode}", _tail(err), seconds)
        text = out.decode("utf-8", "replace").strip()
        if not text:
            return AdapterRun(None, "the adapter exited 0 and printed nothing on stdout: print one result object",
                              _tail(err), seconds)
        try:
            value = json.loads(text)
        except ValueError:
            shown = text[:200] + ("..." if len(text) > 200 else "")
            return AdapterRun(None, f"stdout is not one JSON object: {shown!r}", _tail(err), seconds)
        problem = protocol_problem(value)
        return AdapterRun(None if problem else value, problem, _tail(err), seconds)


class InProcessClient:
    """`--client module:function`: `function(request: dict, base_url: str) -> dict`, called in this process; a
    function that takes a `dialect` parameter (or `**kwargs`) gets `dialect=` the client dialect too; in a
    WebSocket run it gets `transport="websocket"`, and must take that parameter (or `**kwargs`)."""

    def __init__(self, spec: str, dialect: Dialect, transport: str = "http") -> None:
        function = load_object(spec, "--client")
        if not callable(function):
            raise IUTError(f"--client {spec!r} is not callable: point it at a function(request, base_url) -> dict")
        self.function: Callable[..., Any] = function
        self.kwargs: dict[str, str] = {"dialect": dialect} if _takes(function, "dialect") else {}
        if transport != DEFAULT_TRANSPORT:
            if not _takes(function, "transport"):
                raise IUTError(f"--client {spec!r} takes no transport parameter, so it cannot be told to use "
                               f"--client-transport {transport}: add `transport: str = \"http\"` to its parameters "
                               "and connect over WebSocket when it says websocket "
                               "(`callproof docs adapters#over-websocket`)")
            self.kwargs["transport"] = transport
        self.description = spec

    def run(self, request: Mapping[str, Any], base_url: str, timeout: float, *,
            case_env: Mapping[str, str] | None = None) -> AdapterRun:
        """Call the function in a daemon thread and wait at most `timeout`: a function that hangs is reported as
        timed out (its thread cannot be killed; it is left to finish or to die with the process)."""
        start = time.monotonic()
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                kwargs = {**self.kwargs, **_case_kwargs_of(self.function, case_env)}
                box["value"] = self.function(dict(request), base_url, **kwargs)
            except Exception as exc:  # the client's own failure is evidence, not a harness crash
                box["error"] = (f"the function raised {type(exc).__name__}: {exc}", traceback.format_exc())

        worker = threading.Thread(target=call, name="callproof-client", daemon=True)
        worker.start()
        worker.join(timeout)
        seconds = time.monotonic() - start
        if worker.is_alive():
            return AdapterRun(None, f"the function did not return within the case timeout of {timeout:g} s", "",
                              seconds, timed_out=True)
        if "error" in box:
            return AdapterRun(None, box["error"][0], _tail(box["error"][1]), seconds)
        problem = protocol_problem(box.get("value"))
        return AdapterRun(None if problem else box["value"], problem, "", seconds)


def _case_kwargs_of(function: Callable[..., Any], case_env: Mapping[str, str] | None) -> dict[str, Any]:
    """A sequence case's settings as keywords, for a function that takes them: `tool_loop=True` (agent loop),
    `max_retries=N` (retry sequence); docs/adapters.md#loops-and-retries."""
    kwargs: dict[str, Any] = {}
    if case_env and case_env.get("CALLPROOF_TOOL_LOOP") == "1" and _takes(function, "tool_loop"):
        kwargs["tool_loop"] = True
    if case_env and "CALLPROOF_MAX_RETRIES" in case_env and _takes(function, "max_retries"):
        kwargs["max_retries"] = int(case_env["CALLPROOF_MAX_RETRIES"])
    return kwargs


def _takes(function: Callable[..., Any], name: str) -> bool:
    """Whether `function` accepts the keyword `name` (`dialect`, `transport`)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin or C function without a signature: call it as documented
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == name and p.kind is not p.POSITIONAL_ONLY) for p in parameters)
