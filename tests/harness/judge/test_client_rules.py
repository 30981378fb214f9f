"""Client rules on hand-made results: CLI-004 pairs each reported call with one wire call, so two identical calls
keep their own ids (found by callproof fuzz)."""

from __future__ import annotations

from callproof.harness.judge import AdapterRun
from callproof.harness.judge._client_rules import check_client
from callproof.harness.judge._findings import Findings
from callproof.harness.scenario._outcome import Call, Result
from callproof.mock_server import bundled_scenarios

SCENARIO = bundled_scenarios()["parallel_two_calls"]
RUN = AdapterRun({}, None, "", 0.1)
WIRE = Result("completed", "", (Call("call_1", "f", "{}"), Call("call_2", "f", "{}")), "response.completed")


def _failed(reported: tuple[Call, ...]) -> dict[str, int]:
    findings = Findings()
    check_client(findings, SCENARIO, RUN, Result("completed", "", reported, "adapter"), WIRE)
    return {r.rule.id: r.count for r in findings.results() if r.outcome == "failed"}


def test_identical_calls_keep_their_own_ids_in_any_order() -> None:
    assert _failed((Call("call_1", "f", "{}"), Call("call_2", "f", "{}"))) == {}
    assert _failed((Call("call_2", "f", "{}"), Call("call_1", "f", "{}"))) == {}


def test_a_lost_or_invented_id_fails_cli_004() -> None:
    assert _failed((Call("call_1", "f", "{}"), Call("call_1", "f", "{}"))) == {"CLI-004": 1}
    assert _failed((Call("", "f", "{}"), Call("call_2", "f", "{}"))) == {"CLI-004": 1}
