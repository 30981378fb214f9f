"""Report files (harness/report_model/_files.py): the JSON report, written atomically through a temporary file, gets
the mode every other report file gets (0666 less the umask; mkstemp's 0600 must not leak), and a report written over
an existing file keeps that file's mode."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from callproof.harness.report_model import Report, write_report

DATA = Path(__file__).resolve().parents[2] / "reports" / "data"


@pytest.fixture
def report() -> Report:
    return Report.from_json(json.loads((DATA / "passing.json").read_text(encoding="utf-8")))


@pytest.fixture(params=[0o022, 0o027, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_report_json_gets_the_mode_of_its_sibling_formats(tmp_path: Path, report: Report, umask: int) -> None:
    write_report(tmp_path / "report.json", report)
    (tmp_path / "report.md").write_text("# md\n", encoding="utf-8")  # how the other formats are written
    assert _mode(tmp_path / "report.json") == _mode(tmp_path / "report.md") == 0o666 & ~umask


def test_a_report_written_over_a_file_keeps_its_mode(tmp_path: Path, report: Report) -> None:
    path = tmp_path / "report.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o640)
    write_report(path, report)
    assert _mode(path) == 0o640 and json.loads(path.read_text(encoding="utf-8"))["summary"]
