"""A pass-through proxy: each front forwarded byte for byte to the same dialect upstream (`/v1/responses`,
`/v1/chat/completions`, `/v1/messages`), for the harness's `--front X --upstream-dialect X` (everything it streams
is what the mock wrote, as it arrives, so the mock's fault and quirk scenarios reach the checker as they are).

    python -m tests.fakes.passthrough --upstream http://127.0.0.1:PORT/v1 --port N [--cut-every K]

`--cut-every K` makes it deliberately flaky: every K-th request's answer is cut after its first chunk (tests of
`--repeat`, which must call such a gateway flaky).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator, Sequence

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

_HOP = {"content-length", "transfer-encoding", "connection", "content-encoding"}


def create_app(upstream: str, cut_every: int = 0) -> Starlette:
    client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))
    served = [0]

    async def forward(request: Request) -> Response:
        path = request.url.path.removeprefix("/v1")
        outgoing = client.build_request("POST", f"{upstream}{path}", content=await request.body(),
                                        headers={"content-type": "application/json"})
        answer = await client.send(outgoing, stream=True)
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
        served[0] += 1
        cut = bool(cut_every) and served[0] % cut_every == 0

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    yield chunk
                    if cut:
                        return
            except httpx.HTTPError:
                return  # the upstream dropped: so does the front
            finally:
                await answer.aclose()

        return StreamingResponse(body(), status_code=answer.status_code, headers=headers)

    paths = ("/v1/responses", "/v1/chat/completions", "/v1/messages")
    return Starlette(routes=[Route(path, forward, methods=["POST"]) for path in paths])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cut-every", type=int, default=0, metavar="K")
    args = parser.parse_args(argv)
    uvicorn.run(create_app(args.upstream, args.cut_every), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
