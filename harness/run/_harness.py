"""The harness: plans the cases of a run (scenario x rule group), runs each scenario once against the
implementation under test with the mock as its upstream (gateway mode) or behind it (client mode), and judges
each case's rules. The pytest plugin and `callproof run` are thin layers over this.

A case is `<scenario>::<group>`: the scenario runs once (cached), and each group judges its own rules on that
run. Nothing an IUT does raises out of here: a start failure, a crash, a hang become an `error` case with the
IUT's stderr tail; a wrong answer becomes failed rules.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from callproof.harness.catalogue import RULES, STREAM_FAMILIES, RuleResult
from callproof.harness.check import BODY_RULES, parse_sse
from callproof.harness.judge import (
    AdapterRun,
    CaseResult,
    CaseSpec,
    Findings,
    FrontAnswer,
    UpstreamView,
    check_client,
    check_equivalence,
    check_faults,
    check_ids,
    check_isolation,
    check_streaming,
    check_translation,
    content_times,
    excerpts,
    expected_outcome,
    expects_success,
    has_fault_rules,
    read_answer,
    timeline,
)
from callproof.harness.scenario import (
    Result,
    front_request,
    new_case_tag,
    result_of_adapter,
    result_of_body,
    result_of_events,
)

from ._client import ClientAdapter, CommandClient, InProcessClient
from ._config import RunConfig
from ._exchange import exchange
from ._iut import AppIUT, Gateway, IUTError, LaunchedIUT, TargetIUT

__all__ = ["CLIENT_GROUPS", "GATEWAY_GROUPS", "Harness", "run_scenarios"]


#: Rule groups of gateway mode: the six single-stream families, the expected outcome, then the sandwich rules.
GATEWAY_GROUPS: tuple[str, ...] = (
    *STREAM_FAMILIES, "expected", "translation", "ids", "faults", "streaming", "equivalence", "isolation",
)
CLIENT_GROUPS: tuple[str, ...] = ("expected", "client")
_GROUP_PREFIX = {
    "expected": "EXP-", "translation": "GW-REQ-", "ids": "GW-ID-", "faults": "GW-FAULT-",
    "streaming": "GW-STREAM-", "equivalence": "GW-EQ-", "isolation": "GW-ISO-", "client": "CLI-",
}
#: The pseudo-scenario of the isolation case, and the scenarios it runs at once (those loaded).
ISOLATION = "concurrent"
_ISOLATION_SCENARIOS = (
    "timing_ttft_and_gaps", "timing_explicit_delays", "parallel_two_calls", "interleaved_round_robin",
    "text_before_call", "one_call", "parallel_two_tools", "unicode_per_code_point",
)
_BODY_FAMILIES = frozenset(RULES[r].family for r in BODY_RULES)


@dataclass
class _Run:
    """One scenario played once: everything the groups judge."""

    scenario: Any
    case: str
    request: dict[str, Any]
    seconds: float
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    answer: FrontAnswer | None = None
    upstream: UpstreamView | None = None
    adapter: AdapterRun | None = None
    adapter_result: Result | None = None
    wire: Result | None = None
    plain: FrontAnswer | None = None
    charged: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def gateway_groups(scenario: Any) -> list[str]:
    """The rule groups that apply to a scenario in gateway mode (decided before it runs)."""
    groups: list[str] = []
    streamed = scenario.request.get("stream", True) is not False
    http_error = any(f.kind == "http_error" and f.probability >= 1 for f in scenario.faults)
    if not http_error:
        groups += [f for f in STREAM_FAMILIES if streamed or f in _BODY_FAMILIES]
    groups += ["expected", "translation"]
    if scenario.expect.tool_calls and expects_success(scenario.expect.status):
        groups.append("ids")
    if has_fault_rules(scenario):
        groups.append("faults")
    if "timing" in scenario.tags:
        groups.append("streaming")
    if streamed and not scenario.faults and expects_success(scenario.expect.status):
        groups.append("equivalence")
    return groups


def run_scenarios(paths: Sequence[Path]) -> dict[str, Any]:
    """The bundled corpus plus the user's scenario files (whose ids must not clash with bundled ones)."""
    from callproof.mock_server import ScenarioError, bundled_scenarios, load_scenarios

    scenarios = dict(bundled_scenarios())
    if paths:
        extra = load_scenarios(paths)
        clash = sorted(set(extra) & set(scenarios))
        if clash:
            raise ScenarioError(f"--scenarios redefine bundled scenario ids {clash}; give your scenarios ids of "
                                "their own")
        scenarios.update(extra)
    return scenarios


def _playable(scenario: Any, dialect: str) -> bool:
    """Raw scenarios replay bytes of one dialect: they only make sense where that dialect is what is served."""
    return not scenario.raw or dialect in scenario.raw


class Harness:
    """One run's mock, IUT and cached scenario runs. Use as a context manager; `cases()` plans, `judge()` runs."""

    def __init__(self, config: RunConfig, scenarios: Mapping[str, Any] | None = None) -> None:
        problem = config.problem()
        if problem is not None:
            raise IUTError(problem)
        self.config = config
        self.scenarios = dict(scenarios) if scenarios is not None else run_scenarios(config.scenario_paths)
        self._mock: Any = None
        self._iut: Gateway | None = None
        self._adapter: ClientAdapter | None = None
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()
        self._client_http: httpx.Client | None = None
        self._http_lock = threading.Lock()

    # -- planning --

    def cases(self) -> list[CaseSpec]:
        """Every case of this run, in scenario order."""
        mode = self.config.mode
        served = "responses" if mode == "client" else self.config.upstream_dialect
        specs: list[CaseSpec] = []
        for scenario in self.scenarios.values():
            if not _playable(scenario, served) or (mode == "gateway" and scenario.raw):
                continue
            groups = CLIENT_GROUPS if mode == "client" else gateway_groups(scenario)
            specs += [CaseSpec(scenario.id, g) for g in groups]
        if mode == "gateway" and any(s in self.scenarios for s in _ISOLATION_SCENARIOS):
            specs.append(CaseSpec(ISOLATION, "isolation"))
        return specs

    # -- lifecycle --

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def mock(self) -> Any:
        """The mock (a `MockServer`), started on first use."""
        if self._mock is None:
            from callproof.mock_server import MockServer

            self._mock = MockServer(self.scenarios, strict=True, port=self.config.mock_port).start()
        return self._mock

    def _gateway(self) -> Gateway:
        if self._iut is None:
            mock, config = self.mock, self.config
            if config.launch:
                self._iut = LaunchedIUT(config.launch, upstream=mock.url, upstream_root=mock.root_url,
                                        front_url=config.front_url, ready_url=config.ready_url,
                                        start_timeout=config.start_timeout, cwd=config.cwd)
            elif config.target:
                self._iut = TargetIUT(config.target)
            else:
                assert config.app is not None
                self._iut = AppIUT(config.app, upstream=mock.url, upstream_root=mock.root_url, mock_app=mock.app,
                                  front_url=config.front_url)
        self._iut.start()
        return self._iut

    def _client(self) -> ClientAdapter:
        if self._adapter is None:
            if self.config.client_cmd:
                self._adapter = CommandClient(self.config.client_cmd)
            else:
                assert self.config.client is not None
                self._adapter = InProcessClient(self.config.client)
        return self._adapter

    def close(self) -> None:
        if self._iut is not None:
            self._iut.stop()
        if self._mock is not None:
            self._mock.stop()
        if self._client_http is not None:
            self._client_http.close()

    def _http(self) -> httpx.Client:
        with self._http_lock:  # the isolation case sends from several threads at once
            if self._client_http is None:
                self._client_http = httpx.Client(trust_env=False)
            return self._client_http

    def mock_url(self) -> str:
        return str(self.mock.url)

    # -- running --

    def _run(self, scenario_id: str) -> _Run:
        with self._lock:
            run = self._runs.get(scenario_id)
            if run is None:
                scenario = self.scenarios[scenario_id]
                case = new_case_tag()
                request = front_request(scenario.id, scenario.request, case=case, model=self.config.model)
                run = self._runs[scenario_id] = _Run(scenario, case, request, 0.0)
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

    def _upstream(self, case: str) -> UpstreamView:
        journal = self.mock.journal
        requests = journal.requests(case=case)
        writes = tuple((w.time, w.data) for w in journal.writes(requests[0].id)) if requests else ()
        return UpstreamView(tuple(r.body for r in requests), writes, content_times(writes))

    def _front(self, iut: Gateway, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]:
        """Send one request through the front; (answer, None), or (None, why the IUT failed)."""
        sent = exchange(self._http(), iut.front_url, request, timeout=self.config.case_timeout)
        if sent.status is None:
            why = sent.error or "no answer"
            if not iut.alive():
                why += "; the IUT exited"
            tail = iut.stderr_tail()
            return None, f"the IUT did not answer: {why}" + (f"; stderr tail:\n{tail}" if tail else "")
        return read_answer(sent, self.config.profile), None

    def _play_gateway(self, run: _Run) -> None:
        try:
            iut = self._gateway()
        except IUTError as exc:
            run.error, run.details["setup_error"] = str(exc), True
            return
        answer, problem = self._front(iut, run.request)
        run.details["front_url"] = iut.front_url
        if answer is None:
            run.error = problem
            return
        run.answer = answer
        run.upstream = self._upstream(run.case)
        run.details.update(http_status=answer.exchange.status, events=len(answer.events),
                           terminal=answer.result.terminal)
        if answer.exchange.timed_out:
            run.details["timed_out"] = answer.exchange.error
        if not iut.alive():
            tail = iut.stderr_tail()
            run.error = "the IUT exited while answering this case" + (f"; stderr tail:\n{tail}" if tail else "")

    def _play_client(self, run: _Run) -> None:
        try:
            adapter = self._client()
            outcome = adapter.run(run.request, self.mock_url(), self.config.case_timeout)
        except IUTError as exc:
            run.error, run.details["setup_error"] = str(exc), True
            return
        run.adapter = outcome
        run.adapter_result = result_of_adapter(outcome.result) if outcome.result is not None else None
        journal = self.mock.journal
        requests = journal.requests(case=run.case)
        run.details.update(adapter_seconds=round(outcome.seconds, 3), upstream_requests=len(requests))
        if outcome.stderr.strip():
            run.details["stderr_tail"] = outcome.stderr[-2000:]
        if not requests:
            run.wire = Result("error", "", (), "no request", error="the adapter never called the mock")
            return
        last = requests[-1]
        body = journal.body_of(last.id)
        if last.stream and last.status < 400:
            run.wire = result_of_events(parse_sse(body)[0])
        else:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            run.wire = result_of_body(parsed, last.status)

    def _plain(self, run: _Run) -> FrontAnswer | None:
        """The non-stream answer for a scenario (GW-EQ-001), fetched once."""
        with run.lock:
            if run.plain is None:
                request = front_request(run.scenario.id, run.scenario.request, case=new_case_tag(),
                                        model=self.config.model, stream=False)
                answer, problem = self._front(self._gateway(), request)
                if answer is None:
                    raise IUTError(problem or "no answer")
                run.plain = answer
            return run.plain

    # -- judging --

    def judge(self, spec: CaseSpec) -> CaseResult:
        """Run (once per scenario) and judge one case."""
        start = time.monotonic()
        if spec.group == "isolation":
            return self._judge_isolation(spec, start)
        run = self._run(spec.scenario)
        details = dict(run.details)
        if run.error is not None:
            return CaseResult(spec, "error", message=run.error, seconds=run.seconds, details=details)
        try:
            results = self._results(spec, run)
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start, details=details)
        seconds = time.monotonic() - start
        if not run.charged:  # the case that ran the scenario carries its time
            seconds, run.charged = seconds + run.seconds, True
        if not any(r.outcome != "not-applicable" for r in results):
            return CaseResult(spec, "skipped", results, f"no rule of group {spec.group!r} applies to what this "
                              "scenario produced", seconds, details)
        failed = [r for r in results if r.outcome == "failed"]
        if not failed:
            return CaseResult(spec, "passed", results, "", seconds, details)
        rows: tuple[Mapping[str, Any], ...] = ()
        cuts: dict[str, str] = {}
        if run.answer is not None and run.answer.events:
            rows = tuple(timeline(run.answer.events, run.answer.exchange.sent))
            cuts = excerpts(run.answer.exchange.body, failed)
        return CaseResult(spec, "failed", results, _summary(failed), seconds, details, rows, cuts)

    def _results(self, spec: CaseSpec, run: _Run) -> tuple[RuleResult, ...]:
        if spec.group in STREAM_FAMILIES:
            assert run.answer is not None
            report = run.answer.report
            if report is None:
                return ()
            return tuple(r for r in report.results if r.rule.family == spec.group)
        findings = Findings()
        scenario = run.scenario
        if spec.group == "expected":
            result = run.adapter_result if self.config.mode == "client" else run.answer.result if run.answer else None
            if result is not None:
                expected_outcome(findings, scenario.expect, result)
        elif spec.group == "client":
            assert run.adapter is not None and run.wire is not None
            check_client(findings, scenario, run.adapter, run.adapter_result, run.wire)
        else:
            assert run.answer is not None and run.upstream is not None
            if spec.group == "translation":
                user_text = _user_text(run.request)
                check_translation(findings, self.config.upstream_dialect, run.request, user_text,
                                  list(run.upstream.bodies))
            elif spec.group == "ids":
                check_ids(findings, scenario, run.answer.result)
            elif spec.group == "faults":
                check_faults(findings, scenario, run.answer)
            elif spec.group == "streaming":
                check_streaming(findings, run.answer, run.upstream)
            elif spec.group == "equivalence":
                plain = self._plain(run)
                if plain is not None:
                    check_equivalence(findings, run.answer.result, plain)
        prefix = _GROUP_PREFIX[spec.group]
        return tuple(r for r in findings.results() if r.rule.id.startswith(prefix))

    def _judge_isolation(self, spec: CaseSpec, start: float) -> CaseResult:
        chosen = [self.scenarios[s] for s in _ISOLATION_SCENARIOS if s in self.scenarios]
        try:
            iut = self._gateway()
        except IUTError as exc:
            return CaseResult(spec, "error", message=str(exc), seconds=time.monotonic() - start,
                              details={"setup_error": True})
        answers: list[tuple[Any, FrontAnswer | None, str | None]] = [(s, None, None) for s in chosen]
        barrier = threading.Barrier(len(chosen))

        def one(index: int) -> None:
            scenario = chosen[index]
            request = front_request(scenario.id, scenario.request, case=new_case_tag(), model=self.config.model)
            barrier.wait(timeout=self.config.case_timeout)
            answer, problem = self._front(iut, request)
            answers[index] = (scenario, answer, problem)

        threads = [threading.Thread(target=one, args=(i,), name=f"callproof-iso-{i}") for i in range(len(chosen))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        problems = [p for _, a, p in answers if a is None and p]
        if problems:
            return CaseResult(spec, "error", message=problems[0], seconds=time.monotonic() - start)
        findings = Findings()
        check_isolation(findings, [(s, a.result) for s, a, _ in answers if a is not None])
        results = findings.results()
        failed = [r for r in results if r.outcome == "failed"]
        return CaseResult(spec, "failed" if failed else "passed", results, _summary(failed),
                          time.monotonic() - start, {"scenarios": [s.id for s in chosen]})

    def iter_judged(self, specs: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        for spec in specs:
            yield self.judge(spec)


def _user_text(request: Mapping[str, Any]) -> str:
    """The text of the first user message (it carries the markers)."""
    for item in request["input"]:
        if item.get("type") == "message" and item.get("role") == "user":
            return str(item["content"][0]["text"])
    return ""


def _summary(failed: Sequence[RuleResult]) -> str:
    lines = []
    for result in failed:
        first = result.violations[0] if result.violations else None
        where = f" [{first.evidence.describe()}]" if first is not None else ""
        message = first.message if first is not None else result.rule.statement
        more = f" (+{result.count - 1} more)" if result.count > 1 else ""
        lines.append(f"{result.rule.id} {result.rule.level}: {message}{where}{more}\n    fix: {result.rule.fix}")
    return "\n".join(lines)

