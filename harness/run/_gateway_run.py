"""The harness's play of a scenario through a gateway (`GatewayPlays`, a part of `Harness`): the front's answer
through the transport's `Front`, what reached the upstream (from the mock's journal), a sequence's legs, a stateful
scenario's turns, the non-stream twin, and a cancellation case's own play."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from callproof.harness._types import DIALECT_NAMES, FRONT_PATHS
from callproof.harness.judge import (
    CaseResult,
    CaseSpec,
    FrontAnswer,
    UpstreamView,
    answer_problem,
    content_times,
    dialect_mismatch,
    is_rejection,
    rejection_problem,
)
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import Scenario
from callproof.harness.transports import DEFAULT_TRANSPORT, transport

from ._calibrate import Calibration, CPUWaits
from ._cancel_verdict import judge_cancellation
from ._client_wire import read_sent
from ._config import RunConfig
from ._front_protocol import Front
from ._iut import Gateway, IUTError, LaunchedIUT
from ._scenario_run import NO_ANSWER, ScenarioRun, SequencePlay
from ._sequence import play_gateway_sequence, upstream_requests
from ._stateful import is_stateful, play_stateful, turn_bodies
from ._ws_exchange import message_as_sse

if TYPE_CHECKING:
    from callproof.mock_server import MockServer


__all__ = ["GatewayPlays", "OverLimit"]


class OverLimit(IUTError):
    """An answer fetched while judging (the non-stream half) went past --max-events / --max-bytes."""


class GatewayPlays:
    """The gateway half of `Harness`."""

    if TYPE_CHECKING:  # the harness's own, which plays through these
        config: RunConfig
        scenarios: dict[str, Scenario]
        _waits: CPUWaits

        @property
        def mock(self) -> MockServer: ...

        @property
        def calibration(self) -> Calibration: ...

        def _gateway(self) -> Gateway: ...

        def _front(self, iut: Gateway, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]: ...

        def _front_of(self, iut: Gateway) -> Front: ...

        def _request(self, scenario: Scenario, case: str, stream: bool | None = None) -> dict[str, Any]: ...

    def _upstream(self, case: str) -> UpstreamView:
        journal = self.mock.journal
        requests = journal.requests(case=case)
        writes = tuple((w.time, w.data) for w in journal.writes(requests[0].id)) if requests else ()
        sent = None
        if requests and not transport(getattr(requests[0], "transport", DEFAULT_TRANSPORT)).sse_framing:
            # messages of a transport without SSE bytes (JSON lines), as the SSE events the upstream rules read
            writes = tuple((when, message_as_sse(data)) for when, data in writes)
        elif requests:  # what the upstream's answer holds (an Anthropic cut after its stop_reason: verdicts.md §1)
            sent = read_sent(journal, requests[0], self.config.upstream_dialect)[0]
        # the IUT's waits and this thread's, which read the answer (called right after it did)
        waits = self._waits.between(requests[0].time, time.monotonic(), threading.get_native_id()) if requests else ()
        return UpstreamView(tuple(r.body for r in requests), writes, content_times(writes), waits, sent)

    def _play_gateway(self, run: ScenarioRun) -> None:
        try:
            iut = self._gateway()
        except IUTError as exc:
            run.error, run.details["setup_error"], run.details[NO_ANSWER] = str(exc), True, True
            return
        self._waits.follow(iut.pid if isinstance(iut, LaunchedIUT) else None)
        self._waits.start()
        if is_stateful(run.scenario):  # one or two turns, judged in its `stateful` case (docs/spec/stateful.md §5)
            self._play_stateful(iut, run)
            return
        if run.scenario.legs:  # a sequence: every leg's request through the front (docs/spec/loops.md §1)
            answer = play_gateway_sequence(run, lambda request: self._front(iut, request), self._unplayed,
                                           model=self.config.model, front=self.config.front)
            problem, run.error = run.error, None
            self._front_of(iut).after_sequence(run)  # what the transport gathers on a sequence (GW-WS-001)
        else:  # the scenario's own play through the front (over a socket: its turns and the GW-WS evidence)
            answer, problem = self._front_of(iut).play(run)
        run.details["front_url"] = iut.front_url
        if answer is None:
            run.error, run.details[NO_ANSWER] = problem, True
            return
        if answer.exchange.timed_out and not answer.exchange.chunks:  # a head, then nothing until the timeout
            run.details[NO_ANSWER] = True
        run.upstream = self._upstream(run.case)
        if run.scenario.legs:
            self._read_sequence(run)
        if answer.exchange.over_limit is not None:  # read no further, judge nothing: every case fails the limit
            run.over_limit = answer.exchange.over_limit
            return
        setup = self._front_problem(iut, answer)
        if setup is not None:  # the wrong endpoint or dialect: one line, not a wall of rule failures
            run.error, run.details["setup_error"] = setup, True
            return
        run.answer = answer
        run.details.update(http_status=answer.exchange.status, events=len(answer.events),
                           terminal=answer.result.terminal)
        if answer.exchange.timed_out:
            run.details["timed_out"] = answer.exchange.error
        if answer.exchange.aborted is not None:  # the front's body did not end cleanly (docs/spec/verdicts.md §7)
            run.details["aborted"] = answer.exchange.aborted
        called = bool(run.upstream.bodies)
        run.unjudged = answer_problem(answer, run.scenario, upstream_called=called)
        if is_rejection(answer, run.scenario, upstream_called=called):  # a refusal the scenario may allow
            run.rejection = True
            if rejection_problem(answer, run.scenario) is None:
                run.unjudged, run.details["rejected"] = None, answer.exchange.status
        if not iut.alive():
            tail = iut.stderr_tail()
            run.error = "the IUT exited while answering this case" + (f"; stderr tail:\n{tail}" if tail else "")

    def _unplayed(self, case: str) -> list[int]:
        """The legs of the case's sequence not played yet (all of them before its first upstream request)."""
        rows = self.mock.app.state.sequences.report(case=case)
        return [index for row in rows for index in row["unplayed"]] if rows else [-1]

    def _read_sequence(self, run: ScenarioRun) -> None:
        """The case's upstream requests and unplayed legs, from the journal, into `run.sequence`."""
        play = run.sequence or SequencePlay((), len(run.scenario.legs))
        records = self.mock.journal.requests(case=run.case)
        rows = self.mock.app.state.sequences.report(case=run.case)
        unplayed = tuple(i for row in rows for i in row["unplayed"]) if rows else tuple(range(play.legs))
        run.sequence = replace(play, requests=upstream_requests(run, records), unplayed=unplayed)
        run.details["sequence"] = {"requests": [[r.leg, r.status] for r in run.sequence.requests],
                                   "unplayed": list(unplayed)}

    def _play_stateful(self, iut: Gateway, run: ScenarioRun) -> None:
        """A stateful scenario's turn(s) through the front; the last answer is the run's."""
        journal = self.mock.journal
        play, problem = play_stateful(run.scenario, run.case, run.request, lambda request: self._front(iut, request),
                                      lambda since: turn_bodies(journal.requests(case=run.case), journal.body_of,
                                                                since),
                                      time.monotonic, model=self.config.model)
        run.stateful = play
        turns = [t for t in (play.first, play.second) if t is not None]
        run.details.update(front_url=iut.front_url, turns=[
            {"http_status": t.answer.exchange.status if t.answer else None, "upstream_called": t.upstream is not None}
            for t in turns])
        last = turns[-1].answer
        if last is None or problem is not None:
            run.error = problem
            run.details[NO_ANSWER] = last is None
            return
        run.answer, run.upstream = last, self._upstream(run.case)

    def _front_problem(self, iut: Gateway, answer: FrontAnswer) -> str | None:
        """Why the front URL or dialect is wrong for this run (a setup error), or None. A 404 is the wrong URL
        only when the mock received no request at all while the front answered (a gateway that called its upstream
        without the case's marker, and passed the mock's 404 on, is judged instead)."""
        sent = answer.exchange.sent
        if answer.exchange.status == 404 and not any(r.time >= sent for r in self.mock.journal.requests()):
            front = self.config.front
            return (f"the front {iut.front_url} answered HTTP 404 and the gateway never called its upstream: is it "
                    f"serving its {DIALECT_NAMES[front]} front there? Give --front-url with the right path (--front "
                    f"{front} expects {FRONT_PATHS[front]} by default)")
        return dialect_mismatch(answer, iut.front_url)

    def _plain(self, run: ScenarioRun) -> FrontAnswer | None:
        """The non-stream answer for a scenario (GW-EQ-001, and GW-FAULT-004 on an ending), fetched once."""
        with run.lock:
            if run.plain is None:
                request = self._request(run.scenario, new_case_tag(), stream=False)
                answer, problem = self._front(self._gateway(), request)
                if answer is None:
                    raise IUTError(problem or "no answer")
                if answer.exchange.over_limit is not None:
                    raise OverLimit(f"{answer.exchange.over_limit} (the non-stream answer)")
                run.plain = answer
            return run.plain

    def _judge_cancellation(self, spec: CaseSpec, start: float) -> CaseResult:
        """A cancellation case (GW-CANCEL-*): the harness closes the front connection itself, on a fresh case."""
        try:
            iut = self._gateway()
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start,
                              details={"setup_error": True, NO_ANSWER: True})
        self._waits.follow(iut.pid if isinstance(iut, LaunchedIUT) else None)
        self._waits.start()
        scenario, case = self.scenarios[spec.scenario], new_case_tag()
        return judge_cancellation(spec, scenario, iut.front_url, self._request(scenario, case),
                                  self.config.front_headers, self.mock.journal, case, timeout=self.config.case_timeout,
                                  calibration=self.calibration, waits=self._waits.between,
                                  details={"front_url": iut.front_url},
                                  closer=self._front_of(iut).closer)
