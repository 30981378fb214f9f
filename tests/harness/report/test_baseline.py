"""Baseline files: parsing, coverage of failed rules, and errors that name the line and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness.report._baseline import BaselineError, format_baseline, load_baseline


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
