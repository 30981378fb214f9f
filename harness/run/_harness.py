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

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx

from callproof.harness.judge import (
    STREAM_PLAYS,
    UNREPORTED_USAGE,
    CaseResult,
    CaseSpec,
    FrontAnswer,
    adapter_problem,
    forwarding_latency,
    framing_variants,
    has_usage_rules,
)
from callproof.harness.outcome import result_of_adapter
from callproof.harness.request import front_request, new_case_tag
from callproof.harness.scenario import Scenario
from callproof.harness.transports import DEFAULT_TRANSPORT, transport

from ._calibrate import Calibration, CPUWaits, calibrate, cpu_wait, machine
from ._client import ClientAdapter, CommandClient, InProcessClient, program_problem
from ._client_wires import client_wire, read_wire
from ._config import RunConfig
from ._front_protocol import Front, FrontContext
from ._fronts import front_for
from ._gateway_run import GatewayPlays, OverLimit
from ._groups import rule_group
from ._http_exchange import head_problem
from ._isolation_case import IsolationCase
from ._iut import AppIUT, Gateway, IUTError, LaunchedIUT, TargetIUT
from ._plan import plan_cases, run_scenarios
from ._repeat import combine_repeats
from ._scenario_run import NO_ANSWER, ScenarioRun
from ._sequence import client_env
from ._verdict import group_results, over_limit, verdict

if TYPE_CHECKING:
    from callproof.mock_server import MockServer

__all__ = ["NO_ANSWER", "Harness", "run_scenarios"]


class Harness(GatewayPlays, IsolationCase):
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
        if config.mode == "client":  # the scenarios that mean something over the client's transport
            played = self.scenarios
            wire = client_wire(config.client_transport)
            return [s for s in specs if s.scenario not in played or wire.playable(played[s.scenario])]
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
                run = self._runs[scenario_id, repeat] = self._play(self.scenarios[scenario_id])
            return run

    def _play(self, scenario: Scenario) -> ScenarioRun:
        """A play of `scenario` on a fresh case tag, the IUT's failure to run kept as the run's error."""
        case = new_case_tag()
        run = ScenarioRun(scenario, case, self._request(scenario, case), 0.0)
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
        if transport != DEFAULT_TRANSPORT:
            run.details["transport"] = transport
            run.wire_turns = client_wire(transport).turns(self.mock.journal, run.case)
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
        result = self._judge_run(spec, self._run(spec.scenario, repeat), start)
        if group.timing != "stream" or not result.loaded:
            return result
        # One play's lateness that the machine's load can account for is no verdict: play the scenario afresh, up to
        # STREAM_PLAYS plays, until one stands on its own (docs/spec/contracts.md §7.8).
        earlier = [result.message]
        while result.loaded and len(earlier) < STREAM_PLAYS:
            # a play of its own, shared with no other case
            result = self._judge_run(spec, self._play(self.scenarios[spec.scenario]), time.monotonic(),
                                     result.seconds)
            earlier.append(result.message)
        return replace(result, details={**result.details, "plays": len(earlier), "earlier_plays": earlier[:-1]})

    def _judge_run(self, spec: CaseSpec, run: ScenarioRun, start: float, spent: float = 0.0) -> CaseResult:
        """The case judged on `run`; `spent`: seconds of earlier plays of it, added to its own."""
        group = rule_group(spec.group)
        # the calibrated slack: the causal timing rule (GW-STREAM-002) and a client's retry spacing (CLI-015)
        slack = self.calibration.slack if group.timing is not None else None
        details = dict(run.details)
        if group.timing == "retries" and slack is not None:
            details["calibration"] = self.calibration.to_json()
        elif slack is not None and run.answer is not None and run.upstream is not None:
            details.update(forwarding_latency(run.answer.events, run.upstream.writes))
            details["calibration"] = {**self.calibration.to_json(), **machine(), **cpu_wait(run.upstream)}
        if run.error is not None:
            return CaseResult(spec, "error", message=run.error, seconds=spent + run.seconds, details=details)
        if run.over_limit is not None:
            return over_limit(spec, run.over_limit, spent + run.seconds, details)
        try:
            results = group_results(spec, run, self.config, self._plain, slack=slack)
        except OverLimit as exc:
            return over_limit(spec, str(exc), spent + time.monotonic() - start, details)
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=spent + time.monotonic() - start,
                              details=details)
        seconds = spent + time.monotonic() - start
        if not run.charged:  # the case that ran the scenario carries its time
            seconds, run.charged = seconds + run.seconds, True
        return verdict(spec, run, results, seconds, details)

    def iter_judged(self, specs: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        for spec in specs:
            yield self.judge(spec)
