"""`callproof report` and `callproof diff` from the command line: every format from the JSON alone, the JSON
Lines report of a run cut off mid-way, the HTML matrix of several reports, exit codes and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from callproof.harness.cli import main

DATA = Path(__file__).resolve().parents[2] / "reports" / "data"
FAILING, PASSING, CUT = DATA / "failing.json", DATA / "passing.json", DATA / "incomplete.jsonl"


@pytest.mark.parametrize(("fmt", "start"), [
    ("md", "## "), ("junit", "<?xml"), ("html", "<!DOCTYPE html>"), ("badge", "<svg"), ("badge-json", "{"),
    ("json", "{"),
])
def test_every_format_from_a_json_report(fmt: str, start: str, tmp_path: Path) -> None:
    out = tmp_path / f"out.{fmt}"
    assert main(["report", str(FAILING), "--format", fmt, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").lstrip().startswith(start)


@pytest.mark.parametrize("fmt", ["md", "junit", "html", "badge", "badge-json", "json"])
def test_a_cut_jsonl_report_converts_and_says_incomplete(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(CUT), "--format", fmt]) == 0
    assert "incomplete" in capsys.readouterr().out.lower()


def test_html_compares_several_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(FAILING), str(PASSING), "--format", "html"]) == 0
    assert "matrix" in capsys.readouterr().out.lower()


def test_only_html_takes_several_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(FAILING), str(PASSING), "--format", "md"]) == 2
    assert "--format md takes one report; only html compares several" in capsys.readouterr().err


def test_a_broken_report_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1}), encoding="utf-8")
    assert main(["report", str(bad), "--format", "md"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("callproof report: ") and "bad.json" in err and "Traceback" not in err


def test_diff_of_a_broken_report_cites_a_command_an_installed_user_has(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"x": 1}), encoding="utf-8")
    assert main(["diff", str(bad), str(PASSING)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("callproof diff: ") and len(err.splitlines()) == 1
    assert "`callproof docs report-schema`" in err and "schemas/" not in err


def test_diff_exits_1_on_a_regression_and_0_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(PASSING), str(FAILING), "--format", "md"]) == 1
    assert "newly failing" in capsys.readouterr().out.lower()
    assert main(["diff", str(FAILING), str(FAILING)]) == 0
    assert main(["diff", str(FAILING), str(PASSING)]) == 0


def test_diff_of_runs_of_different_targets_warns_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    assert main(["diff", str(FAILING), str(PASSING)]) == 0  # the passthrough fake, then the reference gateway
    out, err = capsys.readouterr()
    warning = "the runs tested different targets (implementation: base '.venv/bin/python tests/fakes/passthrough"
    assert out.splitlines()[1].startswith(f"warning: {warning}")  # in the diff, and on stderr for a pipe's sake
    assert err.startswith(f"callproof diff: warning: {warning}") and err.count("\n") == 1
    assert main(["diff", str(FAILING), str(PASSING), "-o", str(tmp_path / "diff.txt")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("callproof diff: warning: the runs tested different targets (") and err.count("\n") == 1
    assert main(["diff", str(FAILING), str(FAILING), "-o", str(tmp_path / "same.txt")]) == 0
    assert capsys.readouterr().err == ""
