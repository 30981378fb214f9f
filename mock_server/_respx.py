"""Route httpx requests to the mock in-process with respx, for code under test that uses httpx.

Content only: the app runs in the same process through Starlette's test transport, which buffers each whole body, so
chunk timing, fragmentation and mid-stream disconnects are not observable this way. Use `MockServer` (a real
uvicorn server) for those."""

from __future__ import annotations

from collections.abc import Mapping

import httpx
import respx
from starlette.testclient import TestClient
from starlette.types import ASGIApp

from ._app import create_app
from ._scenario import Scenario

__all__ = ["route_to_mock"]


class _Handler:
    """A respx side effect answering through Starlette's TestClient, which runs the app on its own event loop in a
    portal thread: the same handler serves sync clients and async ones (whose request bodies httpx buffers)."""

    def __init__(self, app: ASGIApp) -> None:
        self._client = TestClient(app, raise_server_exceptions=False)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        answer = self._client.request(
            request.method, str(request.url), headers=list(request.headers.multi_items()), content=request.read()
        )
        return httpx.Response(answer.status_code, headers=list(answer.headers.multi_items()), content=answer.content)


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
