"""A case's verdict (harness/judge/_case.py): `loaded`, whether it failed on violations the machine's load can
account for alone, the cases the harness plays again (STREAM_PLAYS)."""

from __future__ import annotations

from callproof.harness.catalogue import RULES, RuleResult, Violation
from callproof.harness.judge import CaseResult, CaseSpec

SPEC = CaseSpec("timing_ttft_and_gaps", "streaming")


def _failed(*violations: Violation, count: int | None = None) -> RuleResult:
    rule = violations[0].rule
    return RuleResult(RULES[rule], "failed", violations, len(violations) if count is None else count)


def test_a_case_failed_only_on_loaded_violations_is_loaded() -> None:
    late = Violation("GW-STREAM-001", "late", loaded=True)
    held = Violation("GW-STREAM-002", "held", loaded=True)
    assert CaseResult(SPEC, "failed", (_failed(late), _failed(held))).loaded


def test_one_violation_the_load_cannot_account_for_makes_it_a_verdict() -> None:
    late = Violation("GW-STREAM-001", "late", loaded=True)
    held = Violation("GW-STREAM-002", "held")
    assert not CaseResult(SPEC, "failed", (_failed(late), _failed(held))).loaded
    assert not CaseResult(SPEC, "failed", (_failed(late, count=2),)).loaded  # one was not kept: unknown, not loaded
    passed = RuleResult(RULES["GW-STREAM-001"], "passed")
    assert not CaseResult(SPEC, "passed", (passed,)).loaded
    assert not CaseResult(SPEC, "error", (_failed(late),), "no answer").loaded
