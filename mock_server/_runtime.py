"""The control routes that change or report the mock's scenarios at run time: `POST /_callproof/scenarios`
(register), `DELETE /_callproof/scenarios/{id}` (remove), both journaled, and `GET /_callproof/sequences` (the legs
each session played and left unplayed). `_app` mounts them behind the control API's guards."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from callproof.harness.scenario import ScenarioError

from ._clock import Clock
from ._control import openai_error
from ._journal import Journal
from ._player import Plan
from ._registry import Registry, parse_registration, registration_summary
from ._sequences import Sequences

__all__ = ["RuntimeControl"]


@dataclass(frozen=True, slots=True)
class RuntimeControl:
    registry: Registry
    sequences: Sequences
    journal: Journal
    clock: Clock
    max_body_bytes: int
    #: The app's cache of rendered plans: keyed by scenario id, so emptied when the ids' scenarios change.
    plans: MutableMapping[str, Plan]

    def _log(self, request: Request, status: int, raw: bytes | None, case: str | None) -> None:
        self.journal.log_request(time=self.clock.now(), method=request.method, path=request.url.path,
                                 raw_headers=request.scope["headers"], raw_body=raw, status=status, case=case)

    async def register(self, request: Request) -> Response:
        """Register the scenarios of the body: 201, 400 naming the JSON path, 409 on a clash without ?replace."""
        case = request.query_params.get("case") or None
        replace = request.query_params.get("replace", "").lower() in ("1", "true", "yes")
        raw = await request.body()
        if len(raw) > self.max_body_bytes:
            self._log(request, 413, None, case)
            return JSONResponse(openai_error(f"Body over the mock's limit of {self.max_body_bytes} bytes.",
                                             "body_too_large"), status_code=413)
        try:
            scenarios = parse_registration(raw)
        except ScenarioError as exc:
            self._log(request, 400, raw, case)
            return JSONResponse(openai_error(str(exc), "invalid_scenario"), status_code=400)
        clash = self.registry.add(scenarios, case, replace=replace)
        if clash:
            self._log(request, 409, raw, case)
            scope = f"for case {case!r}" if case else "on this mock"
            message = (f"Scenario ids {clash} already exist {scope}: choose other ids, or POST with ?replace=true to "
                       "replace them (a loaded scenario comes back when the registered one is deleted).")
            return JSONResponse(openai_error(message, "scenario_exists"), status_code=409)
        self.plans.clear()
        self._log(request, 201, raw, case)
        return JSONResponse(registration_summary(scenarios, case), status_code=201)

    async def remove(self, request: Request) -> Response:
        """Remove a scenario registered at run time: 200, or 404 when none of that id is registered there."""
        case = request.query_params.get("case") or None
        scenario_id = request.path_params["scenario_id"]
        if not self.registry.remove(scenario_id, case):
            self._log(request, 404, None, case)
            scope = f" for case {case!r}" if case else " without ?case"
            loaded = " (it is loaded from the scenario files; only registered ones can be removed)" \
                if scenario_id in self.registry.loaded else ""
            return JSONResponse(openai_error(f"No scenario {scenario_id!r} is registered{scope}{loaded}.",
                                             "scenario_not_found"), status_code=404)
        self.plans.clear()
        self._log(request, 200, None, case)
        return JSONResponse({"removed": scenario_id, "case": case})

    async def legs(self, request: Request) -> Response:
        """Every session that began a sequence: its legs, those played and those never requested."""
        case = request.query_params.get("case") or None
        rows = self.sequences.report(case=case)
        return JSONResponse({"sequences": rows, "unplayed": [r for r in rows if r["unplayed"]]})
