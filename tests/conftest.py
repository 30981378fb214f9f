"""Shared test helpers: paths of the bundled data, and the mutation table printed at the end of a run (rows come
from tests/harness/run/test_mutations.py through `record_property`, so they reach the controller under xdist)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# Examples a property test without its own count gets: 200 in the suite; `make check`, the inner loop, passes
# `--hypothesis-profile check` for 25 (`make test` runs the 200).
settings.register_profile("suite", max_examples=200)
settings.register_profile("check", max_examples=25)
settings.load_profile("suite")

_ROWS: list[dict[str, Any]] = []


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked `long` first (in their order), then the rest in theirs: xdist hands tests out in this order,
    so a minute-long test starts while the short ones fill the other workers instead of running alone at the end."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("long") is None)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for key, value in report.user_properties:
        if key == "callproof_mutation" and isinstance(value, str):
            _ROWS.append({**json.loads(value), "passed": report.passed})


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _ROWS:
        return
    terminalreporter.section("mutation table: each broken fake and the rules that caught it")
    terminalreporter.write_line(f"{'kind':<8} {'defect':<28} {'verdict':<8} {'caught by':<32} also failed")
    for row in sorted(_ROWS, key=lambda r: (r["kind"], r["defect"])):
        verdict = "caught" if row["passed"] else "MISSED"
        also = ", ".join(row["also"]) or "-"
        terminalreporter.write_line(
            f"{row['kind']:<8} {row['defect']:<28} {verdict:<8} {', '.join(row['caught']) or '-':<32} {also}")
