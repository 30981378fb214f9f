"""Gateways that mishandle a client going away (docs/spec/cancellation.md): the reference gateway's Chat upstream
with one defect each, caught by GW-CANCEL-001 or GW-CANCEL-002 in `cancel_mid_stream::cancellation` (the mutation
rows run them with `--upstream-dialect chat`). Both behave exactly like the reference while the client reads to
the end; only what they do after the client closed its connection differs. The reference gateway closes the
upstream request at once (examples/gateway/app.py `relay`; before the first byte `unless_gone`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable

import httpx

from examples.gateway import ChatUpstream
from examples.gateway.model import Event
from tests.fakes import tls

__all__ = ["CANCEL_DEFECTS"]

#: The background tasks the fakes start after the client left (kept so that they are not collected mid-way).
_BACKGROUND: set[asyncio.Task[None]] = set()


def _in_background(work: Awaitable[None]) -> None:
    task = asyncio.ensure_future(work)
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def _kept_open() -> None:
    """Stands in for the answer's aclose() where the gateway's relay calls it."""


class _Pumped(httpx.AsyncByteStream):
    """The body of an upstream answer as a background pump read it (None: its end)."""

    def __init__(self, queue: asyncio.Queue[bytes | None]) -> None:
        self.queue = queue

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := await self.queue.get()) is not None:
            yield chunk


class DrainsAfterDisconnect(ChatUpstream):
    """drains_after_disconnect: the upstream answer is read by a background pump that outlives the client: when
    the client goes away mid-stream, the pump reads the upstream to its end ("to keep the usage right") before it
    closes the connection: a generation nobody reads runs to its end (GW-CANCEL-001)."""

    def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        close = response.aclose
        response.aclose = _kept_open  # type: ignore[method-assign]  # the relay's close: the pump closes it

        async def pump() -> None:
            try:
                with contextlib.suppress(httpx.HTTPError):
                    async for chunk in response.aiter_raw():
                        queue.put_nowait(chunk)
            finally:
                queue.put_nowait(None)
                await close()

        _in_background(pump())
        return super().events(httpx.Response(response.status_code, headers=response.headers,
                                             stream=_Pumped(queue), request=response.request))


class RetriesAfterDisconnect(ChatUpstream):
    """retries_after_disconnect: when the client goes away mid-stream, the upstream request is closed (as it
    should be), taken for an upstream failure, and sent again; the retry is read to its end for nobody
    (GW-CANCEL-002)."""

    async def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        finished = False
        try:
            async for event in super().events(response):
                yield event
            finished = True
        finally:
            if not finished:
                _in_background(self._retry(response.request))

    @staticmethod
    async def _retry(sent: httpx.Request) -> None:
        await asyncio.sleep(0.05)  # a retry's small backoff
        async with httpx.AsyncClient(timeout=httpx.Timeout(30.0), verify=tls()) as client:
            with contextlib.suppress(httpx.HTTPError):
                again = client.build_request(sent.method, sent.url, content=sent.content, headers=sent.headers)
                answer = await client.send(again, stream=True)
                try:
                    async for _ in answer.aiter_raw():
                        pass
                finally:
                    await answer.aclose()


CANCEL_DEFECTS: dict[str, type[ChatUpstream]] = {
    "drains_after_disconnect": DrainsAfterDisconnect,
    "retries_after_disconnect": RetriesAfterDisconnect,
}
