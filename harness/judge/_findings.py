"""Collecting the verdicts of the harness rules (families 7-9) for one case, like `Sink` does for one stream."""

from __future__ import annotations

from collections.abc import Iterable

from callproof.harness.catalogue import RULES, Evidence, RuleResult
from callproof.harness.check import Sink

__all__ = ["Findings"]


class Findings:
    """Rules are declared applicable with `check(rule)`; violations of applicable rules are kept; `results()`
    gives one `RuleResult` per declared rule (passed or failed), in catalogue order."""

    def __init__(self) -> None:
        self._checked: set[str] = set()
        self._sink: Sink | None = None
        self._violations: list[tuple[str, str, Evidence, bool]] = []

    def check(self, *rules: str) -> None:
        for rule in rules:
            if rule not in RULES:
                raise KeyError(f"{rule} is not in the catalogue")
            self._checked.add(rule)

    def checked(self, rule: str) -> bool:
        return rule in self._checked

    def fail(self, rule: str, message: str, evidence: Evidence | None = None, *, loaded: bool = False) -> None:
        """Record a violation; the rule is checked by the act of failing it. `loaded`: the machine's load can account
        for it (`Violation.loaded`)."""
        self.check(rule)
        self._violations.append((rule, message, evidence or Evidence(), loaded))

    def results(self) -> tuple[RuleResult, ...]:
        sink = Sink(self._checked)
        for rule, message, evidence, loaded in self._violations:
            sink.add(rule, message, evidence, loaded)
        return tuple(
            RuleResult(RULES[r], "failed" if sink.counts.get(r) else "passed", tuple(sink.kept.get(r, ())),
                       sink.counts.get(r, 0))
            for r in _ordered(self._checked)
        )


def _ordered(ids: Iterable[str]) -> list[str]:
    order = {rule: index for index, rule in enumerate(RULES)}
    return sorted(ids, key=order.__getitem__)
