"""Client rules on hand-made results: CLI-004 pairs each reported call with one wire call, so two identical calls
keep their own ids (found by callproof fuzz), and lets an id the stream repeated be kept or made unique; CLI-007
wants parallel calls streamed without an id reported with distinct ones; CLI-010 the wire's result under a framing
fault, naming the framing; CLI-011 calls in output order; CLI-012 concurrent runs equal to the runs alone, with
nothing of each other's; CLI-013 the item id as fallback."""

from __future__ import annotations

from callproof.harness.judge import AdapterRun, expected_outcome
from callproof.harness.judge._client_rules import check_client, check_client_isolation, framing_variants
from callproof.harness.judge._findings import Findings
from callproof.harness.outcome import Call, Result, result_of_adapter
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


DUPLICATE = SCENARIOS["duplicate_call_ids"]
PARIS, MADRID = '{"city":"Paris"}', '{"city":"Madrid"}'
#: What the mock streams for duplicate_call_ids: two calls that share the id call_0 (the upstream's fault).
SHARED = Result("completed", "", (Call("call_0", "get_weather", PARIS), Call("call_0", "get_weather", MADRID)),
                "response.completed")


def _judged(reported: tuple[Call, ...], wire: Result = SHARED) -> dict[str, list[str]]:
    """CLI-* and EXP-* violation messages for `reported` on duplicate_call_ids (its wire: `wire`)."""
    findings = Findings()
    result = Result("completed", "", reported, "adapter")
    check_client(findings, DUPLICATE, RUN, result, wire)
    expected_outcome(findings, DUPLICATE.expect, result)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def test_a_repeated_id_may_be_kept_or_made_unique_cli_004() -> None:
    """docs/spec/contracts.md §7.9 (ids): the upstream repeated the id; keeping it and renaming a call both pass."""
    assert _judged(SHARED.calls) == {}
    assert _judged((Call("call_0", "get_weather", PARIS), Call("call_0_1", "get_weather", MADRID))) == {}
    assert _judged((Call("call_a", "get_weather", PARIS), Call("call_b", "get_weather", MADRID))) == {}


def test_a_repeated_id_lost_or_given_to_another_call_fails_cli_004() -> None:
    assert _judged((Call("call_0", "get_weather", PARIS), Call("", "get_weather", MADRID))) == {"CLI-004": [
        "call 1 (get_weather) had the id 'call_0' that 2 calls share on the wire, and is reported with call_id '': "
        "keep the stream's id, or give the call an id no other reported call has"]}
    renamed = (Call("fresh", "get_weather", PARIS), Call("fresh", "get_weather", MADRID))
    assert _judged(renamed) == {"CLI-004": [
        "call 0 (get_weather) had the id 'call_0' that 2 calls share on the wire, and is reported with call_id "
        "'fresh', as is call 1 (get_weather): keep the stream's id, or give the call an id no other reported call "
        "has",
        "call 1 (get_weather) had the id 'call_0' that 2 calls share on the wire, and is reported with call_id "
        "'fresh', as is call 0 (get_weather): keep the stream's id, or give the call an id no other reported call "
        "has"]}


def test_calls_that_share_an_id_dropped_or_merged_fail_exp_001() -> None:
    """Keeping the calls apart is the expected outcome's business (EXP-001), whatever the ids."""
    assert set(_judged(SHARED.calls[:1])) == {"EXP-001"}
    merged = (Call("call_0", "get_weather", PARIS + MADRID),)  # one call, arguments of both: EXP-002 as well
    assert set(_judged(merged)) == {"EXP-001", "EXP-002"}


def test_an_id_unique_on_the_wire_is_kept_unchanged_beside_a_repeated_one_cli_004() -> None:
    wire = Result("completed", "", (*SHARED.calls, Call("call_9", "get_weather", '{"city":"Rome"}')), "r.completed")
    kept = (*SHARED.calls, Call("call_9", "get_weather", '{"city":"Rome"}'))
    failed = _judged((*SHARED.calls, Call("call_9_new", "get_weather", '{"city":"Rome"}')), wire)
    assert "CLI-004" not in _judged(kept, wire)
    assert failed["CLI-004"] == ["call 2 (get_weather) is reported with call_id 'call_9_new'; the stream gave it "
                                 "'call_9'"]


CUT = Result("incomplete", "Hel", (), "response.incomplete", incomplete_reason="max_output_tokens")


def _cli_005(printed: dict[str, object]) -> list[str]:
    """CLI-005's messages for the adapter result `printed` on length_mid_text (its wire: CUT)."""
    findings = Findings()
    check_client(findings, SCENARIOS["length_mid_text"], AdapterRun(printed, None, "", 0.1),
                 result_of_adapter(printed), CUT)
    return [v.message for r in findings.results() if r.rule.id == "CLI-005" for v in r.violations]


def test_cli_005_says_what_the_adapter_reported() -> None:
    """An adapter that set `incomplete: true` beside an error is told so, not that it reported incomplete false;
    the error still fails CLI-005 (docs/spec/verdicts.md §3: the result is an error)."""
    base = {"text": "Hel", "tool_calls": [], "error": "cut by the limit"}
    assert _cli_005({**base, "error": None, "incomplete": True}) == []
    head = "the response ended incomplete on the wire (response.incomplete, reason 'max_output_tokens') "
    tail = ("; the stream held text \"Hel\", part of an incomplete result: report incomplete: true with what arrived, ")
    source = " (this finding stands for the lost text and calls too: docs/spec/verdicts.md §3)"
    assert _cli_005({**base, "incomplete": True}) == [
        f"{head}and the adapter reported incomplete: true, but together with error \"cut by the limit\", which makes "
        f"the result an error{tail}and error null{source}"]
    assert _cli_005({**base, "incomplete": False}) == [
        f"{head}but the adapter reported it as error \"cut by the limit\"{tail}not an error{source}"]
    assert _cli_005({**base, "error": None, "incomplete": False}) == [
        f"{head}but the adapter reported incomplete false"]
