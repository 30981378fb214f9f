"""The typed report model: JSON in and out unchanged (the fixtures of tests/reports/data), one schema check at the
edge naming the JSON path, the summary computed from the cases, and the files (JSON written atomically, JSON Lines
written by the model and read back)."""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from callproof.harness.catalogue import RULES, Evidence, RuleResult, Violation
from callproof.harness.report_model import (
    ABSENT,
    Case,
    Report,
    ReportError,
    ReportEvidence,
    RuleOutcome,
    Summary,
    Target,
    read_report,
    write_jsonl_case,
    write_jsonl_footer,
    write_jsonl_header,
    write_report,
)

DATA = Path(__file__).resolve().parents[2] / "reports" / "data"


def _json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", ["failing.json", "passing.json"])
def test_from_json_to_json_gives_back_the_fixture(name: str) -> None:
    original = _json(name)
    report = Report.from_json(copy.deepcopy(original))
    assert report.to_json() == original
    text = (DATA / name).read_text(encoding="utf-8")
    assert json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n" == text  # key order too


def test_the_jsonl_fixture_round_trips_through_its_json() -> None:
    report = read_report(DATA / "incomplete.jsonl")
    assert not report.complete
    assert Report.from_json(report.to_json()) == report


def test_the_model_reads_the_fixture_as_typed_values() -> None:
    report = Report.from_json(_json("failing.json"))
    case = next(c for c in report.cases if c.id == "fault_malformed::framing")
    failed = case.failed[0]
    assert isinstance(failed, RuleOutcome) and failed.failed and failed.excerpt
    assert case.outcome == "failed" and case.failed_level("MUST")
    assert report.target.named == report.target.command
    assert Summary.of(report.cases) == report.summary


@pytest.mark.parametrize(("edit", "where"), [
    (lambda r: r["cases"][2].update(outcome="exploded"), r"\$\.cases\[2\]\.outcome"),
    (lambda r: r["cases"][0]["results"][1].pop("level"), r"\$\.cases\[0\]\.results\[1\]"),
    (lambda r: r["summary"].update(cases=-1), r"\$\.summary\.cases"),
    (lambda r: r["target"].update(kind="robot"), r"\$\.target\.kind"),
    (lambda r: r.pop("platform"), r"\$: 'platform' is a required property"),
])
def test_a_malformed_report_is_rejected_naming_the_json_path(edit: Any, where: str) -> None:
    data = _json("failing.json")
    edit(data)
    with pytest.raises(ReportError, match=rf"report: not a valid callproof report at {where}") as caught:
        Report.from_json(data)
    assert "schemas/report.schema.json" in str(caught.value)


def test_a_malformed_file_names_the_file_and_the_path(tmp_path: Path) -> None:
    data = _json("passing.json")
    data["cases"][0]["results"][0]["evidence"]["offset"] = -1
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ReportError, match=rf"{path}: .* at \$\.cases\[0\]\.results\[0\]\.evidence\.offset"):
        read_report(path)


def test_not_an_object_and_another_format_are_rejected() -> None:
    with pytest.raises(ReportError, match="the JSON is a list, not an object"):
        Report.from_json([])
    with pytest.raises(ReportError, match="report format 2"):
        Report.from_json({**_json("passing.json"), "format": 2})


def test_open_objects_keep_their_extra_keys_and_a_null_value() -> None:
    data = _json("passing.json")
    data["target"]["note"] = "from CI"
    data["platform"]["ci"] = True
    first = data["cases"][0]
    first["details"] = {"nested": {"a": [1, None]}}
    first["results"][0]["evidence"] = {"path": "$.x", "expected": None}
    assert Report.from_json(data).to_json() == data
    evidence = Report.from_json(data).cases[0].results[0].evidence
    assert evidence.expected is None and evidence.actual is ABSENT


def test_evidence_absent_and_empty() -> None:
    assert ReportEvidence().empty and ReportEvidence.from_json({}).to_json() == {}
    assert not ReportEvidence(offset=0).empty
    assert ReportEvidence.from_json({"event_index": 0, "turn": 2}).turn == 2  # another turn of a WebSocket socket
    assert ReportEvidence.from_json({"turn": 2}).to_json() == {"turn": 2}
    assert ReportEvidence.from_json({"actual": ""}).to_json() == {"actual": ""}


def test_the_summary_is_computed_from_the_cases() -> None:
    must = RuleOutcome("RSP-SEQ-001", "MUST", "sequence", "failed", "boom")
    should = RuleOutcome("GW-REQ-004", "SHOULD", "gateway", "failed", "meh")
    cases = [
        Case("a::sequence", "a", "sequence", "failed", results=(must, should)),
        Case("b::gateway", "b", "gateway", "failed", results=(should,)),
        Case("c::sequence", "c", "sequence", "xfailed", results=(must,), baseline="covered"),
        Case("d::identity", "d", "identity", "passed", baseline="stale"),
        Case("e::identity", "e", "identity", "error"),
        Case("f::identity", "f", "identity", "skipped"),
    ]
    assert Summary.of(cases) == Summary(cases=6, passed=1, failed=2, skipped=1, xfailed=1, error=1, must_failed=2,
                                        should_failed=2, stale_baseline=1)


def test_new_sorts_the_cases_and_computes_the_summary() -> None:
    cases = [Case("z::identity", "z", "identity", "passed"), Case("a::identity", "a", "identity", "error")]
    report = Report.new(version="1", profile="openai", target=Target("gateway", "target", url="http://x"),
                        command=["callproof"], scenario_set="0" * 16, started_at="2025-01-01T00:00:00+00:00",
                        duration_s=1.23456, cases=cases)
    assert [c.id for c in report.cases] == ["a::identity", "z::identity"]
    assert report.summary == Summary(cases=2, passed=1, error=1) and report.duration_s == 1.235
    assert Report.from_json(report.to_json()) == report  # what the run writes is a valid report


def test_rule_outcome_of_a_rule_result() -> None:
    rule = RULES["RSP-SEQ-001"]
    violations = (Violation(rule.id, "first", Evidence(event_index=3, expected="a", actual="b")),
                  Violation(rule.id, "second", Evidence(offset=12)))
    outcome = RuleOutcome.of(RuleResult(rule, "failed", violations, count=5), excerpt="data: x")
    assert outcome.to_json() == {
        "rule": rule.id, "level": rule.level, "family": rule.family, "outcome": "failed", "message": "first",
        "evidence": {"event_index": 3, "expected": "a", "actual": "b"}, "count": 5,
        "violations": [{"rule": rule.id, "message": "second", "evidence": {"offset": 12}}],
        "statement": rule.statement, "spec": rule.spec, "fix": rule.fix, "excerpt": "data: x",
    }
    assert RuleOutcome.of(RuleResult(rule, "passed")).to_json()["evidence"] == {}


def test_jsonl_written_from_the_model_reads_back(tmp_path: Path) -> None:
    report = Report.from_json(_json("failing.json"))
    path = tmp_path / "report.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_jsonl_header(out, report)
        for case in reversed(report.cases):
            write_jsonl_case(out, case)
        write_jsonl_footer(out, report.duration_s)
    assert read_report(path) == report
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["kind"] == "header" and not {"summary", "cases", "duration_s", "complete"} & set(header)


def test_write_report_is_atomic(tmp_path: Path) -> None:
    report = Report.from_json(_json("passing.json"))
    path = tmp_path / "out" / "report.json"
    write_report(path, report)
    assert read_report(path) == report
    before = path.read_bytes()
    broken = {**report.to_json(), "cases": [object()]}
    with pytest.raises(TypeError):
        write_report(path, broken)
    assert path.read_bytes() == before  # the reader still sees the whole old report
    assert os.listdir(path.parent) == ["report.json"]  # no temporary file left behind


def test_write_jsonl_accepts_json_too() -> None:
    data = _json("passing.json")
    out = io.StringIO()
    write_jsonl_header(out, data)
    write_jsonl_case(out, data["cases"][0])
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["profile"] == data["profile"] and "cases" not in lines[0]
    assert lines[1] == {"kind": "case", **data["cases"][0]}


def test_the_target_keeps_its_transports_and_an_older_report_reads_as_http() -> None:
    data = {"kind": "gateway", "how": "launch", "command": "gw", "front": "responses", "upstream_dialect": "responses",
            "front_transport": "websocket", "upstream_transport": "http"}
    target = Target.from_json(data)
    assert target.to_json() == data and target.transports == {"front_transport": "websocket",
                                                                "upstream_transport": "http"}
    assert target.dialects == "responses front over WebSocket, responses upstream"
    older = Target.from_json({"kind": "client", "how": "client", "client": "m:f", "client_dialect": "chat"})
    assert older.transports == {"client_transport": "http"} and older.dialects == "chat client"
    assert "client_transport" not in older.to_json()  # what the report held, given back as it was
    assert Target.from_json({"kind": "capture", "how": "target"}).transports == {}
