"""The shard a report records (`shard`: optional, so older reports stay valid) and the merge of every shard's report
into the whole run's: the same cases, the summary computed again, and one line refusing reports of different runs,
a shard given twice, overlapping shards or missing ones."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import jsonschema
import pytest

from callproof.harness.report_model import (
    Case,
    MergeError,
    Platform,
    Report,
    Shard,
    Target,
    merge_reports,
    read_report,
    unsharded_command,
    write_report,
)

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
TARGET = Target("gateway", "launch", command="gw --port {port}", front="responses", upstream_dialect="chat")


def shard_report(index: int, count: int, *, cases: Mapping[str, float] | None = None, selection: str = "s" * 16,
                 target: Target = TARGET, outcome: str = "passed", started_at: str = "2026-01-01T00:00:00+00:00",
                 complete: bool = True) -> Report:
    """A report of shard `index` of `count` with these cases (id: seconds)."""
    made = [Case(id=i, scenario=i.partition("::")[0], group=i.partition("::")[2], outcome="passed" if
                 outcome == "passed" else "error", duration_s=seconds) for i, seconds in (cases or {}).items()]
    return Report.new(version="1.0", profile="openai", target=target,
                      command=["callproof", "run", "--shard", f"{index}/{count}", "--report", f"s{index}.json"],
                      scenario_set="0123456789abcdef", started_at=started_at, duration_s=float(index),
                      cases=made, complete=complete, platform=Platform("3.12", "Linux", "x86_64"),
                      shard=Shard(index, count, selection))


def three() -> list[tuple[str, Report]]:
    return [
        ("s1.json", shard_report(1, 3, cases={"a::expected": 1.0, "a::ids": 2.0}, started_at="2026-01-01T00:00:05Z")),
        ("s2.json", shard_report(2, 3, cases={"b::expected": 1.0}, started_at="2026-01-01T00:00:01Z")),
        ("s3.json", shard_report(3, 3, cases={"c::expected": 1.0, "concurrent::isolation": 3.0}, outcome="error")),
    ]


def test_a_shard_is_recorded_and_read_back(tmp_path: Path) -> None:
    report = shard_report(2, 3, cases={"a::expected": 1.0})
    data = report.to_json()
    assert data["shard"] == {"index": 2, "count": 3, "selection": "s" * 16}
    jsonschema.validate(data, SCHEMA)
    write_report(tmp_path / "r.json", report)
    assert read_report(tmp_path / "r.json") == report


def test_a_report_without_a_shard_stays_valid_and_reads_as_whole() -> None:
    data = dataclasses.replace(shard_report(1, 1), shard=None).to_json()
    assert "shard" not in data
    jsonschema.validate(data, SCHEMA)
    assert Report.from_json(data).shard is None


def test_the_merge_is_the_whole_run() -> None:
    merged = merge_reports(three())
    assert [c.id for c in merged.cases] == ["a::expected", "a::ids", "b::expected", "c::expected",
                                            "concurrent::isolation"]
    assert (merged.summary.cases, merged.summary.passed, merged.summary.error) == (5, 3, 2)
    assert merged.shard is None and merged.complete
    assert merged.command == ("callproof", "run", "--report", "s1.json")
    assert merged.started_at == "2026-01-01T00:00:00+00:00"  # the earliest shard's start
    assert merged.duration_s == 3.0  # the longest shard's
    assert merged.target == TARGET and merged.scenario_set == "0123456789abcdef"
    jsonschema.validate(merged.to_json(), SCHEMA)
    assert merge_reports(list(reversed(three()))).cases == merged.cases  # any order


def test_a_merge_with_a_cut_off_shard_is_incomplete() -> None:
    shards = three()
    shards[1] = ("s2.jsonl", shard_report(2, 3, cases={"b::expected": 1.0}, complete=False))
    assert not merge_reports(shards).complete
    assert merge_reports(shards).stopped is None


def test_a_shard_that_stopped_early_says_so_in_the_merge() -> None:
    shards = three()
    stopped = dataclasses.replace(shards[2][1], complete=False, stopped="5 scenarios in a row got no answer")
    shards[2] = (shards[2][0], stopped)
    merged = merge_reports(shards)
    assert not merged.complete and merged.stopped == "shard 3/3: 5 scenarios in a row got no answer"


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: dataclasses.replace(r, shard=None),
     "s2.json is not the report of a shard (a run without --shard I/N): there is nothing to merge it with"),
    (lambda r: dataclasses.replace(r, target=dataclasses.replace(TARGET, command="other --port {port}")),
     "s1.json and s2.json are reports of different runs: different targets (gw --port {port} and other --port "
     "{port}); merge the shards of one run"),
    (lambda r: dataclasses.replace(r, target=dataclasses.replace(TARGET, front="chat")),
     "s1.json and s2.json are reports of different runs: different targets (responses front, chat upstream and "
     "chat front, chat upstream, or their policies); merge the shards of one run"),
    (lambda r: dataclasses.replace(r, profile="lenient"),
     "s1.json and s2.json are reports of different runs: different profiles (openai and lenient); merge the "
     "shards of one run"),
    (lambda r: dataclasses.replace(r, scenario_set="f" * 16),
     "s1.json and s2.json are reports of different runs: different scenario sets (0123456789abcdef and "
     "ffffffffffffffff); merge the shards of one run"),
    (lambda r: dataclasses.replace(r, callproof_version="2.0"),
     "s1.json and s2.json are reports of different runs: different callproof versions (1.0 and 2.0); merge the "
     "shards of one run"),
    (lambda r: dataclasses.replace(r, shard=Shard(2, 4, "s" * 16)),
     "s1.json and s2.json are reports of different runs: different shard counts (3 and 4); merge the shards of one "
     "run"),
    (lambda r: dataclasses.replace(r, shard=Shard(2, 3, "t" * 16)),
     "s1.json and s2.json chose their cases differently (other options, -k or --shard-durations): run every shard "
     "with the same command but for --shard I/N"),
    (lambda r: dataclasses.replace(r, shard=Shard(1, 3, "s" * 16)), "shard 1/3 given twice: s1.json and s2.json"),
    (lambda r: dataclasses.replace(r, cases=(*r.cases, Case("a::ids", "a", "ids", "passed"))),
     "case a::ids is in both s1.json and s2.json: the shards overlap; merge the shards of one run"),
])
def test_reports_that_are_not_every_shard_of_one_run_are_refused(change: Callable[[Report], Report],
                                                                 message: str) -> None:
    shards = three()
    shards[1] = (shards[1][0], change(shards[1][1]))
    with pytest.raises(MergeError) as caught:
        merge_reports(shards)
    assert str(caught.value) == message


def test_missing_shards_are_named() -> None:
    with pytest.raises(MergeError) as caught:
        merge_reports([three()[1]])
    assert str(caught.value) == "shards 1/3, 3/3 missing: merge the reports of all 3 shards (given: 2/3)"
    with pytest.raises(MergeError) as caught:
        merge_reports(three()[:2])
    assert str(caught.value) == "shard 3/3 missing: merge the reports of all 3 shards (given: 1/3, 2/3)"
    with pytest.raises(MergeError, match=r"^no report to merge$"):
        merge_reports([])


@pytest.mark.parametrize(("command", "expected"), [
    (["callproof", "run", "--shard", "2/3", "-k", "x"], ("callproof", "run", "-k", "x")),
    (["callproof", "run", "--shard=2/3"], ("callproof", "run")),
    (["pytest", "--callproof-shard=2/3", "--callproof-shard-durations=r.json"],
     ("pytest", "--callproof-shard-durations=r.json")),
])
def test_the_merged_command_has_no_shard(command: list[str], expected: tuple[str, ...]) -> None:
    assert unsharded_command(command) == expected
