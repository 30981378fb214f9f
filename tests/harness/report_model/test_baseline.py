"""Baseline files: parsing, coverage of failed rules, and errors that name the line and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness.report_model import Case, RuleOutcome
from callproof.harness.report_model._baseline import BaselineError, format_baseline, load_baseline, stale_entries


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "baseline.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_entries_with_and_without_rules(tmp_path: Path) -> None:
    baseline = load_baseline(_write(tmp_path, "# known\nfault_http_429::faults GW-FAULT-002  # PR 12\n"
                                              "\ntiming_explicit_delays::streaming\n"))
    assert baseline.covers("fault_http_429::faults", ["GW-FAULT-002"])
    assert not baseline.covers("fault_http_429::faults", ["GW-FAULT-002", "GW-FAULT-001"])
    assert baseline.covers("timing_explicit_delays::streaming", ["GW-STREAM-001", "GW-STREAM-002"])
    assert not baseline.covers("one_call::expected", ["EXP-001"])
    assert baseline.listed("timing_explicit_delays::streaming") and not baseline.listed("one_call::expected")


def test_repeated_lines_merge(tmp_path: Path) -> None:
    baseline = load_baseline(_write(tmp_path, "a::faults GW-FAULT-001\na::faults GW-FAULT-002\n"))
    assert baseline.covers("a::faults", ["GW-FAULT-001", "GW-FAULT-002"])


@pytest.mark.parametrize(("text", "match"), [
    ("one_call expected\n", r"baseline\.txt:1: 'one_call' is not a case id; write <scenario>::<group>"),
    ("x::faults\none_call::expected NOPE-001\n", r"baseline\.txt:2: unknown rule ids \['NOPE-001'\]"),
])
def test_malformed_lines_name_the_line_and_the_fix(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(BaselineError, match=match):
        load_baseline(_write(tmp_path, text))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="cannot read it"):
        load_baseline(tmp_path / "nope.txt")


def test_format_round_trips(tmp_path: Path) -> None:
    text = format_baseline([("b::faults", ["GW-FAULT-002", "GW-FAULT-001"]), ("a::expected", [])])
    assert text.splitlines()[1:] == ["a::expected", "b::faults GW-FAULT-001 GW-FAULT-002"]
    baseline = load_baseline(_write(tmp_path, text))
    assert baseline.entries == {"a::expected": frozenset(), "b::faults": frozenset({"GW-FAULT-001", "GW-FAULT-002"})}


def _case(case_id: str, outcome: str, rules: dict[str, str] | None = None) -> Case:
    scenario, _, group = case_id.partition("::")
    results = tuple(RuleOutcome(rule, "MUST", "gateway", verdict)  # type: ignore[arg-type]
                    for rule, verdict in (rules or {}).items())
    return Case(case_id, scenario, group, outcome, results=results)  # type: ignore[arg-type]


def test_stale_entries_name_the_file_and_line_of_each(tmp_path: Path) -> None:
    path = _write(tmp_path, "# known failures\nfault_http_429::faults GW-FAULT-002 GW-FAULT-001\n\n"
                            "one_call::expected  # fixed long ago\ntext_only::expected\nnot_run::expected\n"
                            "flaky_one::faults GW-FAULT-003\n")
    baseline = load_baseline(path)
    cases = [
        _case("one_call::expected", "passed", {"EXP-001": "passed"}),
        _case("fault_http_429::faults", "xfailed", {"GW-FAULT-001": "passed", "GW-FAULT-002": "failed"}),
        _case("text_only::expected", "xfailed", {"EXP-003": "failed"}),
        _case("flaky_one::faults", "flaky", {"GW-FAULT-003": "flaky"}),
        _case("unlisted::expected", "passed"),
    ]
    assert stale_entries(baseline, cases) == [
        f"{path}:2: stale baseline entry: fault_http_429::faults passes GW-FAULT-001 now; delete it from the line",
        f"{path}:4: stale baseline entry: one_call::expected passes now; delete the line",
    ]
    assert stale_entries(baseline, cases[2:]) == []
