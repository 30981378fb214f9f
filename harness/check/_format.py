"""Human-readable rendering of check reports and of the rule catalogue."""

from __future__ import annotations

import json
from collections.abc import Iterable

from callproof.harness.catalogue import Rule

from ._check import CheckReport

__all__ = ["DOCS_URL", "catalogue_markdown", "format_report", "summary_line"]

#: Where each rule is documented (the README's generated catalogue, one anchor per rule id).
DOCS_URL = "README.md#"


def summary_line(report: CheckReport) -> str:
    failed = report.failed
    should = sum(1 for r in failed if r.rule.level == "SHOULD")
    info = sum(1 for r in failed if r.rule.level == "INFO")
    passed = sum(1 for r in report.results if r.outcome == "passed")
    na = sum(1 for r in report.results if r.outcome == "not-applicable")
    verdict = "conformant" if report.conformant else "NOT conformant"
    tail = f", {info} INFO" if info else ""
    na_text = f", {na} not applicable" if na else ""
    return (
        f"{verdict}: {report.must_failed} MUST and {should} SHOULD rules failed{tail}, "
        f"{passed} passed{na_text}"
    )


def format_report(report: CheckReport, source: str, *, max_violations: int = 3) -> str:
    """The text `callproof check` prints: a header, each failed rule with evidence and fix, a summary."""
    size = f"{report.bytes} bytes" if report.bytes else "decoded events"
    lines = [
        f"{source}: front {report.front}, profile {report.profile}, {report.kind}, "
        f"{report.events} events, {size}"
    ]
    for result in report.failed:
        rule = result.rule
        lines.append(f"  FAIL {rule.id} [{rule.level}] {rule.statement}")
        for violation in result.violations[:max_violations]:
            ev = violation.evidence
            lines.append(f"    - {ev.describe()}: {violation.message}")
            if ev.expected is not None or ev.actual is not None:
                lines.append(f"      expected {_value(ev.expected)}, actual {_value(ev.actual)}")
        more = result.count - min(len(result.violations), max_violations)
        if more > 0:
            lines.append(f"    ... and {more} more")
        lines.append(f"    fix: {rule.fix}")
        lines.append(f"    spec: {rule.spec} (docs: {DOCS_URL}{rule.anchor})")
    lines.append(f"  {summary_line(report)}")
    return "\n".join(lines)


def _value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def catalogue_markdown(rules: Iterable[Rule]) -> str:
    """The rule table of the README, one row per rule with an anchor named after its id."""
    out = [
        "| id | level | family | fronts | profiles | statement | spec |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule in rules:
        profiles = "all" if len(rule.profiles) == 3 else ", ".join(sorted(rule.profiles))
        fronts = ", ".join(sorted(rule.fronts))
        statement = rule.statement.replace("|", "\\|")
        spec = rule.spec.replace("|", "\\|")
        out.append(
            f'| <a id="{rule.anchor}"></a>`{rule.id}` | {rule.level} | {rule.family} | {fronts} | {profiles} '
            f"| {statement} | {spec} |"
        )
    return "\n".join(out) + "\n"
