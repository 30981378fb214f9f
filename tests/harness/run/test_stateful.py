"""Stateful scenarios in a gateway run (docs/spec/stateful.md §5): planned as one `stateful` case on a Responses
front only; the two-turn exchange through a real gateway (the reference gateway and the fakes, launched as
processes against a real mock on 127.0.0.1); `--policy stateful` reaching the judge."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult, CaseSpec, Findings, Refusal, check_continuation
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._plan import plan_cases
from callproof.harness.run._stateful import turn_bodies, upstream_response_id
from callproof.mock_server import bundled_scenarios
from examples.gateway.state import ResponseStore, StatefulRefusal
from tests import fakes

SCENARIOS = bundled_scenarios()
STATEFUL = sorted(s.id for s in SCENARIOS.values() if "stateful" in s.tags)
CASES = [f"{s}::stateful" for s in STATEFUL]


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(defect: str | None, upstream: Dialect, *policy: str) -> dict[str, CaseResult]:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect) if defect else fakes.launch()} "
                              f"--upstream-dialect {upstream}", upstream_dialect=upstream, case_timeout=15,
                       policy=policy)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*c.split("::"))) for c in CASES]
    return {r.spec.scenario: r for r in results}


def test_stateful_scenarios_are_one_case_on_a_responses_front_only() -> None:
    assert STATEFUL == ["stateful_continue_text", "stateful_continue_tool_loop", "stateful_encrypted_reasoning",
                        "stateful_store_false_not_continued"]
    for front in ("responses", "chat", "anthropic"):
        specs = plan_cases(SCENARIOS, "gateway", "chat", front, "responses")
        planned = sorted(s.id for s in specs if s.scenario in STATEFUL)
        assert planned == (CASES if front == "responses" else []), front
    client = plan_cases(SCENARIOS, "client", "chat", "responses", "responses")
    assert not {s.scenario for s in client} & set(STATEFUL)


@pytest.mark.parametrize("policy", ["stateful=either", "stateful=honor"])
@pytest.mark.parametrize("upstream", ["chat", "anthropic", "responses"])
def test_the_reference_gateway_honours_every_stateful_case(upstream: Dialect, policy: str) -> None:
    results = _judge(None, upstream, policy)
    assert {s: (r.outcome, r.message) for s, r in results.items()} == {s: ("passed", "") for s in STATEFUL}
    turns = {s: [(t["http_status"], t["upstream_called"]) for t in r.details["turns"]] for s, r in results.items()}
    assert turns == {"stateful_continue_text": [(200, True), (200, True)],
                     "stateful_continue_tool_loop": [(200, True), (200, True)],
                     "stateful_encrypted_reasoning": [(200, True)],
                     "stateful_store_false_not_continued": [(200, True), (400, False)]}
    rules = {s: [(x.rule.id, x.outcome) for x in r.results] for s, r in results.items()}
    assert rules["stateful_continue_text"] == [("GW-STATE-001", "passed")]
    assert rules["stateful_store_false_not_continued"] == [("GW-STATE-002", "passed")]
    assert rules["stateful_encrypted_reasoning"] == [("GW-STATE-003", "passed")]


def test_a_documented_refusal_passes_by_default_and_under_reject_but_not_under_honor() -> None:
    for policy in ((), ("stateful=reject",)):
        results = _judge("rejects_stateful", "chat", *policy)
        assert {s: r.outcome for s, r in results.items()} == {s: "passed" for s in STATEFUL}, policy
    honor = _judge("rejects_stateful", "chat", "stateful=honor")
    assert honor["stateful_continue_text"].outcome == "failed"
    assert "--policy stateful=honor: the gateway refused the continuation" in honor["stateful_continue_text"].message
    assert honor["stateful_store_false_not_continued"].outcome == "passed"  # refused under every policy


def test_the_reference_gateway_is_caught_under_reject() -> None:
    results = _judge(None, "chat", "stateful=reject")
    assert results["stateful_continue_tool_loop"].outcome == "failed"
    assert "--policy stateful=reject: the gateway called its upstream" in results["stateful_continue_tool_loop"].message


def test_the_upstream_response_id_and_the_turns_bodies() -> None:
    stream = (b'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_up_7"}}\n\n'
              b'data: {"type":"response.completed","response":{"id":"resp_up_7"}}\n\n')
    assert upstream_response_id("responses", stream) == "resp_up_7"
    assert upstream_response_id("chat", stream) is None
    assert upstream_response_id("responses", b"data: [DONE]\n\n") is None

    class Record:
        def __init__(self, id: int, time: float, body: Any) -> None:
            self.id, self.time, self.body, self.dialect = id, time, body, "responses"

    records = [Record(1, 1.0, {"turn": 1}), Record(2, 2.0, {"turn": 2})]
    assert turn_bodies(records, lambda i: stream if i == 2 else b"", 1.5) == [({"turn": 2}, "resp_up_7")]


def test_the_reference_gateways_store_and_refusal() -> None:
    store = ResponseStore(limit=2)
    for n in range(3):
        store.put(f"resp_{n}", [{"n": n}])
    assert (store.get("resp_0"), store.get("resp_2"), len(store)) == (None, [{"n": 2}], 2)
    refusal = StatefulRefusal("gone", "previous_response_id", "previous_response_not_found").response()
    body = json.loads(bytes(refusal.body))
    findings = Findings()
    check_continuation(findings, earlier=(), request={"input": "hi"}, upstream=None, upstream_dialect="chat",
                       refusal=Refusal(refusal.status_code, body))
    assert [(r.rule.id, r.outcome) for r in findings.results()] == [("GW-STATE-001", "passed")]
