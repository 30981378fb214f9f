"""The evidence a concurrency case needs (GW-ISO-001, CLI-012): its requests are held at the mock until all have
arrived (docs/mock.md#holds), and afterwards the journal shows how many of its cases' streams were in flight at
once. Isolation judged on streams that never overlapped would be a verdict without evidence. Each concurrent answer
is compared with the same IUT's answer to its scenario alone, played first: what it gets wrong alone is no isolation
bug."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness.judge import (
    CaseResult,
    CaseSpec,
    Findings,
    FrontAnswer,
    IdsOfAnswer,
    answer_ids,
    answer_problem,
    check_isolation,
    check_unique_ids,
    given_ids,
)
from callproof.harness.scenario import Scenario
from callproof.mock_server import Journal, JournalEnd, JournalRequest

from ._scenario_run import NO_ANSWER
from ._verdict import over_limit, summary

__all__ = ["Answered", "hold_seconds", "in_flight", "isolation_verdict", "not_overlapping"]


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


@dataclass(frozen=True, slots=True)
class Answered:
    """One answer of the isolation case: its scenario, the front's answer (None: `problem` says why, or why it is
    not judgeable), and what the gateway was given for it (the upstream's answer for its case, the request it got):
    the ids there are passed through, not issued (GW-ID-002)."""

    scenario: Scenario
    answer: FrontAnswer | None
    problem: str | None = None
    given: tuple[bytes, ...] = ()


def isolation_verdict(spec: CaseSpec, solo: Sequence[Answered], answers: Sequence[Answered], overlapped: int,
                      held: float, start: float) -> CaseResult:
    """The gateway's concurrency case from each scenario's answer alone (`solo`, played one after another first)
    and its concurrent answer (`answers`, in the same order): an error without evidence (an answer missing or
    unjudgeable, alone or concurrent; streams that never overlapped; all of them unanswered: `no_answer`), else
    each concurrent answer judged against the same gateway's answer alone (GW-ISO-001) and the ids of all of them
    for uniqueness (GW-ID-002). What an answer alone gets wrong is its scenario's cases' to judge, never this one's."""
    chosen = [a.scenario for a in answers]
    details: dict[str, Any] = {"scenarios": [s.id for s in chosen]}
    over = [f"{a.scenario.id}: {a.answer.exchange.over_limit}" for a in answers
            if a.answer is not None and a.answer.exchange.over_limit]
    if over:
        return over_limit(spec, over[0], time.monotonic() - start, details)
    problems = [a.problem for a in answers if a.answer is None and a.problem]
    if problems:
        silent = {NO_ANSWER: True} if all(a.answer is None for a in answers) else {}
        return CaseResult(spec, "error", message=problems[0], seconds=time.monotonic() - start, details=silent)
    alone = [f"{a.scenario.id} alone: {a.problem or 'no answer'}" for a in solo if a.answer is None or a.problem]
    if alone:  # no verdict without evidence: the answer alone is what a concurrent one is compared with
        return CaseResult(spec, "error", (), "\n".join([
            "the isolation case compares each concurrent answer with the same scenario's answer alone, and has "
            "nothing to compare with (the scenario's own cases judge that answer):", *alone]),
            time.monotonic() - start, details)
    findings = Findings()
    pairs = [(a.scenario, a.answer.result, s.answer.result) for a, s in zip(answers, solo, strict=True)
             if a.answer is not None and s.answer is not None]
    check_isolation(findings, pairs)
    check_unique_ids(findings, [IdsOfAnswer(a.scenario.id, f"{a.scenario.id} {when}", answer_ids(a.answer.events),
                                            given_ids(a.given))
                                for when, group in (("alone", solo), ("concurrent", answers)) for a in group
                                if a.answer is not None])
    results = findings.results()
    failed = [r for r in results if r.outcome == "failed"]
    details.update(concurrent=len(chosen), overlapped=overlapped)
    unjudged = [f"{a.scenario.id}: {why}" for a in answers if a.answer is not None
                for why in [answer_problem(a.answer, a.scenario)] if why is not None]
    apart = None if unjudged else not_overlapping(len(chosen), overlapped, held, "the gateway")
    unjudged += [apart] if apart else []
    if unjudged and not failed:  # no verdict without evidence: every concurrent answer must be judgeable
        return CaseResult(spec, "error", (), "\n".join(unjudged), time.monotonic() - start, details)
    message = "\n".join([summary(failed), *unjudged]) if failed else ""
    return CaseResult(spec, "failed" if failed else "passed", results, message, time.monotonic() - start, details)
