"""The merge of every shard's report into the one report of the whole run (`callproof report --merge`,
docs/ci.md#shards).

The merged report is the report an unsharded run of the same command would have written, apart from timings: the
same cases, the summary computed again from them, the shards' common target, profile and scenario set. Reports of
different runs, a shard given twice, shards that share a case or a missing shard are refused with one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._model import Report
from ._shard import MergeError, Shard, unsharded_command

__all__ = ["merge_reports"]


def merge_reports(named: Sequence[tuple[str, Report]]) -> Report:
    """The report of the whole run from the reports of its shards, each named (its file) for the messages.
    Raises `MergeError` naming the reports when they are not every shard of one run."""
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
