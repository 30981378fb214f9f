"""Compare two runs case by case (by case id): what newly fails, what newly passes, what still fails and whether
its failed rules changed, which cases appeared or disappeared, and the stale baseline entries of the head run.

A case is *failing* when its outcome is `failed` (a failed rule of any level not covered by the baseline),
`flaky` (its verdict differed between the repeats of `--repeat N`: never a pass) or `error`, and *passing* when it is
`passed` or `xfailed` (its failures are the known ones). A case that was flaky in base and fails in head is still
failing, not newly failing: the rule was not reliably passing before. Skipped cases are
neither. Newly failing: failing in head, not failing in base (passing, skipped or absent). Newly passing:
passing in head, failing in base. A regression is any newly failing case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from callproof.harness.report_model import Case, Report, Target

from ._text import DOCS_URL, ReportLike, as_report, code, escape, plural, rule_link

__all__ = ["CaseChange", "ReportDiff", "diff_markdown", "diff_reports", "diff_text"]

_FAILING = ("failed", "flaky", "error")
_PASSING = ("passed", "xfailed")
_ROWS = (200, 50, 10, 0)  # rows per list, shrunk until the Markdown fits `limit`


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case in both (or one of the) runs: its outcome in each, None where it is absent, and the failed rules
    head has that base had not (`added`) and the other way round (`removed`)."""

    id: str
    base: str | None
    head: str | None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """A still-failing case that fails differently: other rules, or failed became error (or back)."""
        return bool(self.added or self.removed) or self.base != self.head


@dataclass(frozen=True, slots=True)
class ReportDiff:
    """What changed from a base run to a head run."""

    newly_failing: tuple[CaseChange, ...]
    newly_passing: tuple[CaseChange, ...]
    still_failing: tuple[CaseChange, ...]
    new_cases: tuple[str, ...]
    removed_cases: tuple[str, ...]
    stale_baseline: tuple[str, ...]
    #: Why the comparison may mislead: different targets, scenario sets, profiles or policies, an incomplete run.
    notes: tuple[str, ...] = ()
    #: How the two runs' targets differ, aspect by aspect (mode, implementation, dialects, transports), in one
    #: phrase; None when they tested the same thing. Then the cases compare different setups: the outputs warn.
    targets: str | None = None

    @property
    def warning(self) -> str | None:
        """The one-line warning when the runs tested different targets."""
        if self.targets is None:
            return None
        return (f"the runs tested different targets ({self.targets}): the diff compares two setups, not one "
                "implementation's change")

    @property
    def regression(self) -> bool:
        return bool(self.newly_failing)

    @property
    def changed(self) -> tuple[CaseChange, ...]:
        """The still-failing cases whose failed rules (or outcome) changed."""
        return tuple(c for c in self.still_failing if c.changed)


def _rules(case: Case | None) -> set[str]:
    return {r.rule for r in case.failed} if case is not None else set()


def _change(case_id: str, base: Case | None, head: Case | None) -> CaseChange:
    before, after = _rules(base), _rules(head)
    return CaseChange(case_id, base.outcome if base else None, head.outcome if head else None,
                      tuple(sorted(after - before)), tuple(sorted(before - after)))


def _shown(name: str, value: str, other: str) -> str:
    """An aspect's value as the warning shows it: the implementation quoted, cut unless that hides how it differs
    from the `other`; any other aspect as it is."""
    if name != "implementation":
        return value
    cut = value[:77] + "..." if len(value) > 80 else value
    return repr(cut if cut != (other[:77] + "..." if len(other) > 80 else other) else value)


def _aspects(target: Target) -> dict[str, str]:
    """What a target is, aspect by aspect: mode, implementation (the command, URL, app or client), dialects and
    transports (`http` where an older report does not say)."""
    out = {"mode": target.kind, "implementation": target.named or target.how}
    if target.kind == "gateway":
        out |= {"front": target.front or "responses", "upstream": target.upstream_dialect or "chat"}
    elif target.kind == "client":
        out |= {"client dialect": target.client_dialect or "responses"}
    return out | {key.replace("_", " "): value for key, value in target.transports.items()}


def _targets(base: Report, head: Report) -> str | None:
    """What differs between the targets, aspect by aspect (`front transport: base http, head websocket`), or None.
    Runs of different modes name only the mode and the implementation: their other aspects do not compare."""
    one, other = _aspects(base.target), _aspects(head.target)
    names = ("mode", "implementation") if one["mode"] != other["mode"] else tuple(one)
    differ = [f"{name}: base {_shown(name, one[name], other[name])}, head {_shown(name, other[name], one[name])}"
              for name in names if one[name] != other[name]]
    return "; ".join(differ) or None


def _notes(base: Report, head: Report) -> tuple[str, ...]:
    notes = []
    for name, report in (("base", base), ("head", head)):
        if not report.complete:
            notes.append(f"the {name} run is incomplete: cases it did not reach count as absent")
    if base.scenario_set != head.scenario_set:
        notes.append(f"the runs used different scenario sets ({base.scenario_set} and {head.scenario_set})")
    if base.profile != head.profile:
        notes.append(f"the runs used different profiles ({base.profile} and {head.profile})")
    if base.target.policy and head.target.policy and base.target.policy != head.target.policy:
        notes.append(f"the runs used different policies ({base.target.policies} and {head.target.policies})")
    return tuple(notes)


def diff_reports(base: ReportLike, head: ReportLike) -> ReportDiff:
    """Compare the head run with the base run (two loaded reports)."""
    base, head = as_report(base), as_report(head)
    before = {c.id: c for c in base.cases}
    after = {c.id: c for c in head.cases}
    newly_failing: list[CaseChange] = []
    newly_passing: list[CaseChange] = []
    still_failing: list[CaseChange] = []
    for case_id in sorted(before.keys() | after.keys()):
        old, new = before.get(case_id), after.get(case_id)
        was_failing = old is not None and old.outcome in _FAILING
        if new is not None and new.outcome in _FAILING:
            (still_failing if was_failing else newly_failing).append(_change(case_id, old, new))
        elif was_failing and new is not None and new.outcome in _PASSING:
            newly_passing.append(_change(case_id, old, new))
    return ReportDiff(
        newly_failing=tuple(newly_failing), newly_passing=tuple(newly_passing), still_failing=tuple(still_failing),
        new_cases=tuple(sorted(after.keys() - before.keys())),
        removed_cases=tuple(sorted(before.keys() - after.keys())),
        stale_baseline=tuple(sorted(i for i, c in after.items() if c.baseline == "stale")),
        notes=_notes(base, head), targets=_targets(base, head),
    )


def _headline(diff: ReportDiff) -> str:
    parts = [f"{len(diff.newly_failing)} newly failing", f"{len(diff.newly_passing)} newly passing",
             f"{len(diff.still_failing)} still failing ({len(diff.changed)} changed)",
             f"{plural(len(diff.new_cases), 'new case')}", f"{len(diff.removed_cases)} removed",
             plural(len(diff.stale_baseline), "stale baseline entry", "stale baseline entries")]
    return ", ".join(parts)


def _outcomes(change: CaseChange, arrow: str = "->") -> str:
    return f"{change.base or 'absent'} {arrow} {change.head or 'absent'}"


def _rule_delta(change: CaseChange) -> str:
    return " ".join([*(f"+{r}" for r in change.added), *(f"-{r}" for r in change.removed)])


def diff_text(diff: ReportDiff) -> str:
    """The diff as plain text for a terminal."""
    verdict = "REGRESSION" if diff.regression else "no regression"
    lines = [f"callproof diff: {verdict}: {_headline(diff)}"]
    lines += [f"warning: {diff.warning}"] if diff.warning else []
    lines += [f"note: {note}" for note in diff.notes]
    for title, changes in (("newly failing", diff.newly_failing), ("newly passing", diff.newly_passing),
                           ("changed (still failing)", diff.changed)):
        if changes:
            lines += ["", f"{title}:"]
            lines += [f"  {c.id}  {_outcomes(c)}  {_rule_delta(c)}".rstrip() for c in changes]
    for title, ids in (("new cases", diff.new_cases), ("removed cases", diff.removed_cases),
                       ("stale baseline entries (delete them from the baseline)", diff.stale_baseline)):
        if ids:
            lines += ["", f"{title}:", *(f"  {i}" for i in ids)]
    return "\n".join(lines) + "\n"


def _rule_cell(change: CaseChange, docs_url: str) -> str:
    return " ".join([*(f"+{rule_link(r, docs_url)}" for r in change.added),
                     *(f"-{rule_link(r, docs_url)}" for r in change.removed)])


def _table(title: str, changes: Sequence[CaseChange], docs_url: str, rows: int) -> list[str]:
    if not changes:
        return []
    lines = [f"### {title} ({len(changes)})", "", "| case | outcome | rules |", "|---|---|---|"]
    lines += [f"| {code(c.id, in_table=True)} | {escape(_outcomes(c, '→'))} | {_rule_cell(c, docs_url)} |"
              for c in changes[:rows]]
    if len(changes) > rows:
        lines.append(f"| … and {len(changes) - rows} more | | |")
    return [*lines, ""]


def _list(title: str, ids: Sequence[str], rows: int) -> list[str]:
    if not ids:
        return []
    lines = [f"### {title} ({len(ids)})", "", *(f"- {code(i)}" for i in ids[:rows])]
    if len(ids) > rows:
        lines.append(f"- … and {len(ids) - rows} more")
    return [*lines, ""]


def _markdown(diff: ReportDiff, docs_url: str, rows: int) -> str:
    icon, verdict = ("❌", "regression") if diff.regression else ("✅", "no regression")
    lines = [f"## {icon} callproof diff: {verdict}", "", escape(_headline(diff)) + ".", ""]
    lines += ["> [!WARNING]", f"> {escape(diff.warning)}", ""] if diff.warning else []
    lines += [f"> {escape(note)}" for note in diff.notes] + ([""] if diff.notes else [])
    lines += _table("Newly failing", diff.newly_failing, docs_url, rows)
    lines += _table("Newly passing", diff.newly_passing, docs_url, rows)
    lines += _table("Still failing, changed", diff.changed, docs_url, rows)
    lines += _list("New cases", diff.new_cases, rows)
    lines += _list("Removed cases", diff.removed_cases, rows)
    lines += _list("Stale baseline entries: delete them from the baseline", diff.stale_baseline, rows)
    return "\n".join(lines).rstrip("\n") + "\n"


def diff_markdown(diff: ReportDiff, *, docs_url: str = DOCS_URL, limit: int = 60_000) -> str:
    """The diff as Markdown for a pull-request comment, within `limit` characters: long lists are cut to their
    first rows (the counts stay exact)."""
    for rows in _ROWS[:-1]:
        text = _markdown(diff, docs_url, rows)
        if len(text) <= limit:
            return text
    return _markdown(diff, docs_url, _ROWS[-1])
