"""The verdict on one case of a run: a scenario and a rule group, and the outcome of each rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from callproof.harness.catalogue import RuleResult

__all__ = ["CaseOutcome", "CaseResult", "CaseSpec"]

CaseOutcome = Literal["passed", "failed", "skipped", "xfailed", "error", "flaky"]


@dataclass(frozen=True, slots=True)
class CaseSpec:
    """One test item: rules of `group` on scenario `scenario`."""

    scenario: str
    group: str

    @property
    def id(self) -> str:
        return f"{self.scenario}::{self.group}"


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The verdict on one case. `outcome` follows the rules: failed when any rule (MUST or SHOULD) failed, error
    when nothing could be judged (the IUT could not be run, or gave no judgeable answer: docs/report.md#outcomes),
    skipped when the group does not apply to what the IUT did (`message` says why); `details` holds extra evidence
    (stderr tail, answer status...)."""

    spec: CaseSpec
    outcome: CaseOutcome
    results: tuple[RuleResult, ...] = ()
    message: str = ""
    seconds: float = 0.0
    details: Mapping[str, Any] = field(default_factory=dict)
    #: For a failed case with a front stream: its events with arrival times, and raw excerpts by rule id.
    timeline: tuple[Mapping[str, Any], ...] = ()
    excerpts: Mapping[str, str] = field(default_factory=dict)
    #: With `--repeat N`: the rules whose outcome differed between the repeats (the case is then `flaky`).
    flaky: frozenset[str] = frozenset()

    @property
    def must_failed(self) -> tuple[RuleResult, ...]:
        """The MUST rules that failed (in some repeat, for a flaky rule)."""
        return tuple(r for r in self.results if r.outcome == "failed" and r.rule.level == "MUST")

    @property
    def failed(self) -> tuple[RuleResult, ...]:
        return tuple(r for r in self.results if r.outcome == "failed")

    @property
    def loaded(self) -> bool:
        """Whether the case failed on violations the machine's load can account for alone (every kept violation of
        every failed rule `loaded`, none uncounted): a timing case the harness plays again (STREAM_PLAYS)."""
        failed = self.failed
        return (self.outcome == "failed" and bool(failed)
                and all(r.violations and r.count == len(r.violations) and all(v.loaded for v in r.violations)
                        for r in failed))
