"""Route httpx requests to the mock in-process with respx, for code under test that uses httpx.

Content only: the app runs in the same process through httpx.ASGITransport, which buffers each whole body, so
chunk timing, fragmentation and mid-stream disconnects are not observable this way. Use `MockServer` (a real
uvicorn server) for those."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import anyio
import httpx
from starlette.types import ASGIApp

from callproof.harness.scenario import Scenario

from ._app import create_app

if TYPE_CHECKING:  # the caller's router: importing respx costs every process that imports the mock 57 ms
    import respx

__all__ = ["route_to_mock"]


class _Handler:
    """A respx side effect that runs the app through httpx.ASGITransport on a fresh event loop in a worker
    thread, so the same handler serves sync clients and async ones (from inside their running loop)."""

    def __init__(self, app: ASGIApp) -> None:
        self._transport = httpx.ASGITransport(app=app)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        inner = httpx.Request(request.method, request.url, headers=request.headers, content=request.read())
        with ThreadPoolExecutor(max_workers=1) as pool:
            status, headers, content = pool.submit(anyio.run, self._send, inner).result()
        return httpx.Response(status, headers=headers, content=content)

    async def _send(self, request: httpx.Request) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        answer = await self._transport.handle_async_request(request)
        return answer.status_code, answer.headers.raw, await answer.aread()


def route_to_mock(
    router: respx.Router,
    base_url: str = "https://api.openai.com",
    *,
    scenarios: Mapping[str, Scenario] | None = None,
    strict: bool = True,
    app: ASGIApp | None = None,
) -> respx.Route:
    """Answer every request under `base_url` with the mock (the bundled scenarios by default), in-process:

        with respx.mock as router:
            route_to_mock(router)
            client = OpenAI(api_key="x")    # talks to https://api.openai.com, served by the mock
            client.responses.create(model="callproof/one_call", input="...")
    """
    handler = _Handler(app if app is not None else create_app(scenarios, strict=strict))
    return router.route(url__startswith=base_url).mock(side_effect=handler)
