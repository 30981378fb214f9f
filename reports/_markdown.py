"""The Markdown report, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the verdict, the pass rate in cases per
rule family and over all cases (the badge's), a table of the failed rules (each linked to docs/rules.md), then one
collapsed section per failed case with its evidence, stream excerpt and repro command.

GitHub rejects comments over 65,536 characters, so the output stays under `limit` (default 60,000): when it would
not, the per-case sections go first (a note says how many were left out and where the full report is), then the
messages in the rules table get shorter. The rules table always names every failed rule.

Everything that comes from the implementation under test (messages, excerpts, values, commands) is escaped (see
_text.py).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from callproof.harness import JSONValue
from callproof.harness.report_model import Case, Report, ReportEvidence, Target, tally, tally_line

from ._badge import pass_counts
from ._text import (
    DOCS_URL,
    FAMILIES,
    LEVELS,
    ReportLike,
    as_report,
    code,
    escape,
    evidence_text,
    fails_run,
    fence,
    must_failures,
    one_line,
    plural,
    printable,
    rule_link,
    shorten,
    skip_reasons,
)

__all__ = ["DOCS_URL", "FAMILIES", "render_markdown"]

#: Widths the rules table's messages are cut to, widest first, when the report must shrink to fit.
_WIDTHS = (160, 80, 40, 0)
_EXCERPT_CHARS = 1500
_VALUE_CHARS = 200
_MESSAGE_CHARS = 600
_COMMAND_CHARS = 300


def _percent(part: int, whole: int) -> str:
    """One decimal, rounded down (in integers), so never 100% when something failed, and the badge's whole percent
    is this figure rounded down."""
    if whole == 0:
        return "n/a"
    if part == whole:
        return "100%"
    tenths = 1000 * part // whole
    return f"{tenths // 10}.{tenths % 10}%"


@dataclass(frozen=True, slots=True)
class _RuleRow:
    rule: str
    level: str
    family: str
    cases: int  # failing cases not covered by the baseline
    known: int  # baseline-covered (xfailed) cases
    message: str  # the first failing case's message


def _rule_rows(cases: Sequence[Case]) -> list[_RuleRow]:
    first: dict[str, tuple[str, str, str]] = {}
    counts: dict[str, list[int]] = {}
    for case in cases:
        for result in case.failed:
            first.setdefault(result.rule, (result.level, result.family, result.message))
            counts.setdefault(result.rule, [0, 0])[case.outcome == "xfailed"] += 1
    rows = [_RuleRow(rule, level, family, counts[rule][0], counts[rule][1], message)
            for rule, (level, family, message) in first.items()]
    return sorted(rows, key=lambda r: (LEVELS.index(r.level) if r.level in LEVELS else 9, r.rule))


# -- the parts ----------------------------------------------------------------------------------------------------


def _verdict(report: Report) -> list[str]:
    cases, summary = report.cases, report.summary
    errors = summary.error
    failures = must_failures(cases)
    problems = [failures] if failures else []
    problems += [plural(errors, "error")] if errors else []
    nothing = report.nothing_judged()
    if not cases:
        title = "⚠️ callproof: no cases ran"
    elif nothing is not None:
        title = "❌ callproof: nothing judged"
    elif problems:
        title = f"❌ callproof: {', '.join(problems)}"
    elif report.complete:
        title = "✅ callproof: conformant"
    else:
        title = "⚠️ callproof: no failures so far (incomplete run)"
    lines = [f"## {title}", ""]
    if nothing is not None:
        lines += ["> [!CAUTION]", f"> **No case was judged**: {escape(nothing)}. A verdict needs evidence: fix what "
                  "the errors name, or select cases that apply to this implementation.", ""]
    if not report.complete:
        lines += ["> [!WARNING]",
                  f"> **Incomplete run**: the run was cut off before every case ran; this report covers the "
                  f"{plural(len(cases), 'case')} that finished.", ""]
    if report.stopped is not None:
        lines[-1:-1] = [">", f"> **Stopped early**: {escape(report.stopped)}. The cases it did not reach are left "
                        "out, never counted as passed."]
    words = {tally(c) for c in cases}
    # the words of the terminal and pytest's last line (report_model.tally), so every count of a run agrees
    line = f"{plural(summary.cases, 'case')}: {escape(tally_line(cases))}."
    stale = summary.stale_baseline
    if stale:
        line += (f" {plural(stale, 'baseline entry', 'baseline entries')} now {'passes' if stale == 1 else 'pass'}: "
                 f"delete {'it' if stale == 1 else 'them'} from the baseline.")
    if "SHOULD-failed" in words:
        line += " SHOULD failures are reported but do not fail the run."
    if "xfailed" in words:
        line += " xfailed: known failures the baseline lists."
    if "flaky" in words:
        line += " flaky: the verdicts differed between repeats."
    skips = skip_reasons(cases)
    if skips:
        line += " Skipped: " + "; ".join(f"{escape(reason)} ({count})" for reason, count in skips) + "."
    return [*lines, line, ""]


def _target(report: Report) -> list[str]:
    target: Target = report.target
    what = target.named or ""
    parts = [f"**Target**: {escape(target.kind)} ({escape(target.how)})"
             + (f" {code(shorten(what, _COMMAND_CHARS))}" if what else "")]
    if target.dialects:
        parts.append(escape(target.dialects))
    if target.policies:
        parts.append(f"**policy** {escape(target.policies)}")
    parts.append(f"**profile** {escape(report.profile)}")
    parts.append(f"callproof {escape(report.callproof_version)}")
    parts.append(f"started {escape(report.started_at)}, {report.duration_s:g} s")
    if report.shard is not None:  # a slice of the run: `callproof report --merge` gives the whole
        parts.append(f"**shard** {report.shard}")
    return [" · ".join(parts), ""]


def _families(report: Report) -> list[str]:
    """The pass rate in cases (docs/report.md#pass-rate), per rule family (of the cases a family's rules applied
    to, those that failed none of them; a known failure, xfailed, passes as the badge counts it) and over every case
    that ran: the badge's figure."""
    applied: dict[str, int] = {}
    passed: dict[str, int] = {}
    for case in report.cases:
        failed = set() if case.outcome == "xfailed" else {r.family for r in case.failed}
        for family in {r.family for r in case.results}:
            applied[family] = applied.get(family, 0) + 1
            passed[family] = passed.get(family, 0) + (family not in failed)
    if not applied:
        return []
    order = [f for f in FAMILIES if f in applied] + sorted(set(applied) - set(FAMILIES))
    lines = ["### Pass rate by rule family", "", "| family | cases passed | cases | pass rate |",
             "|---|---:|---:|---:|"]
    lines += [f"| {escape(f)} | {passed[f]} | {applied[f]} | {_percent(passed[f], applied[f])} |" for f in order]
    ok, ran = pass_counts(report)
    lines += [f"| **all cases** | {ok} | {ran} | {_percent(ok, ran)} |", ""]
    return lines


def _rules(rows: Sequence[_RuleRow], docs_url: str, width: int) -> list[str]:
    if not rows:
        return []
    known = any(r.known for r in rows)
    head = "| rule | level | family | cases |" + (" known |" if known else "") + (" first message |" if width else "")
    rule = "|---|---|---|---:|" + ("---:|" if known else "") + ("---|" if width else "")
    lines = ["### Failed rules", "", head, rule]
    for r in rows:
        cells = [rule_link(r.rule, docs_url), escape(r.level), escape(r.family), str(r.cases)]
        cells += [str(r.known)] if known else []
        cells += [escape(shorten(one_line(r.message), width))] if width else []
        lines.append(f"| {' | '.join(cells)} |")
    return [*lines, ""]


def _value(value: JSONValue) -> str:
    return code(shorten(json.dumps(value, ensure_ascii=False), _VALUE_CHARS))


def _evidence(evidence: ReportEvidence) -> str:
    return evidence_text(evidence, kind=code, path=lambda p: code(shorten(p, _VALUE_CHARS)), value=_value,
                         sep=" · ", say_absent=True)


def _details(details: Mapping[str, JSONValue]) -> list[str]:
    """Short details on one line; long text (an stderr tail) in its own block."""
    short, long = [], []
    for key, value in details.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if "\n" in text or len(text) > _VALUE_CHARS:
            long += ["", f"{escape(key)}:", "", fence(printable(shorten(text, _EXCERPT_CHARS)))]
        else:
            short.append(f"{escape(key)} {code(text)}")
    return ([f"Details: {' · '.join(short)}"] if short else []) + long


def _section(case: Case, docs_url: str) -> str:
    failed = case.failed
    title = ", ".join(f"{r.rule} ({r.level})" for r in failed) or case.outcome
    lines = [f"<details><summary><code>{html.escape(case.id)}</code>: {html.escape(title)}</summary>", ""]
    if case.outcome == "flaky":
        lines += ["**Flaky**: the repeats disagree:", ""]
        lines += [f"- repeat {r.get('repeat')}: {escape(str(r.get('outcome')))}"
                  + (f" ({escape(' '.join(map(str, rules)))})" if isinstance(rules := r.get("failed"), list)
                     and rules else "")
                  for r in case.repeats]
        lines.append("")
    if case.outcome == "error" or not failed:
        lines += [f"**{'Not judged' if case.outcome == 'error' else 'Failed'}**:", "",
                  fence(printable(shorten(case.message, _EXCERPT_CHARS))), ""]
    for result in failed:
        flaky = " (flaky: failed in some repeats)" if result.outcome == "flaky" else ""
        lines.append(f"**{rule_link(result.rule, docs_url)}** {escape(result.level)}{flaky}: "
                     f"{escape(shorten(result.message, _MESSAGE_CHARS))}")
        evidence = _evidence(result.evidence)
        more = result.count - 1
        if evidence or more > 0:
            lines += ["", evidence + (f" ({plural(more, 'more violation')})" if more > 0 else "")]
        if result.fix:
            lines += ["", f"Fix: {escape(result.fix)}"]
        if result.excerpt:
            lines += ["", "The stream around it:", "", fence(printable(shorten(result.excerpt, _EXCERPT_CHARS)))]
        lines.append("")
    details = _details(case.details)
    lines += [*details, ""] if details else []
    lines += ["Repro:", "", fence(case.repro, "sh"), "", "</details>", ""]
    return "\n".join(lines)


def _shown(cases: Sequence[Case]) -> list[Case]:
    """The cases that get a section, most severe first: errors, MUST failures, SHOULD-only failures."""
    rank = {"error": 0, "failed": 1, "flaky": 2}
    chosen = [c for c in cases if c.outcome in rank]
    return sorted(chosen, key=lambda c: (rank[c.outcome], not fails_run(c), c.id))


def _omitted(omitted: int, total: int) -> str:
    return (f"\n> {omitted} of {total} failed cases are not shown here (size limit): see the full report, e.g. "
            f"`callproof report --format html report.json`.\n")


#: The findings attributed to the upstream listed by name; more are counted.
_ATTRIBUTED_SHOWN = 10


def _attributed(cases: Sequence[Case], docs_url: str) -> list[str]:
    """The findings attributed to the upstream (docs/spec/contracts.md §7.8): not failures, yet listed so that a
    pass on them stays visible; none, nothing."""
    found = [(c, r) for c in cases for r in c.attributed]
    if not found:
        return []
    lines = ["**Attributed to the upstream** (relayed byte for byte, not failed):", ""]
    lines += [f"- {code(c.id)} **{rule_link(r.rule, docs_url)}** {escape(r.level)}: "
              f"{escape(shorten(r.message, _MESSAGE_CHARS))}" for c, r in found[:_ATTRIBUTED_SHOWN]]
    if len(found) > _ATTRIBUTED_SHOWN:
        lines.append(f"- and {len(found) - _ATTRIBUTED_SHOWN} more (report.json: rule results of outcome `upstream`)")
    return [*lines, ""]


def render_markdown(report: ReportLike, *, limit: int = 60_000, docs_url: str = DOCS_URL) -> str:
    """The report as Markdown of at most `limit` characters (see the module docstring for what is cut first).
    Raises ValueError when even the verdict and the bare list of failed rules do not fit."""
    report = as_report(report)
    cases = report.cases
    top = [*_verdict(report), *_target(report), *_families(report), *_attributed(cases, docs_url)]
    rows = _rule_rows(cases)
    sections = [_section(c, docs_url) for c in _shown(cases)]
    heading = "### Failed cases\n\n" if sections else ""
    for width in _WIDTHS:
        head = "\n".join([*top, *_rules(rows, docs_url, width)]) + "\n" + heading
        budget = limit - len(head) - len(_omitted(len(sections), len(sections)))
        kept: list[str] = []
        for section in sections:
            if budget < len(section) + 1:
                break
            kept.append(section)
            budget -= len(section) + 1
        text = head + "\n".join(kept)
        if len(kept) < len(sections):
            text += _omitted(len(sections) - len(kept), len(sections))
        if len(text) <= limit:
            return text
    raise ValueError(f"render_markdown: limit={limit} characters cannot hold the verdict and the "
                     f"{plural(len(rows), 'failed rule')}; raise the limit")
