"""Run commands at the same time: `make check`'s halves of its tests, one pytest process each.

    python -m tests.together COMMAND [COMMAND ...]

The first command's output goes to the terminal as it comes; each other command's is held and printed, in order,
once it has ended. The exit status is the first failure in the order given (0 when every command passed). Ctrl-C
and SIGTERM stop them all (each is sent SIGINT, as Ctrl-C would, and killed if it has not ended within a minute), and
what they printed is still shown.

Why not pytest-xdist: on 2 CPUs, `pytest -n 2` over `make check`'s 4,200 fast tests spends 50 CPU-s where one
process spends 30 (each worker collects and imports every module, every report crosses to the controller), so two
processes with half the modules each end in 16-20 s where `-n 2` takes 25-30.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import IO

__all__ = ["interruptible", "main", "replay", "stop"]


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Inside, SIGINT (Ctrl-C) and SIGTERM raise SystemExit(128 + the signal), so that the `finally` blocks stop the
    children (also where the shell started this process with SIGINT ignored, as it does a background job); the
    handlers are put back as they were on the way out (these tools also run inside tests)."""
    previous = {signum: signal.signal(signum, _terminated) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def replay(held: IO[bytes]) -> None:
    """Print what a command whose output was held wrote, after what this process has printed."""
    held.seek(0)
    sys.stdout.flush()
    sys.stdout.buffer.write(held.read())
    sys.stdout.flush()


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop `process` if it still runs, as Ctrl-C does (so that pytest ends its session and stops what it launched);
    killed if it has not ended within a minute."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def main(argv: Sequence[str] | None = None) -> int:
    commands = list(sys.argv[1:] if argv is None else argv)
    if not commands or any(c.startswith("-") for c in commands):
        print("usage: python -m tests.together COMMAND [COMMAND ...]", file=sys.stderr)
        return 2
    processes: list[subprocess.Popen[bytes]] = []
    began = time.monotonic()
    with interruptible(), contextlib.ExitStack() as files:
        held: list[IO[bytes]] = [files.enter_context(tempfile.TemporaryFile()) for _ in commands[1:]]
        try:
            for i, command in enumerate(commands):
                out = held[i - 1] if i else None
                try:
                    processes.append(subprocess.Popen(shlex.split(command), stdout=out, stderr=out,
                                                      stdin=subprocess.DEVNULL if i else None))
                except OSError as exc:
                    print(f"tests.together: cannot run {command!r}: {exc.strerror}", file=sys.stderr)
                    return 2
            for process in processes:
                process.wait()
        finally:
            for process in processes:
                stop(process)
            for file in held:
                replay(file)
    codes = [p.returncode for p in processes]
    print(f"tests.together: {len(commands)} commands, exit {' '.join(map(str, codes))} in "
          f"{time.monotonic() - began:.0f} s")
    return next((code for code in codes if code), 0)


if __name__ == "__main__":
    sys.exit(main())
