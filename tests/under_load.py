"""Run the timing-sensitive tests (`-m timing`) beside CPU-bound competitors: `make test-under-load`, and `make test`.

    python -m tests.under_load [--hogs 2] [--timeout 300] [--beside COMMAND] [pytest arguments ...]

A test that holds only on an idle machine is a test that fails on a busy CI runner or a laptop compiling something.
This starts `--hogs` processes that spin (`while True: pass`), runs `pytest -m timing` with the remaining arguments,
and stops the hogs whatever happens: pytest passing or failing, the `--timeout` (the run is killed and fails), or
Ctrl-C. The exit status is pytest's (1 on the timeout). The hogs are this script's own children, stopped by their
process ids. Without a path among the arguments, pytest collects only the test files that use the marker (collecting
all of tests/ to deselect most of it would take longer than the timing tests themselves).

With `--beside COMMAND` (`make test`: the rest of the suite, `pytest -n 4 -m "not timing"`), COMMAND is the
competitor: it runs at the same time as the timing tests, its output on the terminal, theirs held and printed when
they end; the hogs start only if COMMAND ends first, so the timing tests run on a busy machine from start to end
without the machine being kept busy twice (the suite's 4 workers on 2 CPUs are CPU-bound). The exit status is the
first failure of the two (COMMAND's first).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tests.together import interruptible, replay, stop

__all__ = ["main"]

#: One CPU-bound competitor: a Python process that never sleeps.
HOG = (sys.executable, "-c", "while True: pass")
#: The tests directory, and what a file that has timing tests says.
TESTS = Path(__file__).resolve().parent
MARKER = "pytest.mark.timing"


def marked_files() -> list[str]:
    """The test files that use the `timing` marker, in path order."""
    return sorted(str(path) for path in TESTS.rglob("test_*.py") if MARKER in path.read_text(encoding="utf-8"))


def _stop(hogs: Sequence[subprocess.Popen[bytes]], tests: subprocess.Popen[bytes] | None) -> None:
    """Kill each hog, and pytest's session (its xdist workers too) if it still runs; reap them."""
    for hog in hogs:
        if hog.poll() is None:
            hog.kill()
    if tests is not None and tests.poll() is None:
        os.killpg(tests.pid, signal.SIGKILL)
    for process in [*hogs, *([tests] if tests is not None else [])]:
        process.wait(10)  # a generous bound, only so that none is left behind


def _start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen(HOG, stdin=subprocess.DEVNULL) for _ in range(count)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.under_load", description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound competitors beside the tests (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before the run is killed (default 300)")
    parser.add_argument("--beside", metavar="COMMAND", help="a command to run at the same time as the competitor "
                        "(the hogs start when it ends); its failure is the run's")
    options, pytest_args = parser.parse_known_args(argv)
    if not any(Path(arg.split("::")[0]).exists() for arg in pytest_args if not arg.startswith("-")):
        pytest_args = [*pytest_args, *marked_files()]
    with interruptible():  # Ctrl-C and SIGTERM end the run through the `finally` that stops the hogs
        return _run(options, pytest_args)


def _run(options: argparse.Namespace, pytest_args: list[str]) -> int:
    hogs: list[subprocess.Popen[bytes]] = []
    tests: subprocess.Popen[bytes] | None = None
    beside: subprocess.Popen[bytes] | None = None
    began = time.monotonic()
    with tempfile.TemporaryFile() as held:
        out = held if options.beside else None
        try:
            if options.beside:
                beside = subprocess.Popen(shlex.split(options.beside))
            else:
                hogs = _start_hogs(options.hogs)
            # its own session, so that a timeout or Ctrl-C here stops its xdist workers with it
            tests = subprocess.Popen([sys.executable, "-m", "pytest", "-m", "timing", *pytest_args],
                                     start_new_session=True, stdout=out, stderr=out)
            code: int | None = None
            while code is None or (beside is not None and beside.poll() is None):
                if code is None and tests.poll() is not None:
                    code = tests.returncode
                elif code is None and time.monotonic() - began > options.timeout:
                    print(f"tests.under_load: the timing tests took over {options.timeout:.0f} s under load; "
                          "killed", file=sys.stderr)
                    _stop((), tests)
                    code = 1
                elif code is None and not hogs and beside is not None and beside.poll() is not None:
                    # the competitor ended first: the hogs keep the machine busy until the timing tests end
                    hogs = _start_hogs(options.hogs)
                time.sleep(0.2)
        finally:
            _stop(hogs, tests)
            if beside is not None:  # Ctrl-C reached it too (it shares the terminal's process group): stopped alike
                stop(beside)
            replay(held)
    competitors = f"`{options.beside}`, then {options.hogs} hogs" if options.beside else (
        f"{options.hogs} CPU-bound competitors")
    print(f"tests.under_load: `pytest -m timing` beside {competitors}: exit {code} in "
          f"{time.monotonic() - began:.0f} s")
    return (beside.returncode if beside is not None else 0) or code


if __name__ == "__main__":
    sys.exit(main())
