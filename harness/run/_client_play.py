"""Client mode's isolation case: nine adapter runs at once against one mock (CLI-012), each one's wire read through
the client's transport (`_client_wires`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.judge import (
    AdapterRun,
    CaseResult,
    CaseSpec,
    Findings,
    adapter_problem,
    check_client_isolation,
)
from callproof.harness.outcome import Result, result_of_adapter
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import Scenario
from callproof.mock_server import MockServer

from ._client import ClientAdapter
from ._client_wires import read_wire
from ._overlap import hold_seconds, in_flight, not_overlapping
from ._verdict import summary

__all__ = ["judge_client_isolation"]

def _at_once(scenarios: Sequence[Scenario], tags: Sequence[str], adapter: ClientAdapter, base_url: str,
             timeout: float, request: Callable[[Scenario, str], dict[str, Any]]) -> list[AdapterRun | None]:
    """The adapter run for every scenario at once, each with its case tag, started together (a barrier): each run,
    or None where it did not happen."""
    runs: list[AdapterRun | None] = [None] * len(scenarios)
    barrier = threading.Barrier(len(scenarios))

    def one(index: int) -> None:
        body = request(scenarios[index], tags[index])
        barrier.wait(timeout=timeout)
        runs[index] = adapter.run(body, base_url, timeout)

    threads = [threading.Thread(target=one, args=(i,), name=f"callproof-client-iso-{i}") for i in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return runs


def judge_client_isolation(
    spec: CaseSpec, scenarios: Sequence[Scenario], adapter: ClientAdapter, mock: MockServer, dialect: Dialect,
    timeout: float, request: Callable[[Scenario, str], dict[str, Any]],
    alone: Callable[[str], tuple[Result | None, str | None]], transport: str = "http",
) -> CaseResult:
    """CLI-012: the client's result for every scenario alone first (`alone`: the scenario's own run, played one
    after another, cached by the harness: its result, or None and why there is none to compare with), then the
    adapter for every scenario at once (each with its own case tag); each concurrent run must report what the
    client reports for its scenario alone, and none of the others' output. A scenario without a result alone, a run
    without a judgeable result, or without a request under its case tag, makes the case an error unless a leak was
    found anyway (without a result alone: always an error)."""
    start = time.monotonic()
    solo = [(s, *alone(s.id)) for s in scenarios]
    missing = [f"{s.id} alone: {why or 'no result'}" for s, result, why in solo if result is None]
    if missing:  # no verdict without evidence: the result alone is what a concurrent run is compared with
        return CaseResult(spec, "error", (), "\n".join([
            "the isolation case compares each concurrent run with the client's result for the same scenario alone, "
            "and has nothing to compare with (the scenario's own cases judge that run):", *missing]),
            time.monotonic() - start, {"scenarios": [s.id for s in scenarios]})
    tags = [new_case_tag() for _ in scenarios]
    held = hold_seconds(timeout)
    mock.hold(tags, held)  # the streams overlap at the mock, however slowly the adapter processes start
    runs = _at_once(scenarios, tags, adapter, str(mock.url), timeout, request)
    judged: list[tuple[Scenario, Result, Result, Result]] = []
    problems: list[str] = []
    for (scenario, result_alone, _), tag, run in zip(solo, tags, runs, strict=True):
        if run is None or run.result is None:
            problems.append(f"{scenario.id}: {adapter_problem(run) if run else 'the adapter run did not happen'}")
            continue
        wire, _, count, _ = read_wire(mock.journal, tag, dialect, transport)
        if not count:
            problems.append(f"{scenario.id}: the adapter never called the mock with its case's request (the markers "
                            "of the first user message must travel as they came)")
        assert result_alone is not None  # checked above
        judged.append((scenario, result_of_adapter(run.result), wire, result_alone))
    overlapped = in_flight(mock.journal, tags)
    details = {"scenarios": [s.id for s in scenarios], "concurrent": len(scenarios), "overlapped": overlapped}
    apart = None if problems else not_overlapping(len(scenarios), overlapped, held, "the client")
    problems += [apart] if apart else []
    findings = Findings()
    if judged:
        check_client_isolation(findings, judged)
    results = tuple(r for r in findings.results() if r.rule.id.startswith("CLI-"))
    failed = [r for r in results if r.outcome == "failed"]
    seconds = time.monotonic() - start
    if problems and not failed:  # no verdict without evidence: every concurrent run must be judgeable
        return CaseResult(spec, "error", (), "\n".join(problems), seconds, details)
    message = "\n".join([summary(failed), *problems]) if failed else ""
    return CaseResult(spec, "failed" if failed else "passed", results, message, seconds, details)
