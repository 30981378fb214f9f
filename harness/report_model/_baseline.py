"""Baselines: a file of known failures that do not fail a run (docs/spec/contracts.md §4, `--baseline`).

One entry a line: a case id, optionally followed by the rule ids it is known to fail; `#` starts a comment.

    # our gateway drops Retry-After until PR 123 lands
    fault_http_429::faults GW-FAULT-002
    timing_explicit_delays::streaming

A failed case is covered when it is listed without rules, or when each rule it failed is listed; so is a flaky
case (`--repeat N`), by the rules that failed in any repeat (`--write-baseline` marks such entries `# flaky`). A
listed case that now passes is stale: the run reports it, so the entry can be deleted; so is a listed rule that
the case now passes. `--strict-baseline` fails the run on stale entries (`stale_entries`: one line each, naming the
file and line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from callproof.harness._errors import CallproofError
from callproof.harness.catalogue import RULES

from ._model import Case

__all__ = ["Baseline", "BaselineError", "format_baseline", "load_baseline", "stale_entries"]

_CASE = re.compile(r"^[A-Za-z0-9_.-]+::[a-z]+$")


class BaselineError(CallproofError):
    """A baseline file is unreadable or malformed; the message names the file, the line and the fix."""


@dataclass(frozen=True, slots=True)
class Baseline:
    """Known failures by case id: an empty rule set means every rule of the case."""

    entries: dict[str, frozenset[str]]
    source: str = ""
    #: The line of each case's first entry (1-based), for messages naming the file and line.
    lines: Mapping[str, int] = field(default_factory=dict)

    def covers(self, case: str, failed_rules: Iterable[str]) -> bool:
        if case not in self.entries:
            return False
        listed = self.entries[case]
        return not listed or set(failed_rules) <= listed

    def listed(self, case: str) -> bool:
        return case in self.entries


def load_baseline(path: Path) -> Baseline:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"baseline {path}: cannot read it ({exc.strerror or exc}); check --baseline") from None
    entries: dict[str, frozenset[str]] = {}
    lines: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        case, *rules = line.split()
        if not _CASE.match(case):
            raise BaselineError(f"baseline {path}:{number}: {case!r} is not a case id; write <scenario>::<group> as "
                                "shown in the report (e.g. fault_http_429::faults)")
        unknown = [r for r in rules if r not in RULES]
        if unknown:
            raise BaselineError(f"baseline {path}:{number}: unknown rule ids {unknown}; see `callproof rules`")
        entries[case] = entries.get(case, frozenset()) | frozenset(rules)
        lines.setdefault(case, number)
    return Baseline(entries, str(path), lines)


def stale_entries(baseline: Baseline, cases: Iterable[Case]) -> list[str]:
    """The baseline's stale entries among the cases that ran, one line each naming the file and line: a listed case
    that passed, and listed rules that the case ran and passed (a rule that failed in some repeat is not stale)."""
    out: list[tuple[int, str]] = []
    for case in cases:
        if case.id not in baseline.entries:
            continue
        where = f"{baseline.source}:{baseline.lines.get(case.id, 0)}"
        if case.outcome == "passed":
            out.append((baseline.lines.get(case.id, 0),
                        f"{where}: stale baseline entry: {case.id} passes now; delete the line"))
            continue
        passing = {r.rule for r in case.results if r.outcome == "passed"}
        fixed = sorted(baseline.entries[case.id] & passing)
        if fixed:
            out.append((baseline.lines.get(case.id, 0),
                        f"{where}: stale baseline entry: {case.id} passes {' '.join(fixed)} now; delete "
                        f"{'it' if len(fixed) == 1 else 'them'} from the line"))
    return [line for _, line in sorted(out)]


def format_baseline(failures: Iterable[tuple[str, Iterable[str]]], *, flaky: Iterable[str] = ()) -> str:
    """A baseline file listing these (case id, failed rule ids); the `flaky` case ids are marked so."""
    marked = set(flaky)
    lines = ["# callproof baseline: known failures that do not fail the run (see `callproof run --baseline`)"]
    lines += [f"{case} {' '.join(sorted(rules))}".rstrip() + ("  # flaky" if case in marked else "")
              for case, rules in sorted(failures)]
    return "\n".join(lines) + "\n"
