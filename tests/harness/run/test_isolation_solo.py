"""The isolation case judges each concurrent answer against the same IUT's answer to the scenario alone, played
first (each scenario's own run): a bug the IUT has alone is its scenario's rule's, never an isolation bug; the
gateway's ids are judged unique across all those answers (GW-ID-002); no answer alone, no verdict."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult, CaseSpec, read_answer
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._overlap import Answered, isolation_verdict
from callproof.harness.run._plan import ISOLATION_SCENARIOS
from callproof.mock_server import bundled_scenarios
from tests import fakes
from tests.fakes import clients

ISOLATION = CaseSpec("concurrent", "isolation")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _rules(result: CaseResult) -> dict[str, str]:
    return {r.rule.id: r.outcome for r in result.results}


def _gateway(defect: str | None, *cases: CaseSpec, front: Dialect = "responses",
             upstream: Dialect = "chat") -> list[CaseResult]:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect {upstream}", front=front,
                       upstream_dialect=upstream, case_timeout=10)
    with Harness(config) as harness:
        return [harness.judge(spec) for spec in cases]


def test_a_gateway_wrong_alone_the_same_way_concurrently_passes_isolation() -> None:
    """drops_second_call answers parallel_two_calls with one call, alone and concurrently: EXP-001 fails in the
    scenario's own case, and the isolation case, which plays each scenario alone first, blames nothing."""
    isolation, expected = _gateway("drops_second_call", ISOLATION, CaseSpec("parallel_two_calls", "expected"))
    assert (isolation.outcome, isolation.message) == ("passed", ""), isolation.message
    assert _rules(isolation) == {"GW-ISO-001": "passed", "GW-ID-002": "passed"}
    assert isolation.details["overlapped"] >= 2
    assert sorted(isolation.details["solo"]) == sorted(ISOLATION_SCENARIOS)  # each scenario's own case tag
    assert expected.outcome == "failed" and {r.rule.id for r in expected.failed} == {"EXP-001"}


def test_ids_from_the_clock_fail_gw_id_002_alone() -> None:
    (result,) = _gateway("clock_ids", ISOLATION)
    assert result.outcome == "failed", result.message
    assert _rules(result) == {"GW-ISO-001": "passed", "GW-ID-002": "failed"}
    assert result.message.startswith("GW-ID-002 MUST: the id ") and " responses of this run: " in result.message
    (rule,) = [r for r in result.results if r.outcome == "failed"]
    assert any(v.evidence.path == "$.response.id" and " concurrent (event #0 'response.created'" in v.message
               for v in rule.violations), [v.message for v in rule.violations]


@pytest.mark.parametrize(("front", "upstream"), [("responses", "responses"), ("chat", "chat"),
                                                 ("anthropic", "anthropic")])
def test_the_reference_gateway_issues_ids_unique_across_the_run_at_every_front(front: Dialect,
                                                                               upstream: Dialect) -> None:
    """The mock scripts the same call ids in many scenarios and answers a scenario with the same ids every time:
    passed through, they fail nothing."""
    (result,) = _gateway(None, ISOLATION, front=front, upstream=upstream)
    assert (result.outcome, result.message) == ("passed", "")
    assert _rules(result) == {"GW-ISO-001": "passed", "GW-ID-002": "passed"}


def test_item_ids_derived_from_the_upstream_call_ids_pass_gw_id_002() -> None:
    """`fc_<call_id>`, as LiteLLM makes them: the mock replays a scenario's call ids in its solo and concurrent plays,
    so those item ids repeat, and the repeat is the script's."""
    launch = f"{sys.executable} -m tests.fakes.isolation_gateways --upstream {{upstream}} --port {{port}}"
    with Harness(RunConfig(launch=launch, case_timeout=10)) as harness:
        result = harness.judge(ISOLATION)
    assert (result.outcome, result.message) == ("passed", "")
    assert _rules(result) == {"GW-ISO-001": "passed", "GW-ID-002": "passed"}


def first_call_only(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """The reference client reporting only the first call of a turn, alone or not (EXP-001)."""
    result = clients.run(request, base_url, dialect)
    return {**result, "tool_calls": result["tool_calls"][:1]}


def test_a_client_wrong_alone_the_same_way_concurrently_passes_cli_012() -> None:
    with Harness(RunConfig(client=f"{__name__}:first_call_only", case_timeout=10)) as harness:
        isolation = harness.judge(ISOLATION)
        expected = harness.judge(CaseSpec("parallel_two_calls", "expected"))
    assert (isolation.outcome, isolation.message) == ("passed", ""), isolation.message
    assert _rules(isolation) == {"CLI-012": "passed"}
    assert expected.outcome == "failed" and {r.rule.id for r in expected.failed} == {"EXP-001"}


def _answered(scenario_id: str, *, alone: bool = True) -> Answered:
    stream = (b'event: response.completed\ndata: {"type":"response.completed","sequence_number":0,'
              b'"response":{"id":"resp_x","status":"completed","output":[]}}\n\n')
    exchange = Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, 200, {"content-type": "text/event-stream"},
                        (Chunk(0.0, stream),))
    scenario = bundled_scenarios()[scenario_id]
    if alone:
        return Answered(scenario, read_answer(exchange, "openai", "responses"))
    return Answered(scenario, None, "the IUT did not answer: connection refused")


def test_no_answer_alone_is_no_verdict() -> None:
    """The answer alone is the evidence a concurrent answer is judged against: without it, the case is an error
    naming the scenario, whatever the concurrent answers were."""
    solo = [_answered("text_only"), _answered("one_call", alone=False)]
    result = isolation_verdict(ISOLATION, solo, [_answered("text_only"), _answered("one_call")], 2, 1.0, 0.0)
    assert (result.outcome, result.results) == ("error", ())
    assert result.message == (
        "the isolation case compares each concurrent answer with the same scenario's answer alone, and has nothing "
        "to compare with (the scenario's own cases judge that answer):\n"
        "one_call alone: the IUT did not answer: connection refused")
