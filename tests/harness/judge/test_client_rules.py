"""Client rules on hand-made results: CLI-004 pairs each reported call with one wire call, so two identical calls
keep their own ids (found by callproof fuzz); CLI-007 wants parallel calls streamed without an id reported with
distinct ones; CLI-010 the wire's result under a framing fault, naming the framing; CLI-011 calls in output order;
CLI-012 concurrent runs equal to the runs alone, with nothing of each other's; CLI-013 the item id as fallback."""

from __future__ import annotations

from callproof.harness.judge import AdapterRun
from callproof.harness.judge._client_rules import check_client, check_client_isolation, framing_variants
from callproof.harness.judge._findings import Findings
from callproof.harness.outcome import Call, Result
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


SCENARIOS = bundled_scenarios()
TWO = Result("completed", "hi", (Call("call_a", "f", '{"a":1}'), Call("call_b", "g", '{"b":2}')), "response.completed")


def _rules(scenario_id: str, reported: Result, wire: Result = TWO, item_ids: tuple[str | None, ...] = ()
           ) -> dict[str, str]:
    findings = Findings()
    check_client(findings, SCENARIOS[scenario_id], RUN, reported, wire, item_ids)
    return {r.rule.id: r.outcome for r in findings.results() if r.rule.id in ("CLI-010", "CLI-011", "CLI-013")}


def test_a_framing_scenario_wants_the_wire_result_and_names_the_framing_cli_010() -> None:
    assert _rules("framing_cr_only", TWO)["CLI-010"] == "passed"
    findings = Findings()
    check_client(findings, SCENARIOS["framing_cr_only"], RUN, Result("error", "", (), "adapter", error="no end"), TWO)
    failed = {r.rule.id: r for r in findings.results() if r.outcome == "failed"}
    assert "CLI-010" in failed and "cr_only (lines ended by a lone CR)" in failed["CLI-010"].violations[0].message
    lost = Result("completed", "hi", TWO.calls[:1], "adapter")
    assert _rules("fault_fragment_one_byte", lost)["CLI-010"] == "failed"
    # a scenario without a framing fault does not judge CLI-010
    assert "CLI-010" not in _rules("parallel_two_calls", TWO)


def test_calls_come_in_output_order_cli_011() -> None:
    assert _rules("parallel_two_calls", TWO)["CLI-011"] == "passed"
    swapped = Result("completed", "hi", TWO.calls[::-1], "adapter")
    assert _rules("parallel_two_calls", swapped)["CLI-011"] == "failed"
    assert "CLI-011" not in _rules("parallel_two_calls", Result("completed", "hi", TWO.calls[:1], "adapter"))


def test_a_call_without_call_id_falls_back_to_its_item_id_cli_013() -> None:
    wire = Result("completed", "", (Call(None, "f", "{}"),), "response.completed")
    assert _rules("missing_call_id", Result("completed", "", (Call("fc_1", "f", "{}"),), "adapter"), wire,
                  ("fc_1",))["CLI-013"] == "passed"
    assert _rules("missing_call_id", Result("completed", "", (Call("call_0", "f", "{}"),), "adapter"), wire,
                  ("fc_1",))["CLI-013"] == "failed"
    # no item ids (Chat, Anthropic) or a call the wire gave an id: not judged
    assert "CLI-013" not in _rules("missing_call_id", Result("completed", "", (Call(None, "f", "{}"),), "a"), wire)
    assert "CLI-013" not in _rules("one_call", TWO, TWO, ("fc_a", "fc_b"))


def test_concurrent_runs_report_what_they_report_alone_and_nothing_of_the_others_cli_012() -> None:
    one, two = SCENARIOS["one_call"], SCENARIOS["text_only"]
    wire_one = Result("completed", "", (Call("call_1", "get_weather", '{"city":"Paris"}'),), "response.completed")
    wire_two = Result("completed", "Hello there.", (), "response.completed")

    def outcome(first: Result, second: Result, alone_first: Result | None = None) -> list[str]:
        findings = Findings()
        check_client_isolation(findings, [(one, first, wire_one, alone_first or wire_one),
                                          (two, second, wire_two, wire_two)])
        return [v.message for r in findings.results() for v in r.violations]

    assert outcome(wire_one, wire_two) == []
    mixed = Result("completed", "Hello there.", wire_one.calls, "adapter")
    messages = outcome(wire_one, mixed)
    assert len(messages) == 1 and "holds output of concurrent case(s) one_call" in messages[0]
    # a bug the client has alone too (here: arguments lost) is not an isolation failure
    broken = Result("completed", "", (Call("call_1", "get_weather", "{}"),), "adapter")
    assert outcome(broken, wire_two, alone_first=broken) == []


def test_a_chaos_framing_fault_counts_only_when_the_mock_applied_it() -> None:
    chaos = SCENARIOS["fault_chaos_harmless"]
    assert framing_variants(chaos) == []
    named = framing_variants(chaos, ("keepalive", "stall"))
    assert named == ["keepalive (a `:` comment after every 2 event(s))"]
    assert [v.split(" ")[0] for v in framing_variants(SCENARIOS["framing_no_space"])] == ["no_space"]
