"""How pytest counts a case of the bundled suite: in callproof's words, from the case its report carries, while
the pytest outcome (and so the exit status) stays as the verdict made it."""

from __future__ import annotations

import json
from typing import Literal

import pytest

from callproof.harness.plugin._status import PROPERTY, case_status
from callproof.harness.report_model import Case, CaseOutcome, Level, RuleOutcome


def _report(outcome: CaseOutcome, *failed: Level, pytest_outcome: Literal["passed", "failed", "skipped"],
            when: Literal["setup", "call", "teardown"] = "call", xfail: bool = False) -> pytest.TestReport:
    results = tuple(RuleOutcome(f"R-{i}", level, "framing", "failed") for i, level in enumerate(failed))
    case = Case("one_call::framing", "one_call", "framing", outcome, results=results)
    report = pytest.TestReport("suite::test_conformance[one_call::framing]", ("suite", 0, "x"), {}, pytest_outcome,
                               None, when, user_properties=[(PROPERTY, json.dumps(case.to_json()))])
    if xfail:
        report.wasxfail = "known failure (baseline)"
    return report


@pytest.mark.parametrize(("report", "status"), [
    (_report("passed", pytest_outcome="passed"), ("passed", ".", "PASSED")),
    (_report("failed", "MUST", pytest_outcome="failed"), ("failed", "F", "FAILED")),
    (_report("failed", "SHOULD", pytest_outcome="passed"), ("SHOULD-failed", "S", "SHOULD-FAILED")),
    (_report("error", pytest_outcome="failed"), ("error", "E", "ERROR")),
    (_report("skipped", pytest_outcome="skipped"), ("skipped", "s", "SKIPPED")),
    (_report("xfailed", "MUST", pytest_outcome="skipped", xfail=True), ("xfailed", "x", "XFAIL")),
    (_report("flaky", "MUST", pytest_outcome="failed"), ("flaky", "~", "FLAKY")),
    (_report("flaky", "SHOULD", pytest_outcome="passed"), ("flaky", "~", "FLAKY")),
])
def test_a_case_is_counted_in_callproof_s_word(report: pytest.TestReport, status: tuple[str, str, str]) -> None:
    assert case_status(report) == status


@pytest.mark.parametrize("report", [
    _report("passed", pytest_outcome="passed", when="setup"),  # setup and teardown: pytest's own
    _report("passed", pytest_outcome="passed", when="teardown"),
    _report("passed", pytest_outcome="failed"),  # the verdict did not make this outcome: not counted away
    _report("error", pytest_outcome="passed"),
    _report("skipped", pytest_outcome="skipped", xfail=True),
    pytest.TestReport("t::x", ("t", 0, "x"), {}, "failed", None, "call"),  # not a suite case
])
def test_other_reports_are_counted_as_pytest_counts_them(report: pytest.TestReport) -> None:
    assert case_status(report) is None
