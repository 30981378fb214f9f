"""What the bundled suite (`pytest --pyargs callproof.suite`, `callproof run`) does inside pytest, kept out of the
thin plugin module: one harness per process (so one per pytest-xdist worker), turning a
case's verdict into a pytest outcome, and the controller-side collection that writes the report.

Cases travel from workers to the controller as JSON in the test reports' `user_properties`, so the controller
alone assembles and writes the report, with or without xdist.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import pytest

from callproof.harness._doc_refs import terminal_refs
from callproof.harness._options import plugin_text, redact_argv
from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.report_model import (
    Baseline,
    BaselineError,
    BaselineMark,
    Case,
    Report,
    Shard,
    Target,
    load_baseline,
    nothing_judged,
    stale_entries,
    tally_line,
    write_jsonl_case,
    write_jsonl_footer,
    write_jsonl_header,
    write_report,
)
from callproof.harness.run import (
    Harness,
    Preflight,
    RunConfig,
    build_report,
    case_of,
    interrupted_by,
    iut_groups,
    preflight,
    run_scenarios,
    scenario_set_hash,
    setup_problem,
    stop_requested,
)
from callproof.harness.scenario import ScenarioError
from callproof.reports import skip_reasons

from ._progress import Progress, isatty
from ._shard import shard_record
from ._status import PROPERTY
from ._watch import RunWatch

__all__ = [
    "PROPERTY",
    "Collector",
    "Judged",
    "SuiteSession",
    "check_setup",
    "load_optional_baseline",
    "plan",
    "start_collector",
    "verdict",
]

#: The harness the preflight started, for the cases when they run in the controller's process (no xdist workers).
_PREPARED = pytest.StashKey[Harness]()


def plan(config: RunConfig) -> list[CaseSpec]:
    """The cases of a run (scenario files are read; nothing is started)."""
    try:
        return Harness(config).cases()
    except ScenarioError as exc:
        raise pytest.UsageError(str(exc)) from None


def check_setup(config: pytest.Config, run: RunConfig) -> None:
    """The controller's checks before any case runs, each failing as a usage error: the run's setup (IUT, outputs,
    workers) and the baseline file."""
    workers = config.getoption("numprocesses", None) or 0
    report = config.getoption("callproof_report")
    outputs = [] if not report else [("--report", Path(report)), ("--report", Path(report).with_suffix(".jsonl"))]
    # `callproof run` asked the same questions, then started the IUT (and the mock, on --mock-port) for good
    problem = None if _handed(config) else setup_problem(run, outputs, workers if isinstance(workers, int) else 1)
    if problem is not None:
        raise pytest.UsageError(plugin_text(problem))
    baseline = load_optional_baseline(config.getoption("callproof_baseline"))  # a bad file: usage error, now
    if config.getoption("callproof_strict_baseline") and baseline is None:
        raise pytest.UsageError("--callproof-strict-baseline needs --callproof-baseline FILE: the baseline whose "
                                "stale entries fail the run")


def start_collector(config: pytest.Config, run: RunConfig, stack: contextlib.ExitStack) -> None:
    """On the controller: no launched IUT outlives the session (whichever process launched it, undone by `stack`),
    the IUT is started once before any case (`start_once`), and the `Collector` that writes the report is
    registered."""
    stack.enter_context(iut_groups())
    start_once(config, run, stack)
    report = config.getoption("callproof_report")
    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "pytest"
    command = ["python", "-m", "pytest"] if program == "__main__.py" else [program]
    strict = load_optional_baseline(config.getoption("callproof_baseline")) \
        if config.getoption("callproof_strict_baseline") else None
    flag = "--max-consecutive-errors" if _handed(config) else plugin_text("--max-consecutive-errors")
    watch = RunWatch(config.getoption("callproof_max_consecutive_errors") or 0, Progress(isatty()), flag)
    config.pluginmanager.register(watch, "callproof-watch")
    collector = Collector(run, [*command, *redact_argv(sys.argv[1:])], Path(report) if report else None,
                          strict_baseline=strict, shard=shard_record(config, run), watch=watch)
    config.pluginmanager.register(collector, "callproof-collector")


def start_once(config: pytest.Config, run: RunConfig, stack: contextlib.ExitStack) -> None:
    """The preflight, once per run, on the controller before any worker starts: the IUT started (or reached, or
    imported) once, a usage error in one line when it cannot be. `callproof run` does it before pytest and hands
    over a `Preflight`, so it is not repeated here. The started harness is kept for the cases when they run in this
    process; under pytest-xdist each worker starts its own."""
    handed = _handed(config)
    if handed is not None:
        harness = handed.harness
    elif config.getoption("collectonly", False):
        return
    else:
        workers = config.getoption("numprocesses", None)
        harness, problem = preflight(run, keep=not workers)
        if problem is not None:
            raise pytest.UsageError(plugin_text(problem))
    if harness is not None:
        config.stash[_PREPARED] = harness
        stack.callback(harness.close)


def _handed(config: pytest.Config) -> Preflight | None:
    """The preflight `callproof run` did before pytest started, if it did."""
    return next((p for p in config.pluginmanager.get_plugins() if isinstance(p, Preflight)), None)


def load_optional_baseline(path: str | None) -> Baseline | None:
    if not path:
        return None
    try:
        return load_baseline(Path(path))
    except BaselineError as exc:
        raise pytest.UsageError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class Judged:
    """A case's verdict and its report case (baseline applied)."""

    result: CaseResult
    case: Case

    @property
    def data(self) -> dict[str, Any]:
        """The case's report JSON, as it travels to the controller."""
        return self.case.to_json()


class SuiteSession:
    """One process's harness (mock + IUT), started on the first case (or by the preflight, in the controller's
    process) and closed at the end of the session. Before each case it asks whether the controller stopped the run
    early (`--max-consecutive-errors`): then it runs no more cases in this process (an xdist worker too)."""

    def __init__(self, config: RunConfig, baseline: Baseline | None, session: pytest.Session | None = None) -> None:
        self.config = config
        self.baseline = baseline
        self.session = session
        self._harness: Harness | None = None if session is None else session.config.stash.get(_PREPARED, None)

    @property
    def harness(self) -> Harness:
        if self._harness is None:
            self._harness = Harness(self.config)
        return self._harness

    def judge(self, spec: CaseSpec) -> Judged:
        """The verdict and its report case (with the baseline applied)."""
        stopped = stop_requested()
        if stopped is not None:  # not judged, and not in the report: the run says it stopped early
            if self.session is not None:
                self.session.shouldstop = stopped
            pytest.skip(f"not run: {stopped}")
        result = self.harness.judge(spec)
        mark: BaselineMark | None = None
        if self.baseline is not None and self.baseline.listed(spec.id):
            failed = [r.rule.id for r in result.failed]
            if result.outcome in ("failed", "error", "flaky") and self.baseline.covers(spec.id, failed):
                mark = "covered"
            elif result.outcome == "passed":
                mark = "stale"
        return Judged(result, case_of(result, self.config, baseline=mark))

    def close(self) -> None:
        if self._harness is not None:
            self._harness.close()


def verdict(judged: Judged) -> None:
    """Turn a case's verdict into its pytest outcome: MUST failures fail, baseline-covered ones xfail, SHOULD and
    INFO failures pass (they are in the report and the terminal summary); a flaky case fails where a MUST rule
    failed in some repeat or a repeat could not be judged, and is reported flaky in any case. The messages cite
    documents as the commands that print them (the report keeps the repository paths)."""
    __tracebackhide__ = True
    result, case = judged.result, judged.case
    message = terminal_refs(case.message)
    if case.outcome == "xfailed":
        first = result.message.splitlines()[0] if result.message else ""
        pytest.xfail(f"known failure (baseline): {terminal_refs(first)}")
    if result.outcome == "skipped":
        pytest.skip(message)
    if result.outcome == "error":  # the case's message: lone surrogates an IUT sent are escaped there
        pytest.fail(f"{result.spec.id}: not judged: {message}", pytrace=False)
    if result.outcome == "flaky" and case.blocking:
        pytest.fail(f"{result.spec.id}: {message}\nrepro: {case.repro}", pytrace=False)
    if result.must_failed:
        pytest.fail(f"{result.spec.id}:\n{message}\nrepro: {case.repro}", pytrace=False)


class Collector:
    """The controller's view of the run, registered as a plugin: every case, then the report (also when the run is
    interrupted, marked incomplete) and the terminal summary."""

    def __init__(self, config: RunConfig, command: Sequence[str], path: Path | None, *,
                 strict_baseline: Baseline | None = None, shard: Shard | None = None,
                 watch: RunWatch | None = None) -> None:
        self.config = config
        #: The fail-fast and progress watch (`_watch`), told of every case.
        self.watch = watch
        #: `--shard I/N`: the slice of the cases this run judges, recorded in the report.
        self.shard = shard
        self.command = list(command)
        self.path = path
        #: `--strict-baseline`: the baseline whose stale entries fail the run.
        self.strict_baseline = strict_baseline
        self.cases: dict[str, Case] = {}
        self.started = time.monotonic()
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self._lines: IO[str] | None = None

    @property
    def lines_path(self) -> Path | None:
        """The JSON Lines report written as cases finish: a killed run still leaves it; removed once a run that
        ended wrote its JSON report."""
        return None if self.path is None else self.path.with_suffix(".jsonl")

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.lines_path is None:
            return
        self.lines_path.parent.mkdir(parents=True, exist_ok=True)
        self._lines = self.lines_path.open("w", encoding="utf-8", errors="backslashreplace")
        write_jsonl_header(self._lines, self.report(complete=False))

    def _add(self, case: Case) -> None:
        self.cases[case.id] = case
        if self._lines is not None:
            write_jsonl_case(self._lines, case)
        if self.watch is not None:
            self.watch.case(case)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        found = False
        for key, value in report.user_properties:
            if key == PROPERTY and isinstance(value, str):
                case = Case.from_json(json.loads(value))
                if case.id not in self.cases:  # each phase's report carries it: record it once
                    self._add(case)
                found = True
        if not found and report.failed and report.when == "setup":
            self._lost(report)
        caught = interrupted_by()
        if caught is not None and report.when == "teardown":
            # The signal's KeyboardInterrupt can land where Python swallows exceptions (a weakref callback, a
            # __del__) and the run would go on: end it here, between cases, as the signal asked.
            raise KeyboardInterrupt(caught)

    def _lost(self, report: pytest.TestReport) -> None:
        """A case whose setup failed before it was judged (a harness bug, never the IUT's doing): keep it."""
        case_id = report.nodeid.rsplit("[", 1)[-1].rstrip("]") if "[" in report.nodeid else report.nodeid
        scenario, _, group = case_id.partition("::")
        self._add(Case(
            id=case_id, scenario=scenario, group=group or "unknown", outcome="error",
            message=str(report.longrepr)[-4000:], duration_s=round(report.duration, 4), details={},
            repro=self.config.repro(case_id), front=self.config.front,
        ))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        complete = exitstatus not in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        if exitstatus == pytest.ExitCode.OK and nothing_judged(self.cases.values()):  # no verdict without evidence
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if exitstatus == pytest.ExitCode.OK and self.stale():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self._lines is not None:
            if complete:
                write_jsonl_footer(self._lines, time.monotonic() - self.started)
            self._lines.close()
            self._lines = None
        if self.path is not None:
            self.write(self.path, complete=complete)
            if complete and self.lines_path is not None:  # the JSON report holds it all now; an interrupted run,
                self.lines_path.unlink(missing_ok=True)   # or one whose JSON could not be written, keeps it

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.cases:
            return
        terminalreporter.section("callproof")
        for line in self.summary_lines():
            terminalreporter.write_line(terminal_refs(line))
        if self.path is not None:
            terminalreporter.write_line(f"report: {self.path}")

    @property
    def stopped(self) -> str | None:
        """Why the run stopped early (`--max-consecutive-errors`), or None."""
        return None if self.watch is None else self.watch.stopped

    def stale(self) -> list[str]:
        """With `--strict-baseline`: the stale baseline entries, one line each naming the file and line."""
        if self.strict_baseline is None:
            return []
        return stale_entries(self.strict_baseline, self.cases.values())

    def report(self, *, complete: bool) -> Report:
        scenarios = run_scenarios(self.config.scenario_paths)
        return build_report(
            self.config, list(self.cases.values()), started_at=self.started_at,
            duration_s=time.monotonic() - self.started, command=self.command,
            scenario_hash=scenario_set_hash(scenarios.values()), complete=complete, shard=self.shard,
            stopped=self.stopped,
        )

    def write(self, path: Path, *, complete: bool) -> Report:
        report = self.report(complete=complete)
        write_report(path, report)
        return report

    def summary_lines(self) -> list[str]:
        """The terminal summary: the target, the counts (in the words pytest's last line uses, `_status`), the
        failures pytest shows no details of (SHOULD rules, which do not fail the run, and flaky cases' rules), stale
        baseline entries."""
        target = Target.from_json(self.config.target_json())
        lines = [f"target: {target.kind}" + (f", {target.dialects}" if target.dialects else ""),
                 f"cases: {tally_line(self.cases.values())}"]
        nothing = nothing_judged(self.cases.values())
        lines += [f"no case was judged: {nothing}"] if nothing else []
        lines += [f"stopped early: {self.stopped}"] if self.stopped else []
        lines += [f"skipped {count}: {reason}" for reason, count in skip_reasons(self.cases.values())]
        for case in sorted(self.cases.values(), key=lambda c: c.id):
            should = [r for r in case.failed if r.level != "MUST" or case.outcome == "flaky"]
            if should and case.outcome != "xfailed":
                lines += [f"{r.level} {r.rule} {'flaky' if r.outcome == 'flaky' else 'failed'} in {case.id}: "
                          f"{r.message}" for r in should]
            lines += [f"{r.level} {r.rule} attributed to the upstream in {case.id} (not failed): {r.message}"
                      for r in case.attributed]
            if case.baseline == "stale" and self.strict_baseline is None:
                lines.append(f"stale baseline entry: {case.id} passes now; delete it from the baseline")
        stale = self.stale()
        if stale:
            lines += [*stale, f"--strict-baseline: {len(stale)} stale baseline "
                      f"{'entry fails' if len(stale) == 1 else 'entries fail'} the run"]
        return lines
