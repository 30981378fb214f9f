"""The equivalence snapshot's normalisation and comparison (tests/snapshot.py): what differs run to run is masked,
what users see is kept, and `compare` fails on any difference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.snapshot import RUNS, compare, normalise_report, normalise_summary, normalise_text


def test_normalise_text_masks_ports_paths_times_and_random_ids() -> None:
    text = ("front http://127.0.0.1:48993/v1/responses at /tmp/pytest-1/x.json on 2026-12-07T15:11:56+00:00, "
            "tag 3d9d135d274f432ba7756b60812f8a61, report /work/out/r.json, 12 passed in 28.48s")
    assert normalise_text(text, [("/work/out", "<out>")]) == (
        "front http://127.0.0.1:<port>/v1/responses at <tmp> on <time>, tag <hex>, report <out>/r.json, "
        "12 passed in <t>s")


def test_normalise_report_keeps_verdicts_and_masks_measurements() -> None:
    report = {
        "callproof_version": "0.1.0", "platform": {"python": "3.11"}, "started_at": "2026-12-07T15:11:56+00:00",
        "duration_s": 28.1,
        "cases": [
            {"id": "b::streaming", "outcome": "passed", "duration_s": 0.3,
             "details": {"calibration": {"p50_ms": 0.3}, "adapter_seconds": 0.2, "cancel": {"request": 9},
                         "overlapped": 3, "websocket_turns": [{"connection": 14, "turn": 0}]},
             "results": [{"rule": "GW-STREAM-001", "outcome": "passed"},
                         {"rule": "GW-STREAM-002", "outcome": "passed"}]},
            {"id": "a::expected", "outcome": "failed", "message": "at 127.0.0.1:5000",
             "results": [{"rule": "GW-STREAM-002", "outcome": "failed"}]},
        ],
    }
    out = normalise_report(report, ())
    assert out["callproof_version"] == "<version>" and out["duration_s"] == 0 and out["started_at"] == "<time>"
    cases = out["cases"]
    assert isinstance(cases, list)
    assert [c["id"] for c in cases] == ["a::expected", "b::streaming"]
    assert cases[0] == {"id": "a::expected", "outcome": "failed", "message": "at 127.0.0.1:<port>",
                        "results": [{"rule": "GW-STREAM-002", "outcome": "failed"}]}  # a failure stays
    assert cases[1]["details"] == {"calibration": "<measured>", "adapter_seconds": 0,
                                   "cancel": {"request": "<order>"}, "overlapped": "<measured>",
                                   "websocket_turns": [{"connection": "<order>", "turn": 0}]}
    assert cases[1]["results"] == [{"rule": "GW-STREAM-001", "outcome": "passed"}]
    assert normalise_report(json.loads(json.dumps(out)), ()) == out  # idempotent: compare renormalises


def test_normalise_summary_sorts_the_lines_in_worker_order_only() -> None:
    text = "== x ==\nFAILED t[b]\nFAILED t[a]\n2 failed in 3.2s (0:01:03)\n"
    assert normalise_summary(text) == "== x ==\nFAILED t[a]\nFAILED t[b]\n2 failed in <t>s\n"


def test_the_runs_cover_every_pair_both_fronts_transports_and_every_client() -> None:
    names = {run.name for run in RUNS}
    assert len(names) == len(RUNS) == 20
    assert {f"gateway-{f}-{u}" for f in ("responses", "chat", "anthropic")
            for u in ("responses", "chat", "anthropic")} <= names
    assert sum(name.endswith("-wsfront") for name in names) == 3
    assert sum(name.startswith("client-") for name in names) == 4


def _snapshot(root: Path, exit_code: str, report: dict[str, object]) -> Path:
    (root / "runs" / "one").mkdir(parents=True)
    (root / "runs" / "one" / "exit.txt").write_text(exit_code, encoding="utf-8")
    (root / "runs" / "one" / "report.json").write_text(json.dumps(report), encoding="utf-8")
    return root


def test_compare_passes_equal_snapshots_and_fails_on_a_difference(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    before = _snapshot(tmp_path / "before", "0\n", {"duration_s": 1.0, "cases": [{"id": "a", "outcome": "passed"}]})
    same = _snapshot(tmp_path / "same", "0\n", {"duration_s": 2.0, "cases": [{"id": "a", "outcome": "passed"}]})
    other = _snapshot(tmp_path / "other", "1\n", {"duration_s": 1.0, "cases": [{"id": "a", "outcome": "failed"}]})
    (other / "extra.txt").write_text("x", encoding="utf-8")
    assert compare(before, same) == 0
    assert compare(before, other) == 1
    shown = capsys.readouterr().out
    assert "only in after: extra.txt" in shown and '+   "outcome": "failed"' in shown and "-0" in shown
