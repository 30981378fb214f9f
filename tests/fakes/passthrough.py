"""A pass-through proxy: the Responses front forwarded byte for byte to a Responses upstream, for the harness's
`--upstream-dialect responses` (everything it streams is what the mock wrote, as it arrives).

    python -m tests.fakes.passthrough --upstream http://127.0.0.1:PORT/v1 --port N
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


def create_app(upstream: str) -> Starlette:
    client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))

    async def responses(request: Request) -> Response:
        outgoing = client.build_request("POST", f"{upstream}/responses", content=await request.body(),
                                        headers={"content-type": "application/json"})
        answer = await client.send(outgoing, stream=True)
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    yield chunk
            except httpx.HTTPError:
                return  # the upstream dropped: so does the front
            finally:
                await answer.aclose()

        return StreamingResponse(body(), status_code=answer.status_code, headers=headers)

    return Starlette(routes=[Route("/v1/responses", responses, methods=["POST"])])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    uvicorn.run(create_app(args.upstream), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
