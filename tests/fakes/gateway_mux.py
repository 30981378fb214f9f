"""Every gateway of gateways.py, broken or not, in one process, chosen by the front URL's path: the mutation table's
rows share one launched process instead of starting one each (tests/harness/run/test_mutations.py).

    python -m tests.fakes.gateway_mux --port N

`http://127.0.0.1:N/<mock port>/<upstream dialect>/<defect or none>/v1/responses` (or any front's path, and the
Responses WebSocket front's) is `gateways.gateway_app(http://127.0.0.1:<mock port>/v1, <upstream dialect>, <defect>)`
with the prefix taken off the path: an app of its own per prefix, built on its first request, so one run's upstream
connections and state are never another's (a run points its own mock's port in the path). `url()` spells the prefix.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from examples.gateway import serve

from .gateways import DEFECTS, gateway_app

__all__ = ["app", "main", "url"]

_DIALECTS = ("chat", "anthropic", "responses")


def url(port: int, mock_port: int, upstream: str, defect: str | None, path: str) -> str:
    """The front URL (`path`: /v1/responses, ...) of `defect` (None: the reference gateway) over an `upstream`
    dialect whose mock listens on `mock_port`, in the process on `port`."""
    return f"http://127.0.0.1:{port}/{mock_port}/{upstream}/{defect or 'none'}{path}"


def app() -> ASGIApp:
    """The routing app: each prefix's gateway built on first use and kept."""
    apps: dict[tuple[str, str, str], ASGIApp] = {}

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # nothing to start; the gateways' clients close with the process
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        _, port, upstream, defect, *rest = [*scope["path"].split("/", 4), "", "", "", ""][:5]
        if not port.isdigit() or upstream not in _DIALECTS or (defect != "none" and defect not in DEFECTS):
            if scope["type"] == "http":
                await PlainTextResponse(f"no gateway at {scope['path']}: see tests/fakes/gateway_mux.py",
                                        status_code=404)(scope, receive, send)
            return
        key = (port, upstream, defect)
        if key not in apps:
            apps[key] = gateway_app(f"http://127.0.0.1:{port}/v1", upstream, None if defect == "none" else defect)
        path = "/" + rest[0]
        await apps[key]({**scope, "path": path, "raw_path": path.encode()}, receive, send)

    return route


def main(argv: Sequence[str] | None = None) -> int:
    command = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    command.add_argument("--host", default="127.0.0.1")
    command.add_argument("--port", type=int, required=True)
    args = command.parse_args(argv)
    serve(app(), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
