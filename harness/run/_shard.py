"""Shards of a run (`--shard I/N`, docs/ci.md#shards): which of the selected cases shard I of N runs.

The unit is a whole scenario (every case of a scenario in one shard: the scenario is played once per process and
its cases share that play); the run-wide case `concurrent::isolation` is a unit of its own, placed like a scenario.
The units are dealt by longest processing time first: heaviest unit first (ties by scenario id), each to the
shard with the least weight so far (ties to the lowest index). A unit weighs its cases' durations in whole
milliseconds as a previous report recorded them (`--shard-durations REPORT.json`; a case it lacks weighs the median
of those it has), else one per case. Only integer weights and sorted ids decide, never the plan's order or a hash:
the same inputs give the same slice on every machine and in every process, so the shards of one run together hold
every selected case exactly once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from callproof.harness.judge import CaseSpec
from callproof.harness.report_model import Report

from ._config import RunConfig

__all__ = ["case_durations", "deal", "selection_digest", "shard_cases"]


def case_durations(report: Report) -> dict[str, int]:
    """Each case's duration in a previous report, in whole milliseconds (at least 1)."""
    return {case.id: max(1, round(case.duration_s * 1000)) for case in report.cases}


def _weights(specs: Sequence[CaseSpec], durations: Mapping[str, int] | None) -> dict[str, int]:
    """Each unit's (scenario's) weight: its cases' recorded milliseconds, else one per case."""
    known = sorted(durations[s.id] for s in specs if durations and s.id in durations)
    fallback = known[len(known) // 2] if known else 1
    weights: dict[str, int] = {}
    for spec in specs:
        weight = durations.get(spec.id, fallback) if durations and known else 1
        weights[spec.scenario] = weights.get(spec.scenario, 0) + weight
    return weights


def deal(specs: Sequence[CaseSpec], count: int, durations: Mapping[str, int] | None = None) -> list[list[str]]:
    """The scenarios (units) of each of `count` shards, each shard's in the order they were dealt."""
    weights = _weights(specs, durations)
    loads = [0] * count
    shards: list[list[str]] = [[] for _ in range(count)]
    for scenario in sorted(weights, key=lambda s: (-weights[s], s)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += weights[scenario]
        shards[lightest].append(scenario)
    return shards


def shard_cases(specs: Sequence[CaseSpec], index: int, count: int,
                durations: Mapping[str, int] | None = None) -> list[CaseSpec]:
    """The cases of shard `index` (1-based) of `count`, in the given order."""
    mine = set(deal(specs, count, durations)[index - 1])
    return [spec for spec in specs if spec.scenario in mine]


def selection_digest(config: RunConfig, keyword: str | None, durations: Mapping[str, int] | None) -> str:
    """A digest of what chooses a shard's cases besides its index: the run's options (as a repro command gives
    them, without the scenario files' paths: the report's scenario set stands for them), `-k` and the durations.
    Equal in every shard of one run, whatever machine ran it."""
    args = config.run_args()
    options: list[str] = []
    skip = False
    for arg in args:
        if skip and not arg.startswith("--"):
            continue
        skip = arg == "--scenarios"
        if not skip:
            options.append(arg)
    text = json.dumps([options, keyword or "", sorted((durations or {}).items())], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
