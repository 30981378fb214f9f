"""A gateway fake for the per-case limits (`--max-events N`, `--max-bytes N`, GW-LIMIT-001), kept apart from
gateways.py (which lists it in its `DEFECTS`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from examples.gateway import Request, ResponsesFront
from examples.gateway.model import Event

__all__ = ["RunawayStream"]


class RunawayStream(ResponsesFront):
    """runaway_stream: after its terminal event the Responses front writes that last write again and again, never
    ending the stream (a replay loop); without a limit the case runs into the case timeout, with `--max-events` or
    `--max-bytes` it fails GW-LIMIT-001 as soon as the answer passes the limit."""

    async def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        last = b""
        async for part in super().stream_events(request, events):
            last = part or last
            yield part
        while True:  # ends when the reader hangs up (Starlette stops a response whose client disconnected)
            await asyncio.sleep(0.002)
            yield last
