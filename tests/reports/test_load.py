"""Reading reports (JSON and JSON Lines, also cut off mid-run) and writing the JSON Lines report; the fixtures."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema

from callproof.harness import CallproofError
from callproof.harness.report_model import Case, Summary
from callproof.reports import (
    ReportError,
    badge_json,
    badge_svg,
    load_report,
    render_html,
    render_junit,
    render_markdown,
    write_jsonl_case,
    write_jsonl_footer,
    write_jsonl_header,
)


def _summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    return Summary.of(Case.from_json(c) for c in cases).to_json()


FAMILIES = {"framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected", "gateway", "client"}
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "report.schema.json").read_text("utf-8"))


class _Sink(io.StringIO):
    """Records what was written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[str] = []

    def flush(self) -> None:
        super().flush()
        self.flushed.append(self.getvalue())


def _write_jsonl(report: Mapping[str, Any], *, footer: bool = True) -> str:
    out = io.StringIO()
    write_jsonl_header(out, report)
    for case in report["cases"]:
        write_jsonl_case(out, case)
    if footer:
        write_jsonl_footer(out, report["duration_s"])
    return out.getvalue()


def _save(tmp_path: Path, text: str | bytes, name: str = "report.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


# -- the fixtures ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["failing.json", "passing.json"])
def test_fixture_files_validate_against_the_report_schema(data_dir: Path, name: str) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads((data_dir / name).read_text(encoding="utf-8")))


def test_failing_fixture_covers_every_family_and_outcome(failing: dict[str, Any]) -> None:
    families = {r["family"] for c in failing["cases"] for r in c["results"] if r["outcome"] == "failed"}
    assert families == FAMILIES
    assert {c["outcome"] for c in failing["cases"]} == {"passed", "failed", "error", "skipped", "xfailed"}
    levels = {r["level"] for c in failing["cases"] if c["outcome"] == "failed" for r in c["results"]
              if r["outcome"] == "failed"}
    assert levels == {"MUST", "SHOULD"}
    assert failing["summary"]["stale_baseline"] == 1
    assert any("excerpt" in r for c in failing["cases"] for r in c["results"])
    assert failing["summary"] == _summary(failing["cases"])


def test_passing_fixture_passes(passing: dict[str, Any]) -> None:
    assert passing["cases"] and {c["outcome"] for c in passing["cases"]} == {"passed"}
    assert passing["complete"]


# -- JSON -----------------------------------------------------------------------------------------------------


def test_json_report_loads_unchanged(data_dir: Path) -> None:
    raw = json.loads((data_dir / "failing.json").read_text(encoding="utf-8"))
    assert load_report(data_dir / "failing.json") == raw


@pytest.mark.parametrize(("content", "expected"), [
    ("", "the file is empty"),
    ('{"format": 1,\n "cases": [', "report.json:2:"),
    ("[1, 2]", "the JSON is a list, not an object"),
    ('{"duration_s": NaN}', "NaN is not valid JSON"),
    ("\udcff", "not UTF-8"),
])
def test_bad_json_is_a_report_error(tmp_path: Path, content: str, expected: str) -> None:
    path = _save(tmp_path, content.encode("utf-8", "surrogateescape"), "report.json")
    with pytest.raises(ReportError, match=r"report\.json") as caught:
        load_report(path)
    assert expected in str(caught.value)


def test_schema_errors_name_the_json_path(tmp_path: Path, failing: dict[str, Any]) -> None:
    failing["cases"][3]["results"][0]["level"] = "MAY"
    path = _save(tmp_path, json.dumps(failing), "report.json")
    with pytest.raises(ReportError, match=r"\$\.cases\[3\]\.results\[0\]\.level") as caught:
        load_report(path)
    assert "'MAY' is not one of" in str(caught.value)
    assert "schemas/report.schema.json" in str(caught.value)


def test_another_report_format_is_named(tmp_path: Path, failing: dict[str, Any]) -> None:
    path = _save(tmp_path, json.dumps({**failing, "format": 2}), "report.json")
    with pytest.raises(ReportError, match="report format 2, but this callproof reads format 1"):
        load_report(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such file"):
        load_report(tmp_path / "nope.json")
    with pytest.raises(ReportError, match="a directory"):
        load_report(tmp_path)


def test_report_error_is_a_callproof_error() -> None:
    assert issubclass(ReportError, CallproofError)


# -- JSON Lines: writing --------------------------------------------------------------------------------------


def test_each_writer_writes_one_line_and_flushes(failing: dict[str, Any]) -> None:
    sink = _Sink()
    case = {**failing["cases"][0], "message": "two\nlines"}
    write_jsonl_header(sink, failing)
    write_jsonl_case(sink, case)
    write_jsonl_footer(sink, 1.23456)
    lines = sink.getvalue().splitlines()
    assert len(lines) == 3 and all(flushed.endswith("\n") for flushed in sink.flushed)
    assert [len(flushed.splitlines()) for flushed in sink.flushed] == [1, 2, 3]  # a flush after every line
    header, written, footer = (json.loads(line) for line in lines)
    assert header["kind"] == "header" and not {"summary", "cases", "duration_s", "complete"} & header.keys()
    assert written == {"kind": "case", **case}
    assert footer == {"kind": "footer", "duration_s": 1.235}


# -- JSON Lines: reading --------------------------------------------------------------------------------------


def test_jsonl_round_trip_rebuilds_the_report(tmp_path: Path, failing: dict[str, Any]) -> None:
    shuffled = {**failing, "cases": list(reversed(failing["cases"]))}
    loaded = load_report(_save(tmp_path, _write_jsonl(shuffled)))
    assert loaded == failing
    assert list(loaded) == list(failing)  # the same key order as a JSON report


def test_jsonl_without_footer_is_incomplete(tmp_path: Path, passing: dict[str, Any]) -> None:
    loaded = load_report(_save(tmp_path, _write_jsonl(passing, footer=False)))
    assert loaded["complete"] is False and loaded["duration_s"] == 0
    assert loaded["cases"] == passing["cases"] and loaded["summary"] == passing["summary"]


def test_cut_fixture_drops_the_cut_line(data_dir: Path, incomplete: dict[str, Any]) -> None:
    lines = (data_dir / "incomplete.jsonl").read_bytes().splitlines()
    assert incomplete["complete"] is False and incomplete["duration_s"] == 0
    assert len(incomplete["cases"]) == len(lines) - 2  # the header and the cut line
    assert incomplete["summary"] == _summary(incomplete["cases"])
    assert [c["id"] for c in incomplete["cases"]] == sorted(c["id"] for c in incomplete["cases"])


def test_a_line_cut_inside_a_utf8_character_is_dropped(tmp_path: Path, passing: dict[str, Any]) -> None:
    passing["cases"][-1]["message"] = "ünïcödé " * 50
    data = _write_jsonl(passing, footer=False).encode("utf-8")
    cut = data.rindex("ü".encode()) + 1  # inside the two bytes of the last ü
    loaded = load_report(_save(tmp_path, data[:cut]))
    assert loaded["complete"] is False
    assert [c["id"] for c in loaded["cases"]] == sorted(c["id"] for c in passing["cases"][:-1])


def test_a_cut_line_after_the_footer_still_marks_the_run_incomplete(tmp_path: Path, passing: dict[str, Any]) -> None:
    loaded = load_report(_save(tmp_path, _write_jsonl(passing) + '{"kind": "ca'))
    assert loaded["complete"] is False


def test_garbage_before_the_last_line_names_file_and_line(tmp_path: Path, passing: dict[str, Any]) -> None:
    lines = _write_jsonl(passing).splitlines()
    lines[2] = lines[2][:40]
    path = _save(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ReportError, match=rf"{path}:3: not JSON .*only the last line"):
        load_report(path)


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda lines: lines[1:], ':1: the first line is a "case" record, not the header'),
    (lambda lines: [*lines, lines[0]], "a line after the footer"),
    (lambda lines: [lines[0], lines[0], *lines[1:]], ":2: a second header line"),
    (lambda lines: [lines[0], '{"kind": "case", "id": 7}', *lines[1:]], ':2: a case record without a string "id"'),
    (lambda lines: [lines[0], "[1]", *lines[1:]], ':2: not a record with "kind"'),
    (lambda lines: [lines[0][:30]], "an empty JSON Lines report"),
])
def test_malformed_jsonl_is_a_report_error(tmp_path: Path, passing: dict[str, Any], edit: Any, expected: str) -> None:
    path = _save(tmp_path, "\n".join(edit(_write_jsonl(passing).splitlines())) + "\n")
    with pytest.raises(ReportError, match=r"report\.jsonl") as caught:
        load_report(path)
    assert expected in str(caught.value)


def test_rebuilt_report_is_validated(tmp_path: Path, passing: dict[str, Any]) -> None:
    passing["cases"][1]["outcome"] = "exploded"
    with pytest.raises(ReportError, match=r"at \$\.cases\[1\]\.outcome: 'exploded' is not one of"):
        load_report(_save(tmp_path, _write_jsonl(passing)))
    passing["cases"][1]["outcome"] = "passed"
    del passing["platform"]
    with pytest.raises(ReportError, match=r"at \$: 'platform' is a required property"):
        load_report(_save(tmp_path, _write_jsonl(passing)))


def test_jsonl_is_recognised_by_content_whatever_the_suffix(tmp_path: Path, passing: dict[str, Any]) -> None:
    assert load_report(_save(tmp_path, _write_jsonl(passing), "report.txt")) == passing


# -- acceptance: a cut run converts to every format, marked incomplete ----------------------------------------


def test_cut_jsonl_converts_to_every_format_marked_incomplete(
    incomplete: dict[str, Any], junit_schema: xmlschema.XMLSchema,
) -> None:
    assert "Incomplete run" in render_markdown(incomplete)
    junit = render_junit(incomplete)
    junit_schema.validate(junit)
    assert 'message="incomplete run' in junit
    assert "incomplete" in render_html([incomplete]).lower()
    assert badge_json(incomplete)["message"] == "incomplete" and ">incomplete<" in badge_svg(incomplete)
