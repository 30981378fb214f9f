"""The ceiling for the mock benchmark: a bare Starlette app streaming pre-rendered bytes, with the same writes the
mock's player makes for the scenario (rendering and planning done once, at start-up).

`python -m bench.bare_app SCENARIO_DIR` serves on 127.0.0.1 (ephemeral port) and prints its URL."""

from __future__ import annotations

import random
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from callproof.mock_server import bundled_scenarios, load_scenarios, make_plan
from callproof.mock_server._render import RenderContext
from callproof.mock_server.renderers import RENDERERS


def app_for(scenario_dir: Path) -> Starlette:
    scenarios = {**bundled_scenarios(), **load_scenarios([scenario_dir])}
    writes = {
        sid: [w.data for w in make_plan(s, RENDERERS["responses"], RenderContext(), stream=True,
                                        rng=random.Random(0)).writes]
        for sid, s in scenarios.items()
    }

    async def handle(request: Request) -> Response:
        chunks = writes[request.headers["x-callproof-scenario"]]

        async def body() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/responses", handle, methods=["POST"])])


def main() -> None:
    app = app_for(Path(sys.argv[1]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"bare app listening on http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
