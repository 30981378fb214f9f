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


class RealClock:
    """The event loop's monotonic clock; sleeping to absolute deadlines keeps a long stream free of drift."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()

    async def sleep_until(self, deadline: float) -> None:
        delay = deadline - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


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
