"""The clocks a plan is played against: the event loop's monotonic clock, and a virtual one for timing tests."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "RealClock", "SwitchClock", "VirtualClock"]


class Clock(Protocol):
    """Monotonic time in seconds and sleeping until an absolute deadline on the same scale."""

    def now(self) -> float: ...

    async def sleep_until(self, deadline: float) -> None: ...


#: How long before a deadline `RealClock` stops sleeping and yields to the event loop until it is due, at most...
SPIN_S = 0.0015
#: ... and at most this share of the wait (a 5 ms gap yields for its last 1 ms, a 50 ms gap for its last 1.5 ms).
SPIN_SHARE = 0.2


class RealClock:
    """The event loop's monotonic clock; sleeping to absolute deadlines keeps a long stream free of drift.

    A plain `asyncio.sleep` wakes late: epoll rounds its timeout up to the next millisecond, and a thread that slept
    wakes as late as the scheduler lets it. So the clock sleeps until shortly before the deadline, then yields to
    the event loop (other streams and I/O keep running) until the deadline has passed: the write is ready when it
    is due. It costs at most 1.5 ms of CPU per scripted gap; on a quiet machine it takes the p95 gap error of a plain
    sleep from ~0.75 ms to ~0.1 ms, and under load it changes nothing (bench/README.md, timing)."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()

    async def sleep_until(self, deadline: float) -> None:
        delay = deadline - time.monotonic()
        if delay <= 0:
            return
        spin = min(SPIN_S, delay * SPIN_SHARE)
        await asyncio.sleep(delay - spin)
        while time.monotonic() < deadline:
            await asyncio.sleep(0)


class VirtualClock:
    """A clock that jumps to every deadline at once: plays a plan in no real time, with exact timestamps.

    In-process tests of timing logic use it with `create_app(clock=VirtualClock())` and read the exact offsets
    from the journal. `sleeps` lists every deadline slept until, in order."""

    __slots__ = ("_now", "sleeps")

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    async def sleep_until(self, deadline: float) -> None:
        self.sleeps.append(deadline)
        self._now = max(self._now, deadline)
        await asyncio.sleep(0)


class SwitchClock:
    """A clock that delegates to `target`, which can change between tests: the `callproof_mock` fixture's server
    runs on one, switched to a `VirtualClock` for the tests marked `callproof_mock(virtual_clock=True)`."""

    __slots__ = ("target",)

    def __init__(self, target: Clock | None = None) -> None:
        self.target: Clock = target if target is not None else RealClock()

    def now(self) -> float:
        return self.target.now()

    async def sleep_until(self, deadline: float) -> None:
        await self.target.sleep_until(deadline)
