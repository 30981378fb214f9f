"""Shared test helpers: paths of the bundled data, and the mutation table printed at the end of a run (rows come
from tests/harness/run/test_mutations.py through `record_property`, so they reach the controller under xdist)."""

from __future__ import annotations

import json
import os
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


@pytest.hookimpl(trylast=True)  # after `-m` and `-k` deselected theirs: the order is of the tests that run
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `--dist worksteal` (make test), xdist hands worker k the k-th of as many equal runs of this list as there
    are workers, and a worker out of tests takes the second half of the longest queue left. The modules marked `long`
    (a minute or more each) are dealt to the heads of those runs, so that each starts at once, on a worker of its
    own when there are enough, instead of one worker running them all in a row or one starting last; the rest keep
    their order (a module's tests together, as test_mutations.py's shared harnesses need)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    long: dict[str, list[pytest.Item]] = {}  # by module: its tests share a module fixture (a venv, an install)
    for item in items:
        if item.get_closest_marker("long") is not None:
            long.setdefault(item.nodeid.split("::")[0], []).append(item)
    rest = [item for item in items if item.get_closest_marker("long") is None]
    runs: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for k, module in enumerate(long.values()):
        runs[k % workers] += module
    left = len(items)
    for k, run in enumerate(runs):  # the sizes xdist's worksteal gives: len(pending) // workers still to serve
        size = left // (workers - k)
        left -= size
        take = max(0, size - len(run))
        run += rest[:take]
        del rest[:take]
    items[:] = [item for run in runs for item in run] + rest


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
