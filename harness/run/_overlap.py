"""The evidence a concurrency case needs (GW-ISO-001, CLI-012): its requests are held at the mock until all have
arrived (docs/mock.md#holds), and afterwards the journal shows how many of its cases' streams were in flight at
once. Isolation judged on streams that never overlapped would be a verdict without evidence."""

from __future__ import annotations

import time
from collections.abc import Sequence

from callproof.harness.judge import CaseResult, CaseSpec, Findings, FrontAnswer, answer_problem, check_isolation
from callproof.harness.scenario import Scenario
from callproof.mock_server import Journal, JournalEnd, JournalRequest

from ._scenario_run import NO_ANSWER
from ._verdict import over_limit, summary

__all__ = ["hold_seconds", "in_flight", "isolation_verdict", "not_overlapping"]


def hold_seconds(case_timeout: float) -> float:
    """How long the mock holds a concurrency case's requests for the last of them: a third of the case timeout, at
    most 10 s (nine adapter processes starting at once on a loaded machine take seconds)."""
    return min(10.0, case_timeout / 3)


def in_flight(journal: Journal, cases: Sequence[str]) -> int:
    """The most of `cases` whose answers were being played by the mock at the same instant (a case's span runs
    from the scheduled start of its first answer to the end of its last; an answer with no end yet is still
    open)."""
    wanted = set(cases)
    begin: dict[str, float] = {}
    end: dict[str, float] = {}
    case_of: dict[int, str] = {}
    for record in journal.records():
        if isinstance(record, JournalRequest) and record.case in wanted:
            case_of[record.id] = record.case
            begin[record.case] = min(begin.get(record.case, record.start), record.start)
        elif isinstance(record, JournalEnd) and record.request in case_of:
            case = case_of[record.request]
            end[case] = max(end.get(case, record.time), record.time)
    edges = sorted((t, step) for case, start in begin.items()
                   for t, step in ((start, 1), (end.get(case, float("inf")), -1)))
    most = now = 0
    for _, step in edges:  # an end and a start at the same instant: the end first (-1 sorts before 1)
        now += step
        most = max(most, now)
    return most


def not_overlapping(count: int, overlapped: int, held: float, what: str) -> str | None:
    """The error of a concurrency case whose `count` streams were at most `overlapped` at once (None: judgeable)."""
    if overlapped >= 2:
        return None
    return (f"the {count} concurrent cases' streams were never in flight at the mock together (at most {overlapped} "
            f"at once, after holding them {held:g} s for the rest): {what} seems to send one request at a time, so "
            "isolation was not exercised")


def isolation_verdict(spec: CaseSpec, answers: Sequence[tuple[Scenario, FrontAnswer | None, str | None]],
                      overlapped: int, held: float, start: float) -> CaseResult:
    """The gateway's concurrency case (GW-ISO-001) from its concurrent answers (each scenario, its answer or None
    and why not): an error without evidence (an answer missing or unjudgeable, streams that never overlapped, all
    of them unanswered: `no_answer`), else each answer judged against what its scenario alone would give."""
    chosen = [s for s, _, _ in answers]
    over = [f"{s.id}: {a.exchange.over_limit}" for s, a, _ in answers if a is not None and a.exchange.over_limit]
    if over:
        return over_limit(spec, over[0], time.monotonic() - start, {"scenarios": [s.id for s in chosen]})
    problems = [p for _, a, p in answers if a is None and p]
    if problems:
        silent = {NO_ANSWER: True} if all(a is None for _, a, _ in answers) else {}
        return CaseResult(spec, "error", message=problems[0], seconds=time.monotonic() - start, details=silent)
    findings = Findings()
    check_isolation(findings, [(s, a.result) for s, a, _ in answers if a is not None])
    results = findings.results()
    failed = [r for r in results if r.outcome == "failed"]
    details = {"scenarios": [s.id for s in chosen], "concurrent": len(chosen), "overlapped": overlapped}
    unjudged = [f"{s.id}: {why}" for s, a, _ in answers if a is not None
                for why in [answer_problem(a, s)] if why is not None]
    apart = None if unjudged else not_overlapping(len(chosen), overlapped, held, "the gateway")
    unjudged += [apart] if apart else []
    if unjudged and not failed:  # no verdict without evidence: every concurrent answer must be judgeable
        return CaseResult(spec, "error", (), "\n".join(unjudged), time.monotonic() - start, details)
    message = "\n".join([summary(failed), *unjudged]) if failed else ""
    return CaseResult(spec, "failed" if failed else "passed", results, message, time.monotonic() - start, details)
