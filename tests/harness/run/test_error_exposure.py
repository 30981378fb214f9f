"""GW-FAULT-006 on real gateways against the real mock (docs/spec/contracts.md §7.8.2, docs/spec/verdicts.md §9): an
upstream HTTP error answered with a Node stack trace (an Express-style `error.stack`) or a Python traceback as the
message fails GW-FAULT-006 and nothing else; the reference gateway's error answers pass it."""

from __future__ import annotations

import pytest

from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

CASES = ("fault_http_400", "fault_http_500", "fault_http_429")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(defect: str | None) -> list[CaseResult]:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect chat", upstream_dialect="chat",
                       case_timeout=15)
    with Harness(config) as harness:
        return [harness.judge(CaseSpec(case, "faults")) for case in CASES]


def _exposure(result: CaseResult) -> str:
    return next(r.outcome for r in result.results if r.rule.id == "GW-FAULT-006")


@pytest.mark.parametrize(("defect", "path", "first"), [
    ("node_stack_in_errors", "$.error.stack", "at Object.<anonymous> (/home/app/node_modules/"),
    ("python_traceback_in_errors", "$.error.message", "Traceback (most recent call last):"),
])
def test_a_stack_trace_in_an_error_fails_gw_fault_006_alone(defect: str, path: str, first: str) -> None:
    results = _judge(defect)
    assert [r.outcome for r in results] == ["failed"] * len(CASES), [r.message for r in results]
    assert [[rule.rule.id for rule in r.failed] for r in results] == [["GW-FAULT-006"]] * len(CASES)
    violations = [v for r in results for rule in r.failed for v in rule.violations]
    assert {v.evidence.path for v in violations} == {path}
    assert all(str(v.evidence.actual).startswith(first) for v in violations), violations
    assert all("a stack frame" in v.message and "an absolute file path" in v.message for v in violations)


def test_the_reference_gateways_error_answers_pass() -> None:
    results = _judge(None)
    assert [(r.outcome, _exposure(r)) for r in results] == [("passed", "passed")] * len(CASES), \
        [r.message for r in results]
