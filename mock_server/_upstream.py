"""The mock's upstream request path, as a plain ASGI app: route by path suffix and method, read the body, select the
scenario (docs/spec/contracts.md §3), take a sequence's next leg, plan (from the plan cache when it can), hold,
journal, and play the plan on the wire. Each refusal answers in the request's dialect and is journaled. `_app`
mounts it beside the control API, which reads and resets its state.
"""

from __future__ import annotations

import difflib
import logging
import random
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import RequestFacts, Scenario, scenario_marker

from ._asgi import json_plan, loads_body, play_plan, read_body
from ._clock import Clock
from ._control import openai_error
from ._hold import Holds
from ._journal import Journal, case_tag
from ._plan_cache import PLAN_CACHE, plan_key
from ._planning import make_plan
from ._player import Plan, error_plan
from ._registry import Registry
from ._request_checks import request_refusal
from ._select import BY_MODEL, no_match, select
from ._sequences import Sequences, choose_leg, session_of
from .dialects import Dialect, RenderContext, Renderer

__all__ = ["Decision", "Upstream", "dialect_of", "json_object", "select_scenario"]

_LOG = logging.getLogger("callproof.mock")

_MODEL_PREFIX = "callproof/"


def dialect_of(path: str) -> Dialect | None:
    """The dialect an upstream path speaks, under any prefix (/v1/responses, /openai/v1/responses, /responses)."""
    path = path.rstrip("/")
    return next((row.name for row in DIALECTS.values() if path.endswith(row.route_suffix)), None)


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
        return model[len(_MODEL_PREFIX) :], BY_MODEL
    return None, ""


@dataclass(frozen=True, slots=True)
class Decision:
    """How the mock answers one request: the `plan`, the scenario that answers (None: none found), how it was
    chosen, the leg of a sequence, and `begin`, the instant the plan's schedule starts (None: a refusal, not a
    played scenario); `played` is the scenario (or leg) the plan plays."""

    plan: Plan
    scenario: str | None = None
    how: str | None = None
    leg: int | None = None
    begin: float | None = None
    played: Scenario | None = None


def json_object(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """The request body as a JSON object, or None and what is wrong with it (the 400's message)."""
    try:
        body = loads_body(raw)
    except ValueError as exc:
        return None, f"We could not parse the JSON body of your request ({exc})."
    if isinstance(body, dict):
        return body, ""
    return None, "The request body must be a JSON object."


class Upstream:
    """Every upstream request (any HTTP path not under /_callproof/), and the state answering them: the scenarios
    (bundled, loaded and registered), the play counts that seed chaos, the plan cache, the sequences' sessions, the
    holds and the journal. An ASGI app: the hot path skips Starlette's routing, Request and Response objects (a
    third of a short stream's cost), writing the plan's pre-encoded frames itself."""

    def __init__(
        self, scenarios: Mapping[str, Scenario], *, strict: bool, seed: int, speed: float, journal: Journal,
        max_body_bytes: int, clock: Clock, renderers: Mapping[Dialect, Renderer],
    ) -> None:
        self.scenarios = dict(scenarios)
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
        self.holds = Holds()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        plan, request_id, start = await self._answer(scope, receive)
        await play_plan(plan, request_id, start, send, receive, self.clock, self.journal)

    def reset(self) -> None:
        """Forget the requests (journal, play counts, sessions, holds) and the registered scenarios."""
        self.journal.reset()
        self.played.clear()
        self.sequences.reset()
        self.holds.reset()
        if self.registry.reset():
            self.plans.clear()  # keyed by id: a registered scenario's plans must not outlive it

    async def _answer(self, scope: Scope, receive: Receive) -> tuple[Plan, int | None, float]:
        """The plan answering the request of `scope`, its journal id (None: the answer's writes are not journaled,
        a path no dialect serves) and the instant its schedule starts. The steps: route by path and method, read
        the body, select the scenario (§3), take a sequence's next leg, plan (from the cache when it can), hold,
        journal; each refusal answers in the request's dialect and is journaled."""
        start = self.clock.now()
        method: str = scope["method"]
        dialect = dialect_of(scope["path"])
        if dialect is None or (renderer := self.renderers.get(dialect)) is None or method != "POST":
            plan, request_id = self._unserved(scope, start, dialect)
            return plan, request_id, start

        raw = await read_body(receive, self.max_body_bytes)
        if raw is None:
            plan = error_plan(renderer, 413, f"Request body larger than the mock's limit of {self.max_body_bytes} "
                              "bytes; raise it with create_app(max_body_bytes=...).", headers=[("connection", "close")])
            return plan, self._log(scope, start, 413, dialect=dialect), start
        text = raw.decode("utf-8", "replace")
        case = case_tag(text)
        body, problem = json_object(raw)
        if body is None:
            plan = error_plan(renderer, 400, problem)
            return plan, self._log(scope, start, 400, raw, dialect=dialect, case=case), start

        stream = body.get("stream") is True
        headers = Headers(scope=scope)
        query = scope.get("query_string", b"").decode("latin-1")
        decision = await self.decide(headers, text, body, renderer, case, stream=stream,
                                     session=session_of(headers, case),
                                     url=scope["path"] + (f"?{query}" if query else ""))
        plan = decision.plan
        if decision.begin is None:
            request_id = self._log(scope, start, plan.status, raw, dialect=dialect, stream=stream,
                                   scenario=decision.scenario, case=case, how=decision.how, leg=decision.leg)
            return plan, request_id, start
        request_id = self._log(scope, start, plan.status, raw, dialect=dialect, stream=stream,
                               scenario=decision.scenario, case=case, faults=plan.faults, planned=decision.begin,
                               how=decision.how, leg=decision.leg)
        return plan, request_id, decision.begin

    async def decide(
        self, headers: Mapping[str, str], text: str, body: dict[str, Any], renderer: Renderer, case: str | None, *,
        stream: bool, session: str | None, url: str = "",
    ) -> Decision:
        """The answer to a request whose JSON object `body` (`text` decoded) was read, over HTTP or a WebSocket
        turn: select the scenario (§3), take the `session`'s next leg of a sequence, plan (from the cache when it
        can) and wait for the case's hold. The caller journals it."""
        wanted, how = select_scenario(headers, text, body)
        scenario, chosen, fallback, facts = self._select(wanted, how, renderer.dialect, body, case)
        if scenario is None:
            plan = self._not_found(renderer, wanted, how) if facts is None else self._no_match(renderer, facts, wanted)
            return Decision(plan)
        refused = request_refusal(renderer, body)  # what the real upstream refuses (a tool without a name)
        if refused is not None:
            return Decision(refused, scenario.id, chosen)
        leg = None
        if scenario.legs:  # a sequence: the session's next leg answers (docs/mock.md#sequences)
            choice = choose_leg(self.sequences, scenario, renderer, session=session, body=body, strict=self.strict)
            if choice.scenario is None:
                assert choice.error is not None
                return Decision(choice.error, scenario.id, chosen, choice.index)
            scenario, leg = choice.scenario, choice.index

        answer = self._plan(scenario, renderer, stream, body, leg, fallback, (tuple(headers.items()), url))
        await self.holds.wait(case)  # a held case waits for the rest of its group (docs/mock.md#holds)
        # The schedule runs from here, once the plan is ready: rendering a large scenario never eats its gaps.
        return Decision(answer, scenario.id, chosen, leg, self.clock.now(), scenario)

    def _unserved(self, scope: Scope, start: float, dialect: Dialect | None) -> tuple[Plan, int | None]:
        """The answer to a path no dialect serves (404), a dialect without a renderer (501) or a method other than
        POST (405), and its journal id (None for the 404 and the 501: the request is journaled, their writes not)."""
        path: str = scope["path"]
        method: str = scope["method"]
        if dialect is None:
            message = f"Invalid URL ({method} {path}): the mock serves .../responses, .../chat/completions"
            message += " and .../messages under any prefix, and its control API under /_callproof/"
            self._log(scope, start, 404)
            return json_plan(404, openai_error(message, "unknown_url")), None
        renderer = self.renderers.get(dialect)
        if renderer is None:
            plan = json_plan(501, openai_error(f"The {dialect} dialect is not available.", "not_implemented"))
            self._log(scope, start, 501, dialect=dialect)
            return plan, None
        plan = error_plan(renderer, 405, f"Method {method} not allowed: send POST to {path}.",
                          headers=[("allow", "POST")])
        return plan, self._log(scope, start, 405, dialect=dialect)

    def _select(
        self, wanted: str | None, how: str, dialect: Dialect, body: dict[str, Any], case: str | None,
    ) -> tuple[Scenario | None, str, tuple[tuple[str, str], ...], RequestFacts | None]:
        """The scenario answering a request that asked for `wanted` (`how`), how it was chosen, the fallback
        headers when `default` stands in for an unknown id, and the request's facts when a match was tried and
        none held. §3 step 4: a request that named none, or an unknown id by model name, tries the match blocks
        (registered scenarios' included)."""
        scenario, how, facts = select(self.registry.find(wanted, case), wanted, how,
                                      self.registry.visible(case).values(), dialect, body)
        fallback: tuple[tuple[str, str], ...] = ()
        if scenario is None and not self.strict:
            scenario = self.scenarios.get("default")
            if scenario is not None and wanted is not None:
                fallback = self._fallback(wanted, how)
            how = "default"
        return scenario, how, fallback, facts

    def _fallback(self, wanted: str, how: str) -> tuple[tuple[str, str], ...]:
        """The headers telling that `default` played for the unknown id `wanted` (asked for by `how`)."""
        nearest = self._nearest(wanted)
        _LOG.warning("unknown scenario %r (from %s) played `default`%s; use --strict to answer 404 instead",
                     wanted, how, f"; nearest ids: {', '.join(nearest)}" if nearest else "")
        return (("x-callproof-fallback", f"unknown scenario {wanted!r}; played default"),
                ("x-callproof-nearest", ",".join(nearest)))

    def _plan(
        self, scenario: Scenario, renderer: Renderer, stream: bool, body: dict[str, Any], leg: int | None,
        fallback: tuple[tuple[str, str], ...], request: tuple[tuple[tuple[str, str], ...], str] = ((), ""),
    ) -> Plan:
        """The plan playing `scenario` (or its leg `leg`) for this request: the cached one for the same scenario,
        dialect, stream flag, leg and request, else a new one (a fallback's plan is never cached: its headers
        name the unknown id, nor one echoing the `request`'s headers and URL: GW-FAULT-005)."""
        played = self.played.get(scenario.id, 0)
        self.played[scenario.id] = played + 1
        echoes = any(f.params.get("echo_request") for f in scenario.faults)
        key = plan_key(scenario, renderer.dialect, stream, body, leg) if not fallback and not echoes else None
        cached = self.plans.get(key) if key is not None else None
        if cached is not None and key is not None:
            self.plans.move_to_end(key)
            return cached
        rng = random.Random(f"{self.seed}:{scenario.id}:{played}")
        model = body.get("model")
        ctx = RenderContext(model=model if isinstance(model, str) and model else "callproof-mock", request=body)
        answer = make_plan(scenario, renderer, ctx, stream=stream, rng=rng, speed=self.speed,
                           headers=[("x-callproof-scenario", scenario.id), *fallback,
                                    *([("x-callproof-leg", str(leg))] if leg is not None else [])],
                           request_headers=request[0], request_url=request[1])
        if key is not None:
            self.plans[key] = answer
            if len(self.plans) > PLAN_CACHE:
                self.plans.popitem(last=False)
        return answer

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

    def _no_match(self, renderer: Renderer, facts: RequestFacts, wanted: str | None) -> Plan:
        message, nearest = no_match(self.scenarios.values(), facts, wanted)
        return error_plan(renderer, 404, message, headers=[("x-callproof-nearest", ",".join(nearest))])

    def _nearest(self, wanted: str) -> list[str]:
        return difflib.get_close_matches(wanted, list(self.scenarios), n=5, cutoff=0.4)
