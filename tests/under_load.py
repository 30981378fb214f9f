"""Run the timing-sensitive tests (`-m timing`) beside CPU-bound competitors: `make test-under-load`.

    python -m tests.under_load [--hogs 2] [--timeout 300] [pytest arguments ...]

A test that holds only on an idle machine is a test that fails on a busy CI runner or a laptop compiling something.
This starts `--hogs` processes that spin (`while True: pass`), runs `pytest -m timing` with the remaining arguments,
and stops the hogs whatever happens: pytest passing or failing, the `--timeout` (the run is killed and fails), or
Ctrl-C. The exit status is pytest's (1 on the timeout). The hogs are this script's own children, stopped by their
process ids. Without a path among the arguments, pytest collects only the test files that use the marker (collecting
all of tests/ to deselect most of it would take longer than the timing tests themselves).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

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


def _terminated(signum: int, frame: object) -> None:
    """SIGINT (Ctrl-C) and SIGTERM end the run through the `finally` that stops the hogs (also where the shell
    started this script with SIGINT ignored, as it does a background job)."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.under_load", description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound competitors beside the tests (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before the run is killed (default 300)")
    options, pytest_args = parser.parse_known_args(argv)
    if not any(Path(arg.split("::")[0]).exists() for arg in pytest_args if not arg.startswith("-")):
        pytest_args = [*pytest_args, *marked_files()]
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _terminated)
    hogs = [subprocess.Popen(HOG, stdin=subprocess.DEVNULL) for _ in range(options.hogs)]
    tests: subprocess.Popen[bytes] | None = None
    began = time.monotonic()
    try:
        # its own session, so that a timeout or Ctrl-C here stops its xdist workers with it
        tests = subprocess.Popen([sys.executable, "-m", "pytest", "-m", "timing", *pytest_args],
                                 start_new_session=True)
        try:
            code = tests.wait(options.timeout)
        except subprocess.TimeoutExpired:
            print(f"tests.under_load: the timing tests took over {options.timeout:.0f} s beside {options.hogs} "
                  "CPU-bound competitors; killed", file=sys.stderr)
            code = 1
    finally:
        _stop(hogs, tests)
    print(f"tests.under_load: `pytest -m timing` beside {options.hogs} CPU-bound competitors: exit {code} in "
          f"{time.monotonic() - began:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
