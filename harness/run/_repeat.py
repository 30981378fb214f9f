"""`--repeat N`: each case judged on N independent runs of its scenario, and one verdict from them
(docs/report.md#outcomes). Identical verdicts are the verdict; verdicts that differ make the case `flaky`, never
`passed`: the rules whose outcome differed are flaky, each with a failing repeat's evidence, and the case's
details list every repeat's outcome and failed rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import CaseResult

__all__ = ["combine_repeats"]


def _failed_ids(result: CaseResult) -> frozenset[str]:
    return frozenset(r.rule.id for r in result.failed)


def _summary(index: int, result: CaseResult) -> dict[str, Any]:
    line = result.message.splitlines()[0] if result.message else ""
    return {"repeat": index + 1, "outcome": result.outcome, "failed": sorted(_failed_ids(result)),
            "message": line[:300], "seconds": round(result.seconds, 4)}


def combine_repeats(results: Sequence[CaseResult]) -> CaseResult:
    """One verdict from the repeats of a case: theirs when they agree (same outcome, same failed rules), else
    `flaky`. The combined result keeps every rule that applied in any repeat; a rule failed in some repeats and
    not in others is flaky and carries its first failing repeat's violations."""
    first = results[0]
    repeats = [_summary(i, r) for i, r in enumerate(results)]
    seconds = sum(r.seconds for r in results)
    if len(results) == 1 or all((r.outcome, _failed_ids(r)) == (first.outcome, _failed_ids(first))
                                for r in results[1:]):
        details = {**first.details, "repeats": repeats} if len(results) > 1 else dict(first.details)
        return replace(first, seconds=seconds, details=details)
    failing = next((r for r in results if r.failed), None)
    ever_failed = frozenset().union(*(_failed_ids(r) for r in results))
    always_failed = frozenset.intersection(*(_failed_ids(r) for r in results))
    flaky = ever_failed - always_failed
    rules: dict[str, RuleResult] = {}
    for result in (*(r for r in results if r.failed), *results):  # failing repeats first: their evidence wins
        for rule in result.results:
            kept = rules.get(rule.rule.id)
            if kept is None or (kept.outcome != "failed" and rule.outcome == "failed"):
                rules[rule.rule.id] = rule
    order = [r.rule.id for r in first.results] + sorted(set(rules) - {r.rule.id for r in first.results})
    outcomes = ", ".join(f"{r['outcome']}" + (f" ({' '.join(r['failed'])})" if r["failed"] else "") for r in repeats)
    message = f"flaky: the {len(results)} repeats disagree: {outcomes}"
    if failing is not None and failing.message:
        message += "\n" + failing.message
    errors = [r.message for r in results if r.outcome == "error" and r.message]
    if failing is None and errors:
        message += "\n" + errors[0]
    evidence = failing or first
    return CaseResult(first.spec, "flaky", tuple(rules[i] for i in order), message, seconds,
                      {**evidence.details, "repeats": repeats}, evidence.timeline, evidence.excerpts, flaky)

