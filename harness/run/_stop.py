"""Ending a run cleanly: SIGTERM (what `timeout`, CI cancellation and `docker stop` send) is handled like Ctrl-C,
and no launched IUT outlives the run.

Each launched IUT runs in its own session, so a signal to the run never reaches it: the run stops it. Under
pytest-xdist a worker may be killed before it can, so every process that launches an IUT records its process group
in the folder named by `$CALLPROOF_IUT_GROUPS` (set by the controller, inherited by the workers), and the
controller stops whatever is still listed there once the workers are gone.

A process killed with SIGKILL runs no code at all, so each launched IUT also gets a `GroupGuard`: a small watchdog
process, in a session of its own, reading a pipe whose only writer is the process that launched the IUT. The kernel
closes that pipe however its writer dies; the watchdog then stops the IUT's process group (SIGTERM, SIGKILL after
`GRACE_S`). A normal stop releases the guard first, so the watchdog never signals a group id that may be reused.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

__all__ = ["GROUPS_ENV", "GroupGuard", "forget_group", "interrupted_by", "interruptible", "iut_groups", "record_group",
           "request_stop", "stop_group", "stop_recorded_groups", "stop_requested"]

#: The environment variable naming the folder where launched IUTs' process groups are recorded.
GROUPS_ENV = "CALLPROOF_IUT_GROUPS"
#: Seconds between SIGTERM and SIGKILL when an IUT's process group is stopped.
GRACE_S = 3.0


#: The signal that interrupted the run (set by `interruptible`): this process's state, not a value.
_interrupted: dict[str, str] = {}


def interrupted_by() -> str | None:
    """"SIGTERM" or "SIGINT" once `interruptible` caught one, else None."""
    return _interrupted.get("signal")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, grace: float = GRACE_S, reap: Callable[[], object] | None = None) -> None:
    """SIGTERM a process group, SIGKILL it when it is still there after `grace` seconds. `reap` (the leader's
    `Popen.poll`) collects the leader once it exits: an unreaped leader is a zombie that still counts as a member of
    its group, so without it every stop would wait the whole grace period."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while True:
        if reap is not None:
            reap()
        if not _group_alive(pgid) or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


#: The watchdog of `GroupGuard`: wait for the end of stdin (the launcher is gone), then stop the group argv[1].
_WATCHDOG = """
import os, signal, sys, time
group = int(sys.argv[1])
sys.stdin.buffer.read()
def alive():
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
try:
    os.killpg(group, signal.SIGTERM)
except (ProcessLookupError, PermissionError):
    sys.exit(0)
deadline = time.monotonic() + float(sys.argv[2])
while alive() and time.monotonic() < deadline:
    time.sleep(0.05)
try:
    os.killpg(group, signal.SIGKILL)
except (ProcessLookupError, PermissionError):
    pass
"""


class GroupGuard:
    """A watchdog that stops process group `pgid` when this process dies, however it dies (SIGKILL included):
    `start` it after launching the group, `release` it (the watchdog exits without a signal) before stopping the
    group yourself."""

    def __init__(self, watchdog: subprocess.Popen[bytes] | None, pipe: int | None) -> None:
        self._watchdog = watchdog
        self._pipe = pipe

    @classmethod
    def start(cls, pgid: int) -> GroupGuard:
        """The guard of `pgid`; a guard that does nothing when the watchdog cannot be started (the run goes on, and
        its own stop still ends the group)."""
        read, write = os.pipe()  # both ends non-inheritable: no other child holds the write end open
        try:
            watchdog = subprocess.Popen(  # our own interpreter, running the watchdog above
                [sys.executable, "-I", "-c", _WATCHDOG, str(pgid), str(GRACE_S)], stdin=read,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            )
        except OSError:
            os.close(write)
            return cls(None, None)
        finally:
            os.close(read)
        return cls(watchdog, write)

    def release(self) -> None:
        """End the watchdog without letting it signal the group."""
        if self._watchdog is not None:
            self._watchdog.kill()
            self._watchdog.wait()
            self._watchdog = None
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None


def _folder() -> Path | None:
    value = os.environ.get(GROUPS_ENV)
    return Path(value) if value else None


def record_group(pgid: int) -> None:
    """Note a launched IUT's process group, so the controller stops it even when this process cannot."""
    folder = _folder()
    if folder is not None:
        with contextlib.suppress(OSError):
            (folder / str(pgid)).touch()


def forget_group(pgid: int) -> None:
    """The group was stopped by the process that launched it."""
    folder = _folder()
    if folder is not None:
        (folder / str(pgid)).unlink(missing_ok=True)


#: The file in the `$CALLPROOF_IUT_GROUPS` folder by which the controller asks every process to stop early.
_STOP = "stop"


def request_stop(reason: str) -> None:
    """Ask every process of the run (pytest-xdist workers too: they share the folder) to run no further case."""
    folder = _folder()
    if folder is not None:
        with contextlib.suppress(OSError):
            (folder / _STOP).write_text(reason, encoding="utf-8")


def stop_requested() -> str | None:
    """Why the run was asked to stop early (`request_stop`), or None."""
    folder = _folder()
    if folder is None:
        return None
    try:
        return (folder / _STOP).read_text(encoding="utf-8") or "stopped"
    except OSError:
        return None


def stop_recorded_groups(folder: Path) -> list[int]:
    """Stop every process group still recorded in `folder` (all at once, one grace period); return their ids."""
    pgids = [int(p.name) for p in folder.iterdir() if p.name.isdigit()] if folder.is_dir() else []
    alive = [pgid for pgid in pgids if _group_alive(pgid)]
    for pgid in alive:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while any(_group_alive(p) for p in alive) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pgid in alive:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    for pgid in pgids:
        (folder / str(pgid)).unlink(missing_ok=True)
    return alive


@contextlib.contextmanager
def iut_groups() -> Iterator[Path | None]:
    """The controller's record of launched IUTs: a fresh folder in `$CALLPROOF_IUT_GROUPS` for the body (inherited by
    pytest-xdist workers), whose groups are stopped on the way out. Nested: the outer one does it (yields None)."""
    if _folder() is not None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="callproof-iut-") as name:
        os.environ[GROUPS_ENV] = name
        try:
            yield Path(name)
        finally:
            stop_recorded_groups(Path(name))
            os.environ.pop(GROUPS_ENV, None)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM raises `KeyboardInterrupt` as Ctrl-C does, so the run ends the same way: the IUT stopped, the report
    finished and marked incomplete. Once interrupted, further SIGTERM and SIGINT are ignored while the run winds
    down (that takes a few seconds at most). Only the main thread can install handlers: elsewhere this does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = {signal.SIGTERM: "SIGTERM", signal.SIGINT: "SIGINT"}
    _interrupted.clear()

    def interrupt(signum: int, frame: FrameType | None) -> None:
        if _interrupted:
            return
        _interrupted["signal"] = names.get(signal.Signals(signum), str(signum))
        raise KeyboardInterrupt(_interrupted["signal"])

    previous = {signum: signal.signal(signum, interrupt) for signum in names}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
