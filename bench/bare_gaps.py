"""The reference of bench_timing's real-clock figure: a bare asyncio HTTP/1.1 server that streams one scenario's
writes, rendered once at start-up by the mock's own player, each at its scripted offset from the request's arrival
(an absolute deadline, as the mock schedules them), with nothing else: no routing, no scenario selection, no
journal, no Starlette or uvicorn. Same asyncio event loop as `callproof mock`, one chunk per write.

    python -m bench.bare_gaps SCENARIO_FILE SCENARIO_ID REQUEST_BODY_JSON

Prints `bare listening on http://127.0.0.1:PORT/v1` once it accepts connections; serves until killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import sys
from pathlib import Path

from callproof.mock_server import load_scenarios, make_plan
from callproof.mock_server.dialects import RENDERERS
from callproof.mock_server.dialects._render import RenderContext

_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n"
         b"transfer-encoding: chunked\r\n\r\n")


async def serve(path: Path, scenario_id: str, body: dict[str, object]) -> None:
    scenario = load_scenarios([path])[scenario_id]
    model = body.get("model")
    plan = make_plan(scenario, RENDERERS["responses"],
                     RenderContext(model=model if isinstance(model, str) else "callproof-mock", request=body),
                     stream=True, rng=random.Random(0))
    writes = [(w.at, b"%x\r\n" % len(w.data) + w.data + b"\r\n") for w in plan.writes]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        loop = asyncio.get_running_loop()
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).lower()
                start = loop.time()
                length = 0
                for line in head.split(b"\r\n"):
                    if line.startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                writer.write(_HEAD)
                for at, data in writes:
                    delay = start + at - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    writer.write(data)
                    await writer.drain()
                writer.write(b"0\r\n\r\n")
                await writer.drain()
                if b"connection: close" in head:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"bare listening on http://127.0.0.1:{port}/v1", flush=True)
    async with server:
        await server.serve_forever()


def main() -> int:
    path, scenario_id, body = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(path, scenario_id, body))
    return 0


if __name__ == "__main__":
    sys.exit(main())
