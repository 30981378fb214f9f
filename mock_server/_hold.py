"""Holds: requests whose case tags form a group wait at the mock, before the first byte of their answers, until
every case of the group has arrived or the hold's time has run out. The harness's concurrency cases (GW-ISO-001,
CLI-012) hold their requests so that their streams are in flight at once however loaded the machine is: a verdict
on isolation needs streams that overlapped (docs/mock.md#holds).

Holds are set from any thread (the harness's, or the control API's handler) and awaited on the server's loop; a
request waits by polling every 2 ms, which only held requests pay. Time is real time, under any clock."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ._control import Handler, openai_error

__all__ = ["MAX_HOLD_SECONDS", "Holds", "hold_endpoint"]

#: The longest a hold may last.
MAX_HOLD_SECONDS = 60.0
_POLL = 0.002


@dataclass
class _Group:
    cases: frozenset[str]
    deadline: float
    arrived: set[str] = field(default_factory=set)

    def released(self, now: float) -> bool:
        return len(self.arrived) >= len(self.cases) or now >= self.deadline


class Holds:
    """The groups of case tags held at the mock. `hold(cases, timeout)` starts a group; a request under one of its
    cases awaits `wait(case)`, which returns once every case of its group has arrived (or at the deadline); a
    released case is forgotten, so later requests under it (retries) are not held. `reset()` forgets every group."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: dict[str, _Group] = {}

    def hold(self, cases: Iterable[str], timeout: float) -> None:
        """Hold the requests of `cases` until all have arrived, for at most `timeout` seconds from now."""
        group_cases = frozenset(cases)
        if not group_cases or any(not isinstance(c, str) or not c for c in group_cases):
            raise ValueError("a hold needs at least one case tag, each a non-empty string")
        if not 0 < timeout <= MAX_HOLD_SECONDS:
            raise ValueError(f"a hold's timeout must be above 0 and at most {MAX_HOLD_SECONDS:g} s, got {timeout!r}")
        now = time.monotonic()
        group = _Group(group_cases, now + timeout)
        with self._lock:
            for case, old in list(self._groups.items()):  # groups nobody came for end at their deadline
                if now >= old.deadline:
                    del self._groups[case]
            for case in group_cases:
                self._groups[case] = group

    def reset(self) -> None:
        with self._lock:
            self._groups.clear()

    def __len__(self) -> int:
        """The case tags held now (arrived or not)."""
        return len(self._groups)

    async def wait(self, case: str | None) -> None:
        """Return once the group of `case` is released (at once when `case` is not held)."""
        if case is None or not self._groups:  # the hot path: nothing held
            return
        with self._lock:
            group = self._groups.get(case)
            if group is None:
                return
            group.arrived.add(case)
        while not group.released(time.monotonic()):
            await asyncio.sleep(_POLL)
        with self._lock:
            if self._groups.get(case) is group:
                del self._groups[case]


def hold_endpoint(holds: Holds) -> Handler:
    """POST /_callproof/hold {"cases": [tag, ...], "timeout_ms": N}: the requests of those case tags wait before
    their first byte until all have arrived, or N ms have passed."""

    async def hold(request: Request) -> Response:
        try:
            body = await request.json()
            cases, timeout_ms = body["cases"], body["timeout_ms"]
            if not isinstance(cases, list) or isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int | float):
                raise TypeError("cases must be a list of case tags and timeout_ms a number")
            holds.hold(cases, timeout_ms / 1000)
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            example = f'{{"cases": ["<case uuid>", ...], "timeout_ms": 1 to {int(MAX_HOLD_SECONDS * 1000)}}}'
            return JSONResponse(openai_error(f"Bad hold: {problem}; send {example}.", "bad_hold"), status_code=400)
        return JSONResponse({"status": "held", "cases": len(set(cases))})

    return hold
