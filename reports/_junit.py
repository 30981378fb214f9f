"""The JUnit XML report, for CI test-result views (Jenkins, GitLab, GitHub test reporters).

One `<testsuite name="callproof">`, one `<testcase classname="callproof.<scenario>" name="<group>">` per case:

- a failed case with a failed MUST rule gets a `<failure>` (message: the first failed rule and its message; text:
  every failed rule with its evidence, stream excerpt and fix, then the repro command);
- a case whose only failures are SHOULD (or INFO) rules passes, with the failures as `<system-out>` notes: they
  do not fail a run;
- a `flaky` case (`--repeat N`: the repeats disagree) that fails the run gets a `<failure type="callproof.flaky">`
  (a MUST rule failed in some repeat, or a repeat could not be judged); otherwise it is noted like SHOULD failures;
- an `error` case gets an `<error>` (nothing could be judged: the IUT could not be run, or gave no judgeable answer);
- skipped cases and baseline-covered failures (`xfailed`, message "known failure (baseline)") get `<skipped>`;
- a stale baseline entry is a `<system-out>` note on its passing testcase.

A run cut off before every case ran (`complete: false`) gets one more testcase, `callproof.run` / `complete`, with an
`<error>`: a CI view must not show a killed run as green. Text is sanitised to what XML 1.0 can carry.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime

from callproof.harness.report_model import Case, ReportEvidence, RuleOutcome

from ._text import ReportLike, as_report, evidence_text, fails_run

__all__ = ["render_junit"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_EXCERPT_CHARS = 4000


def _xml_text(text: str) -> str:
    """XML 1.0 cannot carry control characters or lone surrogates: show them as \\xNN / \\uNNNN."""
    def visible(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_XML.sub(visible, text)


def _element(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    child = ET.SubElement(parent, tag, {k: _xml_text(v) for k, v in attributes.items()})
    if text is not None:
        child.text = _xml_text(text)
    return child


def _seconds(value: float) -> str:
    return f"{float(value):.3f}"


def _timestamp(started_at: str) -> str | None:
    """ISO 8601 in UTC without an offset, the form the Ant JUnit schema requires (`2025-01-31T12:00:00`)."""
    try:
        moment = datetime.fromisoformat(started_at)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


def _evidence(evidence: ReportEvidence) -> str:
    return evidence_text(evidence, kind=str, path=str, value=repr, sep=", ", say_absent=False)


def _rule_text(result: RuleOutcome) -> str:
    lines = [f"{result.rule} {result.level} ({result.family}): {result.message}"]
    if evidence := _evidence(result.evidence):
        lines.append(f"    evidence: {evidence}")
    if result.count > 1:
        lines.append(f"    {result.count} violations in all")
    for violation in result.violations:
        lines.append(f"    also: {violation.message}"
                     + (f" [{_evidence(violation.evidence)}]" if not violation.evidence.empty else ""))
    if result.fix:
        lines.append(f"    fix: {result.fix}")
    if result.excerpt:
        excerpt = result.excerpt[:_EXCERPT_CHARS]
        lines += ["    stream around it:", *("      " + line for line in excerpt.splitlines())]
    return "\n".join(lines)


def _case_text(case: Case, results: Sequence[RuleOutcome]) -> str:
    body = [_rule_text(r) for r in results] or [case.message]
    details = ", ".join(f"{k}={v}" for k, v in case.details.items() if not isinstance(v, dict | list))
    return "\n\n".join([*body, *([f"details: {details}"] if details else []), f"repro: {case.repro}"]) + "\n"


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def _testcase(suite: ET.Element, case: Case) -> str:
    """Add the case; return what it counts as: passed, failure, error or skipped."""
    element = _element(suite, "testcase", classname=f"callproof.{case.scenario}", name=case.group,
                       time=_seconds(case.duration_s))
    outcome, failed = case.outcome, case.failed
    first = f"{failed[0].rule} {failed[0].level}: {failed[0].message}" if failed else case.message
    if outcome == "error":
        _element(element, "error", _case_text(case, []), message=_first_line(case.message) or "error",
                 type="callproof.error")
        return "error"
    if outcome == "skipped":
        _element(element, "skipped", message=_first_line(case.message) or "skipped")
        return "skipped"
    if outcome == "xfailed":
        _element(element, "skipped", _case_text(case, failed), message="known failure (baseline)")
        return "skipped"
    if outcome == "flaky" and fails_run(case):
        _element(element, "failure", _case_text(case, failed), message=_first_line(case.message),
                 type="callproof.flaky")
        return "failure"
    if outcome == "failed" and fails_run(case):
        _element(element, "failure", _case_text(case, failed), message=_first_line(first),
                 type=failed[0].rule if failed else "callproof.failure")
        return "failure"
    notes = [f"{r.level} failure (reported, does not fail the run):\n{_rule_text(r)}" for r in failed]
    notes += [f"{r.level} finding attributed to the upstream (relayed byte for byte; not failed):\n{_rule_text(r)}"
              for r in case.attributed]
    if case.baseline == "stale":
        notes.append("stale baseline entry: this case passes now; delete its line from the baseline file")
    if notes:
        _element(element, "system-out", "\n\n".join(notes) + f"\n\nrepro: {case.repro}\n")
    return "passed"


def render_junit(report: ReportLike) -> str:
    """The report as a JUnit XML document (UTF-8, with an XML declaration)."""
    report = as_report(report)
    suite = ET.Element("testsuite", {"name": "callproof"})
    properties = _element(suite, "properties")
    for name, value in (("callproof_version", report.callproof_version), ("profile", report.profile),
                        ("target", report.target.named or report.target.kind),
                        *((("dialects", report.target.dialects),) if report.target.dialects else ()),
                        *report.target.transports.items(),  # `http` for a report from before they were recorded
                        *((("policy", report.target.policies),) if report.target.policies else ()),
                        ("scenario_set", report.scenario_set), ("complete", str(report.complete).lower())):
        _element(properties, "property", name=name, value=value)
    counts = {"passed": 0, "failure": 0, "error": 0, "skipped": 0}
    for case in report.cases:
        counts[_testcase(suite, case)] += 1
    if not report.complete:
        run = _element(suite, "testcase", classname="callproof.run", name="complete", time="0.000")
        _element(run, "error", f"The run was cut off before every case ran: {len(report.cases)} cases finished. "
                               "Rerun it to judge the rest.\n",
                 message="incomplete run: cut off before every case ran", type="callproof.incomplete")
        counts["error"] += 1
    tests = len(report.cases) + (0 if report.complete else 1)
    suite.set("tests", str(tests))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    suite.set("time", _seconds(report.duration_s))
    if timestamp := _timestamp(report.started_at):
        suite.set("timestamp", timestamp)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
