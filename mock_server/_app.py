"""The mock upstream as a Starlette app: the upstream request path (`_upstream.Upstream`: the three dialect
endpoints under any path prefix, scenario selection, plans played on the wire) and the control API under
/_callproof/. It binds nothing itself: `MockServer` and `callproof mock` run it on uvicorn.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import anyio._backends._asyncio  # noqa: F401 - see below
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from callproof.harness import __version__
from callproof.harness.scenario import Scenario, bundled_scenarios
from callproof.harness.transports import transport

from ._asgi import ScriptedDisconnect
from ._clock import Clock, RealClock
from ._control import Handler, guarded
from ._hold import hold_endpoint
from ._journal import Journal
from ._runtime import RuntimeControl
from ._upstream import Upstream, dialect_of
from ._websocket import DEFAULT_CONNECTION_LIMIT, WebSocketMode, refuse
from .dialects import RENDERERS, Dialect, Renderer

# anyio imports its asyncio backend when Starlette first streams (~15 ms): imported above, so the first stream of a
# process does not start late and squeeze its scripted gaps.

__all__ = ["DEFAULT_CONNECTION_LIMIT", "DEFAULT_MAX_BODY_BYTES", "ScriptedDisconnect", "create_app"]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
CONTROL = "/_callproof"
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class _QuietAbort(logging.Filter):
    """Keeps uvicorn from logging a traceback for every scripted disconnect."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        return not isinstance(exc, ScriptedDisconnect)


def _install_filter() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietAbort) for f in logger.filters):
        logger.addFilter(_QuietAbort())


class _Control:
    """The control API's handlers over the upstream's state."""

    def __init__(self, upstream: Upstream, control_token: str | None) -> None:
        self.upstream = upstream
        self.control_token = control_token
        self.runtime = RuntimeControl(upstream.registry, upstream.sequences, upstream.journal, upstream.clock,
                                      upstream.max_body_bytes, upstream.plans)

    def guard(self, handler: Handler, *, token: bool = True) -> Handler:
        """`handler` behind the control API's checks (`_control.guarded`); `token`: the control token applies."""
        return guarded(handler, self.control_token if token else None)

    async def health(self, request: Request) -> Response:
        upstream = self.upstream
        return JSONResponse({
            "status": "ok", "version": __version__, "scenarios": len(upstream.scenarios), "strict": upstream.strict,
            "seed": upstream.seed, "speed": upstream.speed,
        })

    async def list_scenarios(self, request: Request) -> Response:
        rows = [
            {"id": s.id, "feature": s.feature, "tags": list(s.tags), "description": s.description}
            for s in self.upstream.registry.visible(request.query_params.get("case")).values()
        ]
        return JSONResponse({"scenarios": rows})

    async def journal_lines(self, request: Request) -> Response:
        return PlainTextResponse(self.upstream.journal.to_jsonl(case=request.query_params.get("case")),
                                 media_type="application/x-ndjson")

    async def reset(self, request: Request) -> Response:
        self.upstream.reset()
        return JSONResponse({"status": "reset"})


class _MockApp(Starlette):
    """The Starlette app, with upstream requests (every HTTP path not under /_callproof/, the hot path) sent
    straight to the upstream handler; the control API, lifespan and the rest go through Starlette's routing."""

    upstream: Upstream

    websocket: WebSocketMode

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not _route_path(scope).startswith(_CONTROL_PREFIX):
            await self.upstream(scope, receive, send)
        elif scope["type"] == "websocket":
            path = _route_path(scope)
            dialect = dialect_of(path)
            if dialect is not None and transport("websocket").carries(dialect) and not path.startswith(_CONTROL_PREFIX):
                await self.websocket(scope, receive, send)
            else:
                await refuse(scope, receive, send, f"the mock serves WebSockets on .../responses only, not {path}")
        else:
            await super().__call__(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The path Starlette routes on (below a mount's root_path)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


_CONTROL_PREFIX = CONTROL + "/"


def create_app(
    scenarios: Mapping[str, Scenario] | None = None,
    *,
    strict: bool = False,
    seed: int = 0,
    speed: float = 1.0,
    journal: Journal | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    clock: Clock | None = None,
    renderers: Mapping[Dialect, Renderer] | None = None,
    control: bool = True,
    control_token: str | None = None,
    ws_connection_limit: float = DEFAULT_CONNECTION_LIMIT,
) -> Starlette:
    """The mock upstream as an ASGI app.

    `scenarios` defaults to the bundled corpus; `strict` answers 404 (listing the nearest ids) when no scenario
    matches instead of playing `default`; `seed` makes chaos (fault probabilities, jitter) reproducible: request n
    of a scenario draws from Random(f"{seed}:{id}:{n}"), n counted from start or the last reset; `speed` divides
    every scripted delay; `clock` is a `VirtualClock` in timing tests. The journal is `app.state.journal`.

    The control API (/_callproof/: health, scenarios, journal, reset, hold) refuses cross-origin browser requests; with
    `control_token` its routes other than health need `Authorization: Bearer <token>`; `control=False` leaves only
    health (the other control paths then answer the upstream's 404). A WebSocket upgrade on any path ending /responses
    serves the Responses WebSocket mode (docs/mock.md#websocket-mode); `ws_connection_limit` is the seconds a
    connection may stay open."""
    if speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    _install_filter()
    upstream = Upstream(
        bundled_scenarios() if scenarios is None else scenarios, strict=strict, seed=seed, speed=speed,
        journal=journal if journal is not None else Journal(), max_body_bytes=max_body_bytes,
        clock=clock if clock is not None else RealClock(), renderers=RENDERERS if renderers is None else renderers,
    )
    api = _Control(upstream, control_token or None)
    controls = [
        Route(f"{CONTROL}/scenarios", api.guard(api.list_scenarios), methods=["GET"]),
        Route(f"{CONTROL}/journal", api.guard(api.journal_lines), methods=["GET"]),
        Route(f"{CONTROL}/reset", api.guard(api.reset), methods=["POST"]),
        Route(f"{CONTROL}/hold", api.guard(hold_endpoint(upstream.holds)), methods=["POST"]),
        Route(f"{CONTROL}/scenarios", api.guard(api.runtime.register), methods=["POST"]),
        Route(f"{CONTROL}/scenarios/{{scenario_id}}", api.guard(api.runtime.remove), methods=["DELETE"]),
        Route(f"{CONTROL}/sequences", api.guard(api.runtime.legs), methods=["GET"]),
    ] if control else []
    app = _MockApp(routes=[
        Route(f"{CONTROL}/health", api.guard(api.health, token=False), methods=["GET"]),
        *controls,
        Route("/{path:path}", upstream, methods=_METHODS),
    ])
    app.upstream = upstream
    app.websocket = WebSocketMode(upstream, upstream.renderers.get("responses"), connection_limit=ws_connection_limit)
    app.state.journal = upstream.journal
    app.state.scenarios = upstream.scenarios
    app.state.plans = upstream.plans
    app.state.sequences = upstream.sequences
    app.state.registry = upstream.registry
    app.state.holds = upstream.holds
    return app
