"""Same IUT, same verdict (issue #19): the reference gateway, launched as its own process and judged with -n 2 and
--repeat 3 on a busy machine, gets identical verdicts in every repeat (no case is flaky); a gateway that flushes only
every third event is caught in every repeat (failed, not flaky); a gateway that breaks every other answer is flaky,
never passed. Bounded: a subset of cases, three repeats, 300 s at most. The first two are `timing` tests: `make test`
runs them beside the rest of the suite (its CPU-bound workers), `make test-under-load` beside 2 CPU hogs
(tests/under_load.py), so the load is the machine's, not a burner of their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

CALLPROOF = Path(sys.executable).parent / "callproof"
#: The timing cases (the verdicts machine load can touch) and a few others, each judged three times.
SUBSET = "streaming or parallel_two_calls or fault_http_429 or interleaved_round_robin"


def _run(tmp_path: Path, launch: str, *args: str) -> tuple[int, dict[str, Any]]:
    env = fakes.run_env()
    done = subprocess.run([str(CALLPROOF), "run", "--launch", launch, "-n", "2", "--repeat", "3", *args],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300, check=False)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    return done.returncode, report


@pytest.mark.timing
def test_the_reference_gateway_gets_the_same_verdict_in_every_repeat_under_load(tmp_path: Path) -> None:
    code, report = _run(tmp_path, fakes.launch(), "-k", SUBSET)
    outcomes = {c["id"]: c["outcome"] for c in report["cases"]}
    assert len(outcomes) >= 10 and sum(1 for i in outcomes if i.endswith("::streaming")) >= 4
    assert {i: o for i, o in outcomes.items() if o not in ("passed", "skipped")} == {}
    assert code == 0 and report["summary"].get("flaky", 0) == 0
    assert all(len(c["details"]["repeats"]) == 3 for c in report["cases"] if c["outcome"] == "passed")


@pytest.mark.timing
def test_a_gateway_that_flushes_every_third_event_is_caught_in_every_repeat(tmp_path: Path) -> None:
    cases = "timing_explicit_delays::streaming or timing_tokens_per_second::streaming"
    code, report = _run(tmp_path, fakes.launch("gateways", "flush_every_3"), "-k", cases)
    assert code == 0  # GW-STREAM-002 is a SHOULD: reported in every repeat, it does not fail the run
    assert len(report["cases"]) == 2
    for case in report["cases"]:
        assert case["outcome"] == "failed", case["message"]
        assert [r["failed"] for r in case["details"]["repeats"]] == [["GW-STREAM-002"]] * 3


def test_a_gateway_that_breaks_every_other_answer_is_flaky_never_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])
    config = RunConfig(launch=f"{fakes.launch('passthrough')} --cut-every 2", upstream_dialect="responses",
                       repeat=2, case_timeout=15)
    with Harness(config) as harness:
        result = harness.judge(CaseSpec("timing_explicit_delays", "lifecycle"))
    assert result.outcome == "flaky"
    assert "RSP-LIFE-002" in result.flaky
    assert [r["outcome"] for r in result.details["repeats"]] == ["passed", "failed"]
