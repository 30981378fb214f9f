"""Shards of a run as the report records them (`--shard I/N`: the report's `shard`), and the merge of every shard's
report into the one report of the whole run (`callproof report --merge`, docs/ci.md#shards).

The merged report is the report an unsharded run of the same command would have written, apart from timings: the
same cases, the summary computed again from them, the shards' common target, profile and scenario set. Reports of
different runs, a shard given twice, shards that share a case or a missing shard are refused with one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from callproof.harness._errors import CallproofError
from callproof.harness._types import JSONValue

if TYPE_CHECKING:
    from ._model import Report

__all__ = ["MergeError", "Shard", "merge_reports", "unsharded_command"]


class MergeError(CallproofError):
    """The reports do not make one run (`callproof report --merge` exits 2 with this message)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard `index` of `count` (1-based). `selection` is a digest of what chose the slice besides the shard (the
    run's options, `-k`, the durations that balanced it): the shards of one run share it."""

    index: int
    count: int
    selection: str = ""

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Shard:
        return cls(data["index"], data["count"], data.get("selection", ""))

    def to_json(self) -> dict[str, JSONValue]:
        return {"index": self.index, "count": self.count, "selection": self.selection}


#: The flags that choose the shard (with their value), left out of the merged report's command.
_SHARD_FLAGS = ("--shard", "--callproof-shard")


def unsharded_command(command: Sequence[str]) -> tuple[str, ...]:
    """A shard's command line without its `--shard I/N` (or `--callproof-shard`), as the whole run's."""
    out: list[str] = []
    skip = False
    for arg in command:
        if skip:
            skip = False
            continue
        if arg in _SHARD_FLAGS:
            skip = True
            continue
        if arg.partition("=")[0] in _SHARD_FLAGS and "=" in arg:
            continue
        out.append(arg)
    return tuple(out)


def merge_reports(named: Sequence[tuple[str, Report]]) -> Report:
    """The report of the whole run from the reports of its shards, each named (its file) for the messages.
    Raises `MergeError` naming the reports when they are not every shard of one run."""
    from ._model import Report  # the model imports this module (its `shard` field)

    if not named:
        raise MergeError("no report to merge")
    shards: list[Shard] = []
    for name, report in named:
        if report.shard is None:
            raise MergeError(f"{name} is not the report of a shard (a run without --shard I/N): there is nothing to "
                             "merge it with")
        shards.append(report.shard)
    _same_run(named, shards)
    _every_shard_once([name for name, _ in named], shards)
    owner: dict[str, str] = {}
    for name, report in named:
        for case in report.cases:
            if case.id in owner:
                raise MergeError(f"case {case.id} is in both {owner[case.id]} and {name}: the shards overlap; merge "
                                 "the shards of one run")
            owner[case.id] = name
    first = named[0][1]
    return Report.new(
        version=first.callproof_version, profile=first.profile, target=first.target,
        command=unsharded_command(first.command), scenario_set=first.scenario_set,
        started_at=min(r.started_at for _, r in named), duration_s=max(r.duration_s for _, r in named),
        cases=[c for _, r in named for c in r.cases], complete=all(r.complete for _, r in named),
        platform=first.platform, stopped="; ".join(f"shard {r.shard}: {r.stopped}" for _, r in named if r.stopped)
        or None,
    )


def _same_run(named: Sequence[tuple[str, Report]], shards: Sequence[Shard]) -> None:
    """Every report is of the same run as the first: target, profile, scenario set, version and shard selection."""
    first_name, first = named[0]
    for (name, report), shard in zip(named[1:], shards[1:], strict=True):
        for what, mine, theirs in (
            ("targets", first.target.label, report.target.label),
            ("targets", first.target.to_json(), report.target.to_json()),
            ("profiles", first.profile, report.profile),
            ("scenario sets", first.scenario_set, report.scenario_set),
            ("callproof versions", first.callproof_version, report.callproof_version),
            ("shard counts", shards[0].count, shard.count),
        ):
            if mine != theirs:
                shown = (f" ({mine} and {theirs})" if isinstance(mine, (str, int)) else
                         f" ({first.target.dialects or first.target.label} and "
                         f"{report.target.dialects or report.target.label}, or their policies)")
                raise MergeError(f"{first_name} and {name} are reports of different runs: different {what}{shown}; "
                                 "merge the shards of one run")
        if shards[0].selection != shard.selection:
            raise MergeError(f"{first_name} and {name} chose their cases differently (other options, -k or "
                             "--shard-durations): run every shard with the same command but for --shard I/N")


def _every_shard_once(names: Sequence[str], shards: Sequence[Shard]) -> None:
    """Each shard 1..N given exactly once."""
    count = shards[0].count
    seen: dict[int, str] = {}
    for name, shard in zip(names, shards, strict=True):
        index = shard.index
        if index in seen:
            raise MergeError(f"shard {index}/{count} given twice: {seen[index]} and {name}")
        seen[index] = name
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise MergeError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing: merge the reports of "
                         f"all {count} shards (given: {', '.join(f'{i}/{count}' for i in sorted(seen))})")
