"""The run-wide isolation case (`concurrent::isolation`, a part of `Harness`): the isolation scenarios played at
once through the front (GW-ISO-001, GW-ID-002) or by the client (CLI-012), beside each one's play alone."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from callproof.harness.judge import (
    CaseResult,
    CaseSpec,
    FrontAnswer,
)
from callproof.harness.outcome import Result
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import Scenario

from ._client import ClientAdapter
from ._client_play import judge_client_isolation
from ._config import RunConfig
from ._iut import Gateway, IUTError
from ._overlap import Answered, hold_seconds, in_flight, isolation_verdict
from ._plan import ISOLATION_SCENARIOS
from ._scenario_run import NO_ANSWER, ScenarioRun

if TYPE_CHECKING:
    from callproof.mock_server import MockServer


__all__ = ["IsolationCase"]


class IsolationCase:
    """The isolation case of `Harness`."""

    if TYPE_CHECKING:  # the harness's own, which plays through these
        config: RunConfig
        scenarios: dict[str, Scenario]

        @property
        def mock(self) -> MockServer: ...

        def _gateway(self) -> Gateway: ...

        def _client(self) -> ClientAdapter: ...

        def _front(self, iut: Gateway, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]: ...

        def _request(self, scenario: Scenario, case: str, stream: bool | None = None) -> dict[str, Any]: ...

        def _run(self, scenario_id: str, repeat: int = 0) -> ScenarioRun: ...

    def _judge_isolation(self, spec: CaseSpec, start: float) -> CaseResult:
        chosen = [self.scenarios[s] for s in ISOLATION_SCENARIOS if s in self.scenarios]
        if self.config.mode == "client":
            try:
                adapter = self._client()
            except IUTError as exc:
                return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start,
                                  details={"setup_error": True, NO_ANSWER: True})
            result = judge_client_isolation(spec, chosen, adapter, self.mock, self.config.client_dialect,
                                            self.config.case_timeout, self._request, self._alone_client,
                                            self.config.client_transport)
            return self._with_solo(result, chosen)
        try:
            iut = self._gateway()
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start,
                              details={"setup_error": True, NO_ANSWER: True})
        solo = [self._alone(s) for s in chosen]  # one after another, each its own case: the scenario's own play
        answers: list[Answered] = [Answered(s, None) for s in chosen]
        barrier = threading.Barrier(len(chosen))
        tags = [new_case_tag() for _ in chosen]
        held = hold_seconds(self.config.case_timeout)
        self.mock.hold(tags, held)  # the streams overlap at the upstream, however loaded the machine

        def one(index: int) -> None:
            scenario = chosen[index]
            request = self._request(scenario, tags[index])
            barrier.wait(timeout=self.config.case_timeout)
            answer, problem = self._front(iut, request)
            answers[index] = Answered(scenario, answer, problem, self._given(tags[index], request))

        threads = [threading.Thread(target=one, args=(i,), name=f"callproof-iso-{i}") for i in range(len(chosen))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return self._with_solo(isolation_verdict(spec, solo, answers, in_flight(self.mock.journal, tags), held, start),
                               chosen)

    def _with_solo(self, result: CaseResult, chosen: Sequence[Scenario]) -> CaseResult:
        """The isolation case's result, its details naming each scenario's case alone (`solo`: its case tag)."""
        return replace(result, details={**result.details, "solo": {s.id: self._run(s.id).case for s in chosen}})

    def _alone(self, scenario: Scenario) -> Answered:
        """The scenario's answer alone (its own run, played on first use), as the isolation case compares it: None
        with why, where that run has no judgeable answer."""
        run = self._run(scenario.id)
        problem = run.error or run.over_limit or (None if run.answer is not None else "no answer") or run.unjudged
        return Answered(scenario, run.answer if problem is None else None, problem,
                        self._given(run.case, run.request))

    def _alone_client(self, scenario_id: str) -> tuple[Result | None, str | None]:
        """The client's result for the scenario alone (its own run, played on first use), or None and why there is
        none to compare with."""
        run = self._run(scenario_id)
        problem = run.error or run.unjudged
        return (run.adapter_result, None) if problem is None and run.adapter_result is not None else (None, problem)

    def _given(self, case: str, request: Mapping[str, Any]) -> tuple[bytes, ...]:
        """What the gateway was given for a case: the mock's answers to its requests, and the request itself."""
        journal = self.mock.journal
        return (*(journal.body_of(r.id) for r in journal.requests(case=case)), json.dumps(request).encode())
