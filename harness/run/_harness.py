"""The harness: plans the cases of a run (scenario x rule group), runs each scenario once against the
implementation under test with the mock as its upstream (gateway mode) or behind it (client mode), and judges
each case's rules. The pytest plugin and `callproof run` are thin layers over this.

A case is `<scenario>::<group>`: the scenario runs once (cached), and each group judges its own rules on that
run. Nothing an IUT does raises out of here: a start failure, a crash, a hang become an `error` case with the
IUT's stderr tail; an answer with nothing to judge (no judgeable stream, no adapter result) makes every case of
its scenario `error`, or `failed` where a MUST rule failed anyway (docs/report.md#outcomes); a wrong answer becomes
failed rules. The cases are planned in `_plan`, each played scenario
kept in a `_scenario_run.ScenarioRun`, and each case judged in `_verdict`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx

from callproof.harness._types import DIALECT_NAMES, FRONT_PATHS
from callproof.harness.judge import (
    UNREPORTED_USAGE,
    CaseResult,
    CaseSpec,
    FrontAnswer,
    UpstreamView,
    adapter_problem,
    answer_problem,
    content_times,
    dialect_mismatch,
    forwarding_latency,
    framing_variants,
    has_usage_rules,
    is_rejection,
    rejection_problem,
)
from callproof.harness.outcome import Result, result_of_adapter
from callproof.harness.request import front_request, new_case_tag
from callproof.harness.scenario import Scenario
from callproof.harness.transports import transport

from ._calibrate import Calibration, CPUWaits, calibrate, cpu_wait, machine
from ._cancel_verdict import judge_cancellation
from ._client import ClientAdapter, CommandClient, InProcessClient, program_problem
from ._client_play import judge_client_isolation, read_sent, read_wire, websocket_playable, websocket_turns
from ._config import RunConfig
from ._front import Front, FrontContext
from ._fronts import front_for
from ._groups import rule_group
from ._http_exchange import head_problem
from ._iut import AppIUT, Gateway, IUTError, LaunchedIUT, TargetIUT
from ._overlap import Answered, hold_seconds, in_flight, isolation_verdict
from ._plan import ISOLATION_SCENARIOS, plan_cases, run_scenarios
from ._repeat import combine_repeats
from ._scenario_run import NO_ANSWER, ScenarioRun, SequencePlay
from ._sequence import client_env, play_gateway_sequence, upstream_requests
from ._stateful import is_stateful, play_stateful, turn_bodies
from ._verdict import group_results, over_limit, verdict
from ._ws_exchange import message_as_sse

if TYPE_CHECKING:
    from callproof.mock_server import MockServer

__all__ = ["NO_ANSWER", "Harness", "run_scenarios"]


class _OverLimit(IUTError):
    """An answer fetched while judging (the non-stream half) went past --max-events / --max-bytes."""


class Harness:
    """One run's mock, IUT and cached scenario runs. Use as a context manager; `cases()` plans, `judge()` runs."""

    def __init__(self, config: RunConfig, scenarios: Mapping[str, Scenario] | None = None) -> None:
        problem = config.problem()
        if problem is not None:
            raise IUTError(problem)
        self.config = config
        self.scenarios = dict(scenarios) if scenarios is not None else run_scenarios(config.scenario_paths)
        self._mock: MockServer | None = None
        self._iut: Gateway | None = None
        self._adapter: ClientAdapter | None = None
        self._runs: dict[tuple[str, int], ScenarioRun] = {}
        self._lock = threading.Lock()
        self._client_http: httpx.Client | None = None
        self._http_lock = threading.Lock()
        self._front_play: tuple[Gateway, Front] | None = None
        self._calibration: Calibration | None = None
        self._calibration_lock = threading.Lock()
        self._waits = CPUWaits()  # sampled from the first gateway case on: the timing rules read them

    # -- planning --

    def cases(self) -> list[CaseSpec]:
        """Every case of this run, in scenario order."""
        config = self.config
        specs = plan_cases(self.scenarios, config.mode, config.upstream_dialect, config.front, config.client_dialect)
        if config.mode == "client":  # a transport without SSE framing: no scenario that needs it
            played = self.scenarios
            framed = transport(config.client_transport).sse_framing
            return [s for s in specs if framed or s.scenario not in played or websocket_playable(played[s.scenario])]
        return front_for(config.front_transport).plan(transport(config.front_transport), self.scenarios, specs)

    # -- lifecycle --

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def mock(self) -> MockServer:
        """The mock (a `MockServer`), started on first use."""
        if self._mock is None:
            # start-up guard: the mock (starlette, uvicorn) loads only when a run first needs it
            from callproof.mock_server import MockServer

            self._mock = MockServer(self.scenarios, strict=True, port=self.config.mock_port).start()
        return self._mock

    def _gateway(self) -> Gateway:
        if self._iut is None:
            mock, config = self.mock, self.config
            upstream = transport(config.upstream_transport).url(mock.url)
            if config.launch:
                self._iut = LaunchedIUT(config.launch, upstream=upstream, upstream_root=mock.root_url,
                                        front_url=config.front_template, ready_url=config.ready_url,
                                        start_timeout=config.start_timeout, cwd=config.cwd)
            elif config.target:
                self._iut = TargetIUT(config.target, upstream=upstream)
            else:
                assert config.app is not None
                self._iut = AppIUT(config.app, upstream=upstream, upstream_root=mock.root_url, mock_app=mock.app,
                                  front_url=config.front_template, upstream_dialect=config.upstream_dialect)
        self._iut.start()
        return self._iut

    def _client(self) -> ClientAdapter:
        if self._adapter is None:
            dialect = self.config.client_dialect
            if self.config.client_cmd:
                self._adapter = CommandClient(self.config.client_cmd, dialect, self.config.client_transport)
            else:
                assert self.config.client is not None
                self._adapter = InProcessClient(self.config.client, dialect, self.config.client_transport)
        return self._adapter

    def preflight(self) -> None:
        """Start what every case needs, once, before any case: the mock and the gateway (ready, and answering one
        HTTP GET), or the client adapter (its program found, or its function imported). Raises `IUTError`."""
        if self.config.mode == "gateway":
            iut = self._gateway()
            problem = head_problem(self._http(), iut.front_url, self.config.front_headers, self.config.case_timeout)
        else:
            problem = program_problem(self._client())
        if problem is not None:
            raise IUTError(problem)

    def close(self) -> None:
        self._waits.stop()
        if self._iut is not None:
            self._iut.stop()
        if self._mock is not None:
            self._mock.stop()
        if self._client_http is not None:
            self._client_http.close()

    def _http(self) -> httpx.Client:
        with self._http_lock:  # the isolation case sends from several threads at once
            return self._client_http_unlocked()

    def _client_http_unlocked(self) -> httpx.Client:
        if self._client_http is None:
            self._client_http = httpx.Client(trust_env=False)
        return self._client_http

    def mock_url(self) -> str:
        return str(self.mock.url)

    # -- running --

    def _run(self, scenario_id: str, repeat: int = 0) -> ScenarioRun:
        """The scenario's run (its `repeat`-th with --repeat), played on first use and shared by its cases."""
        with self._lock:
            run = self._runs.get((scenario_id, repeat))
            if run is None:
                scenario = self.scenarios[scenario_id]
                case = new_case_tag()
                request = self._request(scenario, case)
                run = self._runs[scenario_id, repeat] = ScenarioRun(scenario, case, request, 0.0)
                start = time.monotonic()
                try:
                    if self.config.mode == "client":
                        self._play_client(run)
                    else:
                        self._play_gateway(run)
                except IUTError as exc:
                    run.error = str(exc)
                run.seconds = time.monotonic() - start
            return run

    def _request(self, scenario: Scenario, case: str, stream: bool | None = None) -> dict[str, Any]:
        """The request body of one case, in the dialect the IUT is sent (the gateway's front, the client's dialect)."""
        config = self.config
        return front_request(scenario.id, scenario.request, case=case, model=config.model, stream=stream,
                             dialect=config.client_dialect if config.mode == "client" else config.front)

    @property
    def calibration(self) -> Calibration:
        """The run's mock -> harness delay, probed once (first use) per harness, so once per process or worker."""
        with self._calibration_lock:
            if self._calibration is None:
                self._calibration = calibrate(self._http(), self.mock)
            return self._calibration

    def _upstream(self, case: str) -> UpstreamView:
        journal = self.mock.journal
        requests = journal.requests(case=case)
        writes = tuple((w.time, w.data) for w in journal.writes(requests[0].id)) if requests else ()
        sent = None
        if requests and getattr(requests[0], "transport", "http") == "websocket":  # its messages, as SSE events
            writes = tuple((when, message_as_sse(data)) for when, data in writes)
        elif requests:  # what the upstream's answer holds (an Anthropic cut after its stop_reason: verdicts.md §1)
            sent = read_sent(journal, requests[0], self.config.upstream_dialect)[0]
        # the IUT's waits and this thread's, which read the answer (called right after it did)
        waits = self._waits.between(requests[0].time, time.monotonic(), threading.get_native_id()) if requests else ()
        return UpstreamView(tuple(r.body for r in requests), writes, content_times(writes), waits, sent)

    def _front_of(self, iut: Gateway) -> Front:
        """The gateway's front over `--front-transport` (its row of `FRONTS`), made once per gateway."""
        with self._http_lock:
            if self._front_play is None or self._front_play[0] is not iut:
                context = FrontContext(self.config, iut, self._client_http_unlocked(), self.mock.journal,
                                       self.scenarios,
                                       lambda scenario_id: self._request(self.scenarios[scenario_id], new_case_tag()))
                self._front_play = (iut, front_for(self.config.front_transport)(context))
            return self._front_play[1]

    def _front(self, iut: Gateway, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]:
        """Send one request through the front; (answer, None), or (None, why the IUT failed)."""
        return self._front_of(iut).exchange(request)

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

    def _play_client(self, run: ScenarioRun) -> None:
        dialect = self.config.client_dialect  # the client got its request in its dialect; the wire is read in it
        try:
            adapter = self._client()
            outcome = adapter.run(run.request, self.mock_url(), self.config.case_timeout,
                                  case_env=client_env(run.scenario))
        except IUTError as exc:
            run.error, run.details["setup_error"], run.details[NO_ANSWER] = str(exc), True, True
            return
        if outcome.timed_out and outcome.result is None:
            run.details[NO_ANSWER] = True
        run.adapter = outcome
        run.unjudged = adapter_problem(outcome)
        run.adapter_result = result_of_adapter(outcome.result) if outcome.result is not None else None
        transport = self.config.client_transport
        run.wire, run.wire_item_ids, count, run.wire_faults = read_wire(self.mock.journal, run.case, dialect,
                                                                        transport)
        run.details.update(adapter_seconds=round(outcome.seconds, 3), upstream_requests=count)
        if run.scenario.legs:
            self._read_sequence(run)
        if transport != "http":
            run.details["transport"] = transport
            run.wire_turns = websocket_turns(self.mock.journal, run.case)
            if not run.wire_turns and run.unjudged is None and run.wire is not None:  # it called over HTTP, or not
                run.unjudged = run.wire.error
            run.details["websocket_turns"] = [{"connection": t.connection, "turn": t.turn} for t in run.wire_turns]
        framing = framing_variants(run.scenario, run.wire_faults)
        if framing:  # the SSE framings the client got (CLI-010 names them too)
            run.details["framing"] = framing
        if has_usage_rules(run.scenario) and outcome.result is not None and outcome.result.get("usage") is None:
            run.details["not_judged"] = {"CLI-009": UNREPORTED_USAGE}
        if outcome.stderr.strip():
            run.details["stderr_tail"] = outcome.stderr[-2000:]

    def _plain(self, run: ScenarioRun) -> FrontAnswer | None:
        """The non-stream answer for a scenario (GW-EQ-001, and GW-FAULT-004 on an ending), fetched once."""
        with run.lock:
            if run.plain is None:
                request = self._request(run.scenario, new_case_tag(), stream=False)
                answer, problem = self._front(self._gateway(), request)
                if answer is None:
                    raise IUTError(problem or "no answer")
                if answer.exchange.over_limit is not None:
                    raise _OverLimit(f"{answer.exchange.over_limit} (the non-stream answer)")
                run.plain = answer
            return run.plain

    # -- judging --

    def judge(self, spec: CaseSpec) -> CaseResult:
        """Run (once per scenario, or --repeat times) and judge one case; repeats that disagree make it flaky."""
        return combine_repeats([self._judge_once(spec, repeat) for repeat in range(self.config.repeat)])

    def _judge_once(self, spec: CaseSpec, repeat: int) -> CaseResult:
        start = time.monotonic()
        group = rule_group(spec.group)
        if group.kind == "run_wide":  # several scenarios at once (`concurrent::isolation`)
            return self._judge_isolation(spec, start)
        if group.kind == "self_played":  # its own play of the scenario (a cancellation, on a fresh case)
            return self._judge_cancellation(spec, start)
        # the calibrated slack: the causal timing rule (GW-STREAM-002) and a client's retry spacing (CLI-015)
        slack = self.calibration.slack if group.timing is not None else None
        run = self._run(spec.scenario, repeat)
        details = dict(run.details)
        if group.timing == "sequence" and slack is not None:
            details["calibration"] = self.calibration.to_json()
        elif slack is not None and run.answer is not None and run.upstream is not None:
            details.update(forwarding_latency(run.answer.events, run.upstream.writes))
            details["calibration"] = {**self.calibration.to_json(), **machine(), **cpu_wait(run.upstream)}
        if run.error is not None:
            return CaseResult(spec, "error", message=run.error, seconds=run.seconds, details=details)
        if run.over_limit is not None:
            return over_limit(spec, run.over_limit, run.seconds, details)
        try:
            results = group_results(spec, run, self.config, self._plain, slack=slack)
        except _OverLimit as exc:
            return over_limit(spec, str(exc), time.monotonic() - start, details)
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start, details=details)
        seconds = time.monotonic() - start
        if not run.charged:  # the case that ran the scenario carries its time
            seconds, run.charged = seconds + run.seconds, True
        return verdict(spec, run, results, seconds, details)

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

    def iter_judged(self, specs: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        for spec in specs:
            yield self.judge(spec)
