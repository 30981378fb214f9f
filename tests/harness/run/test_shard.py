"""Slicing a run into shards (harness/run/_shard.py): whole scenarios, the run-wide isolation case in exactly one
shard, every case in exactly one shard, balanced by recorded durations (else by case count), and the same slice in
every process whatever its hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import RunConfig, case_durations, selection_digest, shard_cases
from callproof.harness.run._plan import ISOLATION, plan_cases
from callproof.harness.run._shard import deal
from callproof.mock_server import bundled_scenarios
from tests.harness.report_model.test_shard import shard_report

ROOT = Path(__file__).resolve().parents[3]
SPECS = plan_cases(bundled_scenarios(), "gateway", "chat", front="responses", client_dialect="responses")


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_every_case_is_in_exactly_one_shard_and_every_scenario_whole(count: int) -> None:
    shards = [shard_cases(SPECS, i, count) for i in range(1, count + 1)]
    ids = [s.id for shard in shards for s in shard]
    assert sorted(ids) == sorted(s.id for s in SPECS)  # each once, none lost
    owners = {s.scenario: {i for i, shard in enumerate(shards) if s in shard} for s in SPECS}
    assert all(len(found) == 1 for found in owners.values())  # a scenario's cases never split
    assert sum(s.scenario == ISOLATION for shard in shards for s in shard) == 1  # concurrent::isolation once
    for shard in shards:  # each shard keeps the plan's order
        assert shard == [s for s in SPECS if s in shard]


def test_without_durations_the_shards_hold_about_as_many_cases() -> None:
    sizes = [len(shard_cases(SPECS, i, 3)) for i in (1, 2, 3)]
    biggest = max(sum(s.scenario == x for s in SPECS) for x in {s.scenario for s in SPECS})
    assert max(sizes) - min(sizes) <= biggest  # LPT: never off by more than one unit


def test_recorded_durations_balance_the_shards() -> None:
    specs = [CaseSpec(name, group) for name in ("a", "b", "c", "d") for group in ("expected", "ids")]
    by_count = deal(specs, 2)
    assert sorted(map(len, by_count)) == [2, 2]  # equal case counts
    slow = {"a::expected": 9000, "a::ids": 1000, "b::expected": 10, "c::expected": 10, "d::expected": 10}
    by_time = deal(specs, 2, slow)
    assert ["a"] in by_time  # the slow scenario alone; the other three share the second shard
    assert sorted(by_time, key=len)[1] == ["b", "c", "d"]


def test_a_case_without_a_recorded_duration_weighs_the_median() -> None:
    specs = [CaseSpec(name, "expected") for name in ("a", "b", "c", "new")]
    # `new` weighs the median of the others, 200 ms: a (300) and c (100) against b (200) and new (200)
    assert deal(specs, 2, {"a::expected": 300, "b::expected": 200, "c::expected": 100}) == [["a", "c"], ["b", "new"]]


def test_ties_go_by_scenario_id_and_the_lowest_shard() -> None:
    specs = [CaseSpec(name, "expected") for name in ("z", "y", "x", "w")]
    assert deal(specs, 2) == [["w", "y"], ["x", "z"]]
    assert deal(list(reversed(specs)), 2) == [["w", "y"], ["x", "z"]]  # the plan's order does not matter


def test_more_shards_than_scenarios_leaves_some_empty() -> None:
    specs = [CaseSpec("a", "expected"), CaseSpec("a", "ids")]
    assert [len(shard_cases(specs, i, 3)) for i in (1, 2, 3)] == [2, 0, 0]


_SLICE = """
import json, sys
from callproof.harness.run import shard_cases
from callproof.harness.run._plan import plan_cases
from callproof.mock_server import bundled_scenarios
specs = plan_cases(bundled_scenarios(), "gateway", "chat", front="responses", client_dialect="responses")
durations = {s.id: (len(s.id) * 37) % 500 + 1 for s in specs[::2]}
print(json.dumps([[s.id for s in shard_cases(specs, i, 4, durations)] for i in (1, 2, 3, 4)]))
"""


def test_the_same_slice_in_every_process_whatever_the_hash_seed() -> None:
    slices = []
    for seed in ("1", "2", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", _SLICE], capture_output=True, text=True, env=env, check=True,
                              timeout=120)
        slices.append(json.loads(done.stdout))
    assert slices[0] == slices[1] == slices[2]
    assert sorted(i for shard in slices[0] for i in shard) == sorted(s.id for s in SPECS)


def test_case_durations_are_whole_milliseconds_of_at_least_one() -> None:
    report = shard_report(1, 1, cases={"a::expected": 0.0, "b::expected": 1.2345})
    assert case_durations(report) == {"a::expected": 1, "b::expected": 1234}


def test_the_selection_digest_names_what_chose_the_slice() -> None:
    config = RunConfig(launch="gw --port {port}", scenario_paths=(Path("/one/s.json"),))
    moved = RunConfig(launch="gw --port {port}", scenario_paths=(Path("/elsewhere/s.json"),))
    digest = selection_digest(config, None, None)
    assert digest == selection_digest(moved, None, None)  # the checkout's path is not the run's choice
    assert len(digest) == 16
    assert digest != selection_digest(config, "one_call", None)
    assert digest != selection_digest(config, None, {"a::expected": 3})
    assert digest != selection_digest(RunConfig(launch="gw --port {port}", repeat=2), None, None)
