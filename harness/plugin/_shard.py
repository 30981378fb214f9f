"""`--callproof-shard I/N` in pytest (and `callproof run --shard I/N`): after `-k` has chosen the cases, shard I
keeps its slice of them (harness/run/_shard.py says how it is cut) and deselects the rest, in every process alike
(each pytest-xdist worker cuts the same slice); the report records the shard (`shard_record`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.report_model import Shard, read_report
from callproof.harness.run import RunConfig, case_durations, selection_digest, shard_cases

__all__ = ["select_shard", "shard_record"]


def _durations(config: pytest.Config) -> dict[str, int] | None:
    path = config.getoption("callproof_shard_durations", None)
    return None if not path else case_durations(read_report(Path(path)))  # checked when the option was parsed


def _shard(config: pytest.Config) -> tuple[int, int] | None:
    text = config.getoption("callproof_shard", None)
    if not text:
        return None
    index, _, count = str(text).partition("/")
    return int(index), int(count)


def shard_record(config: pytest.Config, run: RunConfig) -> Shard | None:
    """The shard this run judges, as its report records it; None without `--callproof-shard`."""
    chosen = _shard(config)
    if chosen is None:
        return None
    keyword = config.getoption("keyword", None) or None
    return Shard(*chosen, selection=selection_digest(run, keyword, _durations(config)))


def _spec(item: pytest.Item) -> CaseSpec | None:
    callspec = getattr(item, "callspec", None)
    spec = callspec.params.get("callproof_case") if callspec is not None else None
    return spec if isinstance(spec, CaseSpec) else None


def select_shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the cases of this shard among `items` (those `-k` left), deselect the other cases."""
    chosen = _shard(config)
    if chosen is None:
        return
    specs = [spec for spec in map(_spec, items) if spec is not None]
    mine = {spec.id for spec in shard_cases(specs, *chosen, durations=_durations(config))}
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        spec = _spec(item)
        (keep if spec is None or spec.id in mine else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
