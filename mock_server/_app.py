"""The mock upstream as a Starlette app: the three dialect endpoints under any path prefix, scenario selection
(docs/spec/contracts.md §3), plans played on the wire, and the control API under /_callproof/. It binds nothing itself:
`MockServer` and `callproof mock` run it on uvicorn.
"""

from __future__ import annotations

import difflib
import logging
import random
from collections import OrderedDict
from collections.abc import Mapping
from functools import partial
from typing import Any

import anyio._backends._asyncio  # noqa: F401 - see below
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from callproof.harness._version import __version__
from callproof.harness.scenario import RequestFacts, Scenario, bundled_scenarios, scenario_marker

from ._asgi import ScriptedDisconnect, json_plan, loads_body, read_body, send_plan
from ._clock import Clock, RealClock
from ._control import Handler, guarded, openai_error
from ._hold import Holds, hold_endpoint
from ._journal import Journal, case_tag
from ._plan_cache import PLAN_CACHE, plan_key
from ._planning import make_plan
from ._player import Plan, error_plan
from ._registry import Registry
from ._runtime import RuntimeControl
from ._select import by_match, no_match
from ._sequences import Sequences, choose_leg, session_of
from .dialects import RENDERERS, Dialect, RenderContext, Renderer

# anyio imports its asyncio backend when Starlette first streams (~15 ms): imported above, so the first stream of a
# process does not start late and squeeze its scripted gaps.

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ScriptedDisconnect", "create_app", "select_scenario"]

_LOG = logging.getLogger("callproof.mock")

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
CONTROL = "/_callproof"
_MODEL_PREFIX = "callproof/"
_SUFFIXES: tuple[tuple[str, Dialect], ...] = (
    ("/chat/completions", "chat"), ("/responses", "responses"), ("/messages", "anthropic"),
)
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


def dialect_of(path: str) -> Dialect | None:
    """The dialect an upstream path speaks, under any prefix (/v1/responses, /openai/v1/responses, /responses)."""
    path = path.rstrip("/")
    for suffix, dialect in _SUFFIXES:
        if path.endswith(suffix):
            return dialect
    return None


def select_scenario(headers: Mapping[str, str], text: str, body: Mapping[str, Any]) -> tuple[str | None, str]:
    """The scenario id a request asks for and how it asked: header, then body marker, then model name."""
    header = headers.get("x-callproof-scenario", "").strip()
    if header:
        return header, "header x-callproof-scenario"
    marked = scenario_marker(text)
    if marked:
        return marked, "marker [callproof:scenario=...]"
    model = body.get("model")
    if isinstance(model, str) and model.startswith(_MODEL_PREFIX) and len(model) > len(_MODEL_PREFIX):
        return model[len(_MODEL_PREFIX) :], "model callproof/<id>"
    return None, ""


class _Mock:
    """The request handlers and their shared state."""

    def __init__(
        self, scenarios: Mapping[str, Scenario], *, strict: bool, seed: int, speed: float, journal: Journal,
        max_body_bytes: int, clock: Clock, renderers: Mapping[Dialect, Renderer], control_token: str | None,
    ) -> None:
        self.scenarios = dict(scenarios)
        self.control_token = control_token
        self.strict = strict
        self.seed = seed
        self.speed = speed
        self.journal = journal
        self.max_body_bytes = max_body_bytes
        self.clock = clock
        self.renderers = renderers
        self.played: dict[str, int] = {}
        self.plans: OrderedDict[str, Plan] = OrderedDict()
        self.registry = Registry(self.scenarios)
        self.sequences = Sequences()
        self.runtime = RuntimeControl(self.registry, self.sequences, journal, clock, max_body_bytes, self.plans)
        self.holds = Holds()

    # -- control API --

    def guard(self, handler: Handler, *, token: bool = True) -> Handler:
        """`handler` behind the control API's checks (`_control.guarded`); `token`: the control token applies."""
        return guarded(handler, self.control_token if token else None)

    async def health(self, request: Request) -> Response:
        return JSONResponse({
            "status": "ok", "version": __version__, "scenarios": len(self.scenarios), "strict": self.strict,
            "seed": self.seed, "speed": self.speed,
        })

    async def list_scenarios(self, request: Request) -> Response:
        rows = [
            {"id": s.id, "feature": s.feature, "tags": list(s.tags), "description": s.description}
            for s in self.registry.visible(request.query_params.get("case")).values()
        ]
        return JSONResponse({"scenarios": rows})

    async def journal_lines(self, request: Request) -> Response:
        return PlainTextResponse(self.journal.to_jsonl(case=request.query_params.get("case")),
                                 media_type="application/x-ndjson")

    async def reset(self, request: Request) -> Response:
        self.journal.reset()
        self.played.clear()
        self.sequences.reset()
        self.holds.reset()
        if self.registry.reset():
            self.plans.clear()  # keyed by id: a registered scenario's plans must not outlive it
        return JSONResponse({"status": "reset"})

    # -- upstream endpoints --

    async def upstream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Every upstream request, as a plain ASGI app: the hot path skips Starlette's routing, Request and
        Response objects (a third of a short stream's cost), writing the plan's pre-encoded frames itself."""
        plan, request_id, start = await self._answer(scope, receive)
        await send_plan(plan, request_id, start, send, self.clock, self.journal)

    async def _answer(self, scope: Scope, receive: Receive) -> tuple[Plan, int | None, float]:
        """The plan answering the request of `scope`, its journal id (None: the answer's writes are not journaled,
        a path no dialect serves) and the instant its schedule starts."""
        start = self.clock.now()
        path: str = scope["path"]
        method: str = scope["method"]
        dialect = dialect_of(path)

        log = partial(self._log, scope, start)

        if dialect is None:
            message = f"Invalid URL ({method} {path}): the mock serves .../responses, .../chat/completions"
            message += " and .../messages under any prefix, and its control API under /_callproof/"
            log(404)
            return json_plan(404, openai_error(message, "unknown_url")), None, start
        renderer = self.renderers.get(dialect)
        if renderer is None:
            plan = json_plan(501, openai_error(f"The {dialect} dialect is not available.", "not_implemented"))
            log(501, dialect=dialect)
            return plan, None, start
        if method != "POST":
            plan = error_plan(renderer, 405, f"Method {method} not allowed: send POST to {path}.",
                              headers=[("allow", "POST")])
            return plan, log(405, dialect=dialect), start

        raw = await read_body(receive, self.max_body_bytes)
        if raw is None:
            plan = error_plan(renderer, 413, f"Request body larger than the mock's limit of {self.max_body_bytes} "
                              "bytes; raise it with create_app(max_body_bytes=...).", headers=[("connection", "close")])
            return plan, log(413, dialect=dialect), start
        text = raw.decode("utf-8", "replace")
        case = case_tag(text)
        try:
            body = loads_body(raw)
        except ValueError as exc:
            body = None
            problem = f"We could not parse the JSON body of your request ({exc})."
        else:
            problem = "" if isinstance(body, dict) else "The request body must be a JSON object."
        if problem:
            plan = error_plan(renderer, 400, problem)
            return plan, log(400, raw, dialect=dialect, case=case), start
        assert isinstance(body, dict)

        stream = body.get("stream") is True
        headers = Headers(scope=scope)
        wanted, how = select_scenario(headers, text, body)
        scenario = self.registry.find(wanted, case)
        facts = None
        if wanted is None:  # §3 step 4: the first scenario whose match holds (registered ones included)
            scenario, how, facts = by_match(self.registry.visible(case).values(), dialect, body)
        fallback: list[tuple[str, str]] = []
        chosen = how
        if scenario is None and not self.strict:
            scenario = self.scenarios.get("default")
            chosen = "default"
            if scenario is not None and wanted is not None:
                nearest = self._nearest(wanted)
                fallback = [("x-callproof-fallback", f"unknown scenario {wanted!r}; played default"),
                            ("x-callproof-nearest", ",".join(nearest))]
                _LOG.warning("unknown scenario %r (from %s) played `default`%s; use --strict to answer 404 instead",
                             wanted, how, f"; nearest ids: {', '.join(nearest)}" if nearest else "")
        if scenario is None:
            plan = self._not_found(renderer, wanted, how) if facts is None else self._no_match(renderer, facts)
            request_id = log(404, raw, dialect=dialect, stream=stream, case=case)
            return plan, request_id, start

        leg = None
        if scenario.legs:  # a sequence: the session's next leg answers (docs/mock.md#sequences)
            choice = choose_leg(self.sequences, scenario, renderer, session=session_of(headers, case),
                                body=body, strict=self.strict)
            if choice.scenario is None:
                assert choice.error is not None
                request_id = log(choice.error.status, raw, dialect=dialect, stream=stream, scenario=scenario.id,
                                 case=case, how=chosen, leg=choice.index)
                return choice.error, request_id, start
            scenario, leg = choice.scenario, choice.index
        played = self.played.get(scenario.id, 0)
        self.played[scenario.id] = played + 1
        key = plan_key(scenario, renderer.dialect, stream, body, leg) if not fallback else None
        cached = self.plans.get(key) if key is not None else None
        if cached is not None and key is not None:
            self.plans.move_to_end(key)
            answer = cached
        else:
            rng = random.Random(f"{self.seed}:{scenario.id}:{played}")
            model = body.get("model")
            ctx = RenderContext(model=model if isinstance(model, str) and model else "callproof-mock", request=body)
            answer = make_plan(scenario, renderer, ctx, stream=stream, rng=rng, speed=self.speed,
                               headers=[("x-callproof-scenario", scenario.id), *fallback,
                                        *([("x-callproof-leg", str(leg))] if leg is not None else [])])
            if key is not None:
                self.plans[key] = answer
                if len(self.plans) > PLAN_CACHE:
                    self.plans.popitem(last=False)
        await self.holds.wait(case)  # a held case waits for the rest of its group (docs/mock.md#holds)
        # The schedule runs from here, once the plan is ready: rendering a large scenario never eats its gaps.
        begin = self.clock.now()
        request_id = log(answer.status, raw, dialect=dialect, stream=stream, scenario=scenario.id,
                         case=case, faults=answer.faults, planned=begin,
                         how=chosen, leg=leg)
        return answer, request_id, begin

    def _log(self, scope: Scope, start: float, status: int, raw: bytes | None = None, *,
             dialect: Dialect | None = None, stream: bool = False, scenario: str | None = None, case: str | None = None,
             faults: tuple[str, ...] = (), planned: float | None = None, how: str | None = None,
             leg: int | None = None) -> int:
        """Journal the request of `scope`, which arrived at `start`; `raw` is its body when it was read."""
        return self.journal.log_request(time=start, method=scope["method"], path=scope["path"],
                                        raw_headers=scope["headers"], raw_body=raw, status=status, dialect=dialect,
                                        stream=stream, scenario=scenario, case=case, faults=faults, start=planned,
                                        how=how, leg=leg)

    def _not_found(self, renderer: Renderer, wanted: str | None, how: str) -> Plan:
        if wanted is None:
            message = ("No scenario selected: send header x-callproof-scenario: <id>, put "
                       "[callproof:scenario=<id>] in the request text, or use model callproof/<id>"
                       + ("" if self.strict else "; no `default` scenario is loaded") + ".")
            nearest: list[str] = []
        else:
            nearest = self._nearest(wanted)
            message = f"Unknown scenario {wanted!r} (from {how})"
            message += f"; nearest ids: {', '.join(nearest)}." if nearest else "; see GET /_callproof/scenarios."
        return error_plan(renderer, 404, message, headers=[("x-callproof-nearest", ",".join(nearest))])

    def _no_match(self, renderer: Renderer, facts: RequestFacts) -> Plan:
        message, nearest = no_match(self.scenarios.values(), facts)
        return error_plan(renderer, 404, message, headers=[("x-callproof-nearest", ",".join(nearest))])

    def _nearest(self, wanted: str) -> list[str]:
        return difflib.get_close_matches(wanted, list(self.scenarios), n=5, cutoff=0.4)


class _Upstream:
    """`_Mock.upstream` as an ASGI endpoint for a Starlette route (a bound method would be taken for a
    request/response handler)."""

    def __init__(self, mock: _Mock) -> None:
        self.mock = mock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.mock.upstream(scope, receive, send)


class _MockApp(Starlette):
    """The Starlette app, with upstream requests (every HTTP path not under /_callproof/, the hot path) sent
    straight to the upstream handler; the control API, lifespan and the rest go through Starlette's routing."""

    upstream: _Upstream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not _route_path(scope).startswith(_CONTROL_PREFIX):
            await self.upstream(scope, receive, send)
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
) -> Starlette:
    """The mock upstream as an ASGI app.

    `scenarios` defaults to the bundled corpus; `strict` answers 404 (listing the nearest ids) when no scenario
    matches instead of playing `default`; `seed` makes chaos (fault probabilities, jitter) reproducible: request n
    of a scenario draws from Random(f"{seed}:{id}:{n}"), n counted from start or the last reset; `speed` divides
    every scripted delay; `clock` is a `VirtualClock` in timing tests. The journal is `app.state.journal`.

    The control API (/_callproof/: health, scenarios, journal, reset, hold) refuses cross-origin browser requests; with
    `control_token` its routes other than health need `Authorization: Bearer <token>`; `control=False` leaves only
    health (the other control paths then answer the upstream's 404)."""
    if speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    _install_filter()
    mock = _Mock(
        bundled_scenarios() if scenarios is None else scenarios, strict=strict, seed=seed, speed=speed,
        journal=journal if journal is not None else Journal(), max_body_bytes=max_body_bytes,
        clock=clock if clock is not None else RealClock(), renderers=RENDERERS if renderers is None else renderers,
        control_token=control_token or None,
    )
    controls = [
        Route(f"{CONTROL}/scenarios", mock.guard(mock.list_scenarios), methods=["GET"]),
        Route(f"{CONTROL}/journal", mock.guard(mock.journal_lines), methods=["GET"]),
        Route(f"{CONTROL}/reset", mock.guard(mock.reset), methods=["POST"]),
        Route(f"{CONTROL}/hold", mock.guard(hold_endpoint(mock.holds)), methods=["POST"]),
        Route(f"{CONTROL}/scenarios", mock.guard(mock.runtime.register), methods=["POST"]),
        Route(f"{CONTROL}/scenarios/{{scenario_id}}", mock.guard(mock.runtime.remove), methods=["DELETE"]),
        Route(f"{CONTROL}/sequences", mock.guard(mock.runtime.legs), methods=["GET"]),
    ] if control else []
    upstream = _Upstream(mock)
    app = _MockApp(routes=[
        Route(f"{CONTROL}/health", mock.guard(mock.health, token=False), methods=["GET"]),
        *controls,
        Route("/{path:path}", upstream, methods=_METHODS),
    ])
    app.upstream = upstream
    app.state.journal = mock.journal
    app.state.scenarios = mock.scenarios
    app.state.plans = mock.plans
    app.state.sequences = mock.sequences
    app.state.registry = mock.registry
    app.state.holds = mock.holds
    return app
