"""Setup problems found before a run starts, each one line naming the flag and the fix: a busy mock port, scenario
files that do not load, output files that cannot be written, a number of workers the machine cannot bring up;
then `preflight` starts the implementation under test once, before any case (launched and ready, reached, or
imported), so an IUT that cannot start is one line, not one error per case. `callproof run` and the pytest plugin
ask the same questions, so neither starts work it cannot finish."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from callproof.harness._outputs import output_problem
from callproof.harness.scenario import ScenarioError

from ._config import RunConfig
from ._harness import Harness
from ._iut import IUTError
from ._plan import run_scenarios
from ._templates import placeholders

__all__ = ["MAX_WORKERS_PER_CPU", "Preflight", "output_problem", "port_problem", "preflight", "setup_problem",
           "workers_problem"]

#: `-n` above this many workers per CPU is refused: xdist would sit at "bringing up nodes" for minutes.
MAX_WORKERS_PER_CPU = 4


def port_problem(flag: str, port: int, host: str = "127.0.0.1") -> str | None:
    """Why `port` cannot be bound on `host` (as the mock binds it), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return (f"{flag} {port} cannot be bound on {host} ({exc.strerror or exc}); pick a free port or stop what "
                    "holds it")
    return None


def workers_problem(workers: str) -> str | None:
    """Why `-n workers` cannot run, or None: a number up to MAX_WORKERS_PER_CPU per CPU, `auto` or `logical`."""
    if workers in ("auto", "logical", ""):
        return None
    if not workers.isdigit():
        return f"-n {workers!r}: give a number of workers or auto"
    cap = MAX_WORKERS_PER_CPU * (os.cpu_count() or 1)
    if int(workers) > cap:
        return (f"-n {workers}: this machine has {os.cpu_count() or 1} CPUs, so at most {cap} workers; give fewer "
                "or -n auto")
    return None


def setup_problem(config: RunConfig, outputs: Iterable[tuple[str, Path | None]], workers: int = 1) -> str | None:
    """The first reason this run cannot start, or None: the scenario files, the workers a fixed port allows, the
    mock port, the output files (`outputs`: each flag, like `--md`, and its path)."""
    try:
        run_scenarios(config.scenario_paths)
    except ScenarioError as exc:
        return str(exc)
    if workers > 1 and config.mode == "gateway":
        if config.target:
            return "--target runs one mock on --mock-port, shared by one worker: drop -n"
        if config.mock_port:
            return f"--mock-port {config.mock_port} with -n {workers}: each worker runs its own mock; drop one of them"
        if config.launch and "port" not in placeholders(config.launch):
            return (f"--launch without {{port}} listens on one fixed port, so -n {workers} workers cannot each launch "
                    "it: drop -n, or put {port} in --launch")
    if config.mock_port:
        problem = port_problem("--mock-port", config.mock_port)
        if problem is not None:
            return problem
    for flag, path in outputs:
        problem = None if path is None else output_problem(flag, path)
        if problem is not None:
            return problem
    return None


@dataclass(frozen=True, slots=True)
class Preflight:
    """A preflight that passed, handed by `callproof run` to the pytest plugin (`pytest.main(plugins=[...])`) so
    the plugin does not repeat it: the started harness, for the cases to reuse when they run in this process (no
    pytest-xdist workers), else None (it was closed: each worker starts its own)."""

    harness: Harness | None


def preflight(config: RunConfig, *, keep: bool) -> tuple[Harness | None, str | None]:
    """Start what every case needs, once, before any case runs (`Harness.preflight`): (the started harness, None),
    the harness closed unless `keep`; or (None, why it cannot start, in one line: the exit status and last stderr
    line, the refused connection, the import error, the program not found)."""
    harness = Harness(config)
    try:
        harness.preflight()
    except IUTError as exc:
        harness.close()
        return None, str(exc).splitlines()[0]
    except BaseException:
        harness.close()
        raise
    if not keep:
        harness.close()
        return None, None
    return harness, None
