"""One count of a run's cases: the word each case is counted under and the line that counts them, which the
terminal, pytest's last line, `callproof run` and the Markdown report all give."""

from __future__ import annotations

import dataclasses

import pytest

from callproof.harness.report_model import TALLIES, Case, CaseOutcome, Level, RuleOutcome, tally, tally_line


def _case(outcome: CaseOutcome, *failed: Level, upstream: bool = False, n: int = 0) -> Case:
    results = [RuleOutcome(f"R-{level}-{i}", level, "framing", "failed") for i, level in enumerate(failed)]
    results += [RuleOutcome("RSP-ARGS-004", "MUST", "reassembly", "upstream")] if upstream else []
    return Case(f"s{n}::{outcome}", f"s{n}", outcome, outcome, results=tuple(results))


@pytest.mark.parametrize(("case", "word"), [
    (_case("passed"), "passed"),
    (_case("passed", upstream=True), "passed"),  # a finding attributed to the upstream fails nothing
    (_case("failed", "MUST"), "failed"),
    (_case("failed", "SHOULD", "MUST"), "failed"),
    (_case("failed", "SHOULD"), "SHOULD-failed"),
    (_case("failed", "INFO", "SHOULD"), "SHOULD-failed"),
    (_case("error"), "error"),
    (_case("skipped"), "skipped"),
    (_case("xfailed", "MUST"), "xfailed"),
    (_case("flaky", "SHOULD"), "flaky"),
])
def test_each_case_is_counted_under_one_word(case: Case, word: str) -> None:
    assert tally(case) == word and word in TALLIES


def test_the_line_counts_in_pytest_s_order_and_words() -> None:
    cases = [_case("passed", n=n) for n in range(9)] + [
        _case("failed", "SHOULD", n=10), _case("failed", "MUST", n=11), _case("error", n=12), _case("error", n=13),
        _case("flaky", "MUST", n=14), _case("skipped", n=15), _case("xfailed", "MUST", n=16)]
    assert tally_line(cases) == "1 failed, 9 passed, 1 skipped, 1 xfailed, 2 errors, 1 SHOULD-failed, 1 flaky"
    assert tally_line([*cases[:1], _case("error", n=20)]) == "1 passed, 1 error"
    assert tally_line([]) == "no cases"


def test_cases_with_a_finding_attributed_to_the_upstream_are_a_note_not_a_count() -> None:
    one = _case("passed", upstream=True)
    assert tally_line([one, _case("passed", n=1)]) == "2 passed; 1 case has a finding attributed to the upstream"
    two = dataclasses.replace(_case("failed", "MUST", upstream=True), id="t::x")
    assert tally_line([one, two]) == "1 failed, 1 passed; 2 cases have a finding attributed to the upstream"
