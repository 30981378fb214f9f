"""How pytest counts a case of the bundled suite: under the word callproof counts it under
(`callproof.harness.report_model.tally`), so pytest's last line, its letters and `-v` words agree with the callproof
section and the report. A case that could not be judged is an `error` (pytest would say `failed`), a case whose
only failures are SHOULD rules `SHOULD-failed` (pytest would say `passed`), a `--repeat N` case whose repeats
disagree `flaky`. The pytest outcome, and so the exit status, stay as `verdict` made them: only what is counted and
shown changes.
"""

from __future__ import annotations

import json

import pytest

from callproof.harness.report_model import Case, Tally, tally

__all__ = ["PROPERTY", "case_status"]

#: The user_properties key carrying a case's JSON from the process that ran it to the controller.
PROPERTY = "callproof_case"

#: Each word's pytest letter and `-v` word, and the pytest outcomes `verdict` gives a case of that word.
_SHOWN: dict[Tally, tuple[str, str, tuple[str, ...]]] = {
    "failed": ("F", "FAILED", ("failed",)),
    "passed": (".", "PASSED", ("passed",)),
    "skipped": ("s", "SKIPPED", ("skipped",)),
    "xfailed": ("x", "XFAIL", ("skipped",)),
    "error": ("E", "ERROR", ("failed",)),
    "SHOULD-failed": ("S", "SHOULD-FAILED", ("passed",)),
    "flaky": ("~", "FLAKY", ("passed", "failed")),
}


def _case(report: pytest.TestReport) -> Case | None:
    for key, value in report.user_properties:
        if key == PROPERTY and isinstance(value, str):
            return Case.from_json(json.loads(value))
    return None


def case_status(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """The (category, letter, word) of a suite case's call report; None for any other report (pytest's own), and
    for a case whose pytest outcome is not the one its verdict gives (a harness bug must not be counted away)."""
    if report.when != "call":
        return None
    case = _case(report)
    if case is None:
        return None
    word = tally(case)
    letter, shown, outcomes = _SHOWN[word]
    if report.outcome not in outcomes or hasattr(report, "wasxfail") != (word == "xfailed"):
        return None
    return word, letter, shown
