"""Gateway fakes for the concurrency case (`concurrent::isolation`, GW-ISO-001), kept apart from gateways.py (which
lists them in its `DEFECTS`)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from starlette.types import ASGIApp, Receive, Scope, Send

from examples.gateway import Request, ResponsesFront
from examples.gateway.fronts.responses import Turn

__all__ = ["OneAtATime", "SharedState", "serialised"]


class SharedState(ResponsesFront):
    """shared_state: the output items and the calls by upstream key live in process-wide state that every
    response streaming at the same time uses, so concurrent responses mix their calls and items (GW-ISO-001).
    A request alone (nothing else streaming) starts from fresh state and is correct."""

    _streaming: ClassVar[list[Any]] = []  # the turns that are not closed yet

    def new_turn(self, request: Request) -> Turn:
        turn = super().new_turn(request)
        live = [other for other in self._streaming if not other.closed]
        if live:
            turn.items, turn.calls = live[0].items, live[0].calls
        self._streaming[:] = [*live, turn]
        return turn


class OneAtATime(ResponsesFront):
    """one_at_a_time (not a rule's defect): serves one request at a time, as a single-worker server does, the
    others waiting (before they call the upstream) until the answer before them has ended; concurrent requests never
    overlap upstream. Nothing shows whether its state is per request, so the concurrency case is an error that
    says so, never a pass. The front is the reference one; `serialised` wraps the app."""


def serialised(app: ASGIApp) -> ASGIApp:
    """`app`, handling one HTTP request at a time, start to end of its answer."""
    lock: asyncio.Lock | None = None

    async def one_at_a_time(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal lock
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        lock = lock or asyncio.Lock()
        async with lock:
            await app(scope, receive, send)

    return one_at_a_time
