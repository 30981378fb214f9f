"""Client rules on hand-made results: CLI-004 pairs each reported call with one wire call, so two identical calls
keep their own ids (found by callproof fuzz); CLI-007 wants parallel calls streamed without an id reported with
distinct ones."""

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


IDLESS = Result("completed", "", (Call(None, "f", '{"a":1}'), Call("", "f", '{"a":2}')), "finish_reason tool_calls")


def _idless_failed(reported: tuple[Call, ...], wire: Result = IDLESS) -> dict[str, int]:
    findings = Findings()
    check_client(findings, SCENARIO, RUN, Result("completed", "", reported, "adapter"), wire)
    return {r.rule.id: r.count for r in findings.results() if r.outcome == "failed"}


def test_parallel_id_less_calls_need_distinct_ids_cli_007() -> None:
    assert _idless_failed((Call("call_0", "f", '{"a":1}'), Call("call_1", "f", '{"a":2}'))) == {}
    assert _idless_failed((Call("same", "f", '{"a":1}'), Call("same", "f", '{"a":2}'))) == {"CLI-007": 2}
    assert _idless_failed((Call(None, "f", '{"a":1}'), Call("", "f", '{"a":2}'))) == {"CLI-007": 2}
    # an id-less call may not take the id another call was streamed with either
    wire = Result("completed", "", (Call("call_x", "f", '{"a":1}'), Call(None, "f", '{"a":2}')), "response.completed")
    assert _idless_failed((Call("call_x", "f", '{"a":1}'), Call("call_x", "f", '{"a":2}')), wire) == {"CLI-007": 1}


def test_a_lone_id_less_call_may_keep_no_id() -> None:
    wire = Result("completed", "", (Call(None, "f", '{"a":1}'),), "stop_reason tool_use")
    assert _idless_failed((Call(None, "f", '{"a":1}'),), wire) == {}
