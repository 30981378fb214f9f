"""The real clock (mock_server/_clock.py): it never wakes before a deadline, and it yields to the event loop instead
of sleeping only for the last part of a wait (so waiting costs little CPU)."""

from __future__ import annotations

import asyncio
import time

import pytest

from callproof.mock_server._clock import SPIN_S, RealClock

pytestmark = pytest.mark.timing  # `make test-under-load` runs them beside CPU-bound competitors too


def test_sleep_until_never_returns_before_its_deadline() -> None:
    clock = RealClock()

    async def main() -> list[float]:
        early = []
        for delay in (0.0, 0.0005, 0.003, 0.012):
            deadline = clock.now() + delay
            await clock.sleep_until(deadline)
            early.append(deadline - clock.now())
        return early

    assert all(e <= 0 for e in asyncio.run(main()))


def test_a_past_deadline_returns_at_once() -> None:
    clock = RealClock()
    began = time.monotonic()
    asyncio.run(clock.sleep_until(began - 10.0))
    assert time.monotonic() - began < 5.0  # at once: not the 10 s between the deadline and now


def test_waiting_costs_little_cpu_the_clock_yields_only_near_the_deadline() -> None:
    clock = RealClock()

    async def main() -> None:
        await clock.sleep_until(clock.now() + 0.05)

    began = time.process_time()
    asyncio.run(main())
    # yielding (not sleeping) for at most SPIN_S of the 50 ms: a busy wait from the start would cost ~50 ms of CPU
    assert time.process_time() - began < 0.02 + SPIN_S
