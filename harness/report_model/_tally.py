"""How a run's cases are counted wherever a terminal or a page counts them (the callproof section of the terminal
summary, pytest's last line, `callproof run`'s last line, the Markdown report): one word per case, so that every
count of one run agrees (docs/report.md#counts).

The words follow pytest's where pytest has one (`failed`, `passed`, `skipped`, `xfailed`, `error`), in pytest's
order, then callproof's own: `SHOULD-failed`, a case whose failed rules are all SHOULD or INFO (reported, not
failing the run: pytest passes it), and `flaky` (`--repeat N`: the repeats disagreed). A case is `failed` only when
a MUST rule failed: then it fails the run. `error` is pytest's `errors` when there are several.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypeAlias, get_args

from ._model import Case

__all__ = ["TALLIES", "Tally", "tally", "tally_line"]

Tally: TypeAlias = Literal["failed", "passed", "skipped", "xfailed", "error", "SHOULD-failed", "flaky"]
#: Every word, in the order a count line gives them (pytest's own first, in its order).
TALLIES: tuple[Tally, ...] = get_args(Tally)


def tally(case: Case) -> Tally:
    """The word a case is counted under."""
    if case.outcome == "failed" and not case.failed_level("MUST"):
        return "SHOULD-failed"
    return case.outcome


def _counted(count: int, word: Tally) -> str:
    return f"{count} {'errors' if word == 'error' and count != 1 else word}"


def tally_line(cases: Iterable[Case]) -> str:
    """`1 failed, 9 passed, 2 errors, 1 SHOULD-failed`: each word with its count, none for a word no case
    has, then how many cases have a finding attributed to the upstream (whatever their word: a note, not a count
    of its own); "no cases" when there is none."""
    cases = tuple(cases)
    counts = dict.fromkeys(TALLIES, 0)
    for case in cases:
        counts[tally(case)] += 1
    line = ", ".join(_counted(n, word) for word, n in counts.items() if n) or "no cases"
    upstream = sum(1 for c in cases if c.attributed)
    if upstream:  # passed or not, shown: docs/spec/contracts.md §7.8
        line += (f"; {upstream} {'case has' if upstream == 1 else 'cases have'} a finding attributed to the "
                 "upstream")
    return line
