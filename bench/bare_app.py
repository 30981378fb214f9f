"""The ceiling of the mock benchmark: a bare ASGI app streaming pre-rendered bytes.

At start-up it renders each scenario of the given files once, with the same renderer, context and request body the
mock uses, into the same writes the mock's player makes (frames due at the same instant grouped into one write);
then it sends them, as the mock does, with no selection, planning, timing or journal.

    python -m bench.bare_app SCENARIO_FILE REQUEST_JSON

serves `POST /v1/responses` (the scenario named by header `x-callproof-scenario`) on 127.0.0.1, an ephemeral port,
with uvicorn configured exactly as `callproof mock` runs it (asyncio loop, httptools, server in a thread); prints
`bare ceiling listening on http://127.0.0.1:PORT/v1` and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import json
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from callproof.mock_server import load_scenarios, make_plan
from callproof.mock_server.dialects import RENDERERS
from callproof.mock_server.dialects._render import RenderContext

HEADERS = [(b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no"),
           (b"content-type", b"text/event-stream; charset=utf-8")]


def create_ceiling(writes: Mapping[str, Sequence[bytes]]) -> ASGIApp:
    """The bare app: a plain ASGI app sending each scenario's pre-rendered writes, the last with the body's end,
    under the mock's SSE headers (the mock's own request path is plain ASGI too)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        name = next(v for k, v in scope["headers"] if k == b"x-callproof-scenario").decode()
        chunks = writes[name]
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        last = len(chunks) - 1
        for i, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < last})

    return app


def prerender(scenario_file: Path, body: dict[str, Any]) -> dict[str, list[bytes]]:
    """Every scenario's writes as the mock plans them for this request body (Responses dialect, seed 0)."""
    ctx = RenderContext(model=str(body.get("model") or "callproof-mock"), request=body)
    return {
        sid: [w.data for w in make_plan(scenario, RENDERERS["responses"], ctx, stream=True,
                                        rng=random.Random(f"0:{sid}:0")).writes]
        for sid, scenario in load_scenarios([scenario_file]).items()
    }


def main() -> int:
    app = create_ceiling(prerender(Path(sys.argv[1]), json.loads(sys.argv[2])))
    # Bound, configured and run as MockServer does (mock_server/_serve.py), so only the app differs.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, loop="asyncio", http="httptools", ws="none", lifespan="off", log_level="warning",
                            log_config=None, access_log=False, timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="bare-ceiling", daemon=True)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            print("bare ceiling: uvicorn did not start", file=sys.stderr)
            return 1
        time.sleep(0.005)
    print(f"bare ceiling listening on http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    while not stop.wait(0.5) and thread.is_alive():
        pass
    server.should_exit = True
    thread.join(10)
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
