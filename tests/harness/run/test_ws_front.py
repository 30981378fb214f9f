"""A gateway's Responses WebSocket front (`--front-transport websocket`, docs/spec/gateway-websocket.md): the
reference gateway, launched on a real uvicorn server in front of the mock over Chat Completions, passes every case
planned over its socket; the planning and the option checks."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest

from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._ws_exchange import Message
from callproof.harness.run._ws_play import split_back_to_back
from callproof.mock_server import bundled_scenarios
from tests import fakes

SCENARIOS = bundled_scenarios()
#: An agent loop of three turns, one call, parallel calls, upstream failures (an HTTP error, a cut stream).
#: And the cancellation cases (the socket closed mid-stream and before the first byte: GW-CANCEL-*).
PLAYED = ("agent_loop_three_turns", "agent_loop_tool_result", "one_call", "parallel_two_calls", "fault_http_500",
          "fault_disconnect_after_events", "text_before_call", "cancel_mid_stream", "cancel_before_first_byte")


def test_the_reference_gateway_passes_every_case_over_its_websocket_front() -> None:
    config = RunConfig(launch=fakes.launch(), front_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in PLAYED]
        results = [harness.judge(spec) for spec in specs]
    assert {s.scenario for s in specs} == set(PLAYED)
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []
    judged = {rule.rule.id for r in results for rule in r.results}
    assert {"GW-WS-001", "GW-WS-002", "GW-WS-003", "GW-CANCEL-001", "GW-CANCEL-002"} <= judged
    cancelled = [r for r in results if r.spec.group == "cancellation"]
    assert len(cancelled) == 2 and all(r.details["cancel"]["upstream"][0]["ended"] == "cancelled" for r in cancelled)
    assert any(rule.rule.id.startswith("GW-LOOP-") for r in results for rule in r.results), "the loop is judged"


def test_every_turn_of_the_reference_gateways_sockets_is_judged() -> None:
    """The turns after the first (the follow-up after a failure, the two creates sent back to back, an agent loop's
    replayed first leg and its continuation) are judged by the stream families, expected and translation, and each
    socket's transcript by RSP-WS-001..003 (docs/spec/gateway-websocket.md §6)."""
    cases = ["one_call::lifecycle", "one_call::identity", "one_call::schema", "one_call::expected",
             "fault_http_500::schema", "fault_http_500::sequence", "fault_http_500::translation",
             "agent_loop_tool_result::expected", "agent_loop_tool_result::identity",
             "builtin_tools_in_request::schema", "builtin_tools_in_request::sequence"]
    config = RunConfig(launch=fakes.launch(), front_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        results = {c: harness.judge(CaseSpec(*c.split("::"))) for c in cases}
        turns = {s: harness._run(s).details["socket"] for s in ("one_call", "fault_http_500", "agent_loop_tool_result")}
    # a valid rejection (an error event the scenario allows): its shape is judged, nothing else of a stream is there
    assert results.pop("builtin_tools_in_request::sequence").outcome == "skipped"
    assert {c: r.outcome for c, r in results.items()} == dict.fromkeys(results, "passed")
    judged = {c: {x.rule.id: x.outcome for x in r.results} for c, r in results.items()}
    assert judged["builtin_tools_in_request::schema"] == {"RSP-WS-002": "passed"}
    assert judged["one_call::lifecycle"]["RSP-WS-001"] == "passed"  # two creates sent back to back on its socket
    assert judged["one_call::identity"]["RSP-WS-003"] == "passed"
    assert judged["one_call::schema"]["RSP-WS-002"] == "passed"  # the refusal of the second create in flight
    assert judged["fault_http_500::schema"]["RSP-WS-002"] == "passed"  # the error event of the upstream's 500
    assert "RSP-SEQ-002" in judged["fault_http_500::sequence"]  # the follow-up's stream: no stream over HTTP
    assert judged["agent_loop_tool_result::identity"]["RSP-WS-003"] == "passed"  # the continuation echoes its id
    assert [(t["turn"], t["scenario"], t["last"]) for t in turns["one_call"]] == [
        (1, "one_call", "response.completed"), (2, "timing_ttft_and_gaps", "response.completed"),
        (3, "one_call", "error")]
    assert [t["last"] for t in turns["fault_http_500"]] == ["error", "response.completed"]
    assert [t["last"] for t in turns["agent_loop_tool_result"]] == ["response.completed", "response.completed"]


def _broken(defect: str, cases: Sequence[str]) -> dict[str, CaseResult]:
    config = RunConfig(launch=fakes.launch(defect=defect), front_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        return {c: harness.judge(CaseSpec(*c.split("::"))) for c in cases}


def _failed(results: dict[str, CaseResult]) -> dict[str, list[str]]:
    return {c: [r.rule.id for r in result.failed] for c, result in results.items() if result.outcome != "passed"}


def test_a_socket_numbering_its_responses_with_one_counter_fails_the_sequence_rule_on_turn_2_alone() -> None:
    cases = ["one_call::sequence", "one_call::schema", "one_call::lifecycle", "one_call::websocket",
             "fault_disconnect_after_events::sequence", "agent_loop_tool_result::sequence",
             "fault_http_500::sequence"]
    results = _broken("ws_continues_sequence", cases)
    assert _failed(results) == {"one_call::sequence": ["RSP-SEQ-002"],
                                "fault_disconnect_after_events::sequence": ["RSP-SEQ-002"],
                                "agent_loop_tool_result::sequence": ["RSP-SEQ-002"]}
    (rule,) = results["one_call::sequence"].failed
    (violation,) = rule.violations
    assert violation.evidence.turn == 2 and violation.evidence.event_index == 0
    assert violation.message.startswith("turn 2 of 3 (timing_ttft_and_gaps, the first of two creates sent back to "
                                        "back): the first sequence_number is ")
    assert "turn 2 of 3 (" in results["one_call::sequence"].message
    # the excerpt is cut from turn 2's stream, the timeline is the case's own answer (turn 1, numbered from 0)
    assert '"sequence_number":0' not in results["one_call::sequence"].excerpts["RSP-SEQ-002"].split("\n")[1]
    case = results["one_call::sequence"]
    assert len(case.timeline) == case.details["socket"][0]["messages"] != case.details["socket"][1]["messages"]


def test_a_broken_event_of_a_later_turn_fails_its_rule_alone_naming_the_turn() -> None:
    cases = ["one_call::schema", "one_call::sequence", "one_call::lifecycle", "one_call::identity",
             "one_call::reassembly", "one_call::expected", "one_call::translation", "one_call::websocket",
             "agent_loop_tool_result::schema", "fault_http_500::schema"]
    results = _broken("ws_breaks_later_turns", cases)
    assert _failed(results) == {"one_call::schema": ["RSP-SCHEMA-001"],
                                "agent_loop_tool_result::schema": ["RSP-SCHEMA-001"]}
    violation = results["one_call::schema"].failed[0].violations[0]
    assert (violation.evidence.turn, violation.evidence.event_type, violation.evidence.path) == (
        2, "response.in_progress", "$.response.object")
    assert "response.in_progress" in results["one_call::schema"].excerpts["RSP-SCHEMA-001"]


def test_the_flat_error_event_refusing_a_create_in_flight_is_caught_by_the_transcript_rule() -> None:
    """The code is right (GW-WS-002 passes), the shape is the SSE one: RSP-WS-002, judged in `callproof run` now."""
    results = _broken("ws_flat_in_flight_error", ["one_call::schema", "one_call::websocket", "one_call::lifecycle"])
    assert _failed(results) == {"one_call::schema": ["RSP-WS-002"]}
    violation = results["one_call::schema"].failed[0].violations[0]
    assert violation.message.startswith("turn 3 of 3, event #0: ") and violation.evidence.turn == 3


def test_a_turn_that_produced_no_events_is_an_error_for_the_groups_it_touches() -> None:
    """A socket closed after an upstream failure: the follow-up turn got nothing, so the groups that would judge it
    cannot pass (nothing that was not judged passes); GW-WS-003 fails in the websocket case."""
    cases = ["fault_http_500::sequence", "fault_http_500::translation", "fault_http_500::faults",
             "fault_http_500::websocket"]
    results = _broken("ws_closes_on_upstream_failure", cases)
    assert {c: r.outcome for c, r in results.items()} == {
        "fault_http_500::sequence": "error", "fault_http_500::translation": "error",
        "fault_http_500::faults": "passed", "fault_http_500::websocket": "failed"}
    # whether the harness saw the close before sending the turn or while waiting for its answer is a race: either
    # wording names the closed socket
    assert re.match(r"turn 2 of 2 \(one_call, sent after the failed turn\) got no message \(the gateway (had )?closed "
                    r"the socket", results["fault_http_500::sequence"].message), results["fault_http_500::sequence"]


def test_a_later_turn_past_a_run_limit_is_not_judged() -> None:
    """--max-events: the failed turn (8 messages) is within it, the turn after it (11) is not: the harness stopped
    reading that turn, so the groups that judge it cannot pass."""
    config = RunConfig(launch=fakes.launch(), front_transport="websocket", case_timeout=15, max_events=9)
    with Harness(config) as harness:
        result = harness.judge(CaseSpec("fault_disconnect_after_events", "sequence"))
    assert result.outcome == "error"
    assert result.message.startswith("turn 2 of 2 (one_call, sent after the failed turn): --max-events 9: ")


def _message(event: dict[str, object]) -> Message:
    return Message(0.0, json.dumps(event), event)


REFUSAL = {"type": "error", "status": 400, "error": {"code": "response_already_in_flight", "message": "busy"}}


def test_two_creates_sent_back_to_back_are_split_into_their_turns() -> None:
    first = [_message({"type": "response.created"}), _message({"type": "response.completed"})]
    second = [_message({"type": "response.created"}), _message({"type": "response.completed"})]
    refusal = _message(REFUSAL)
    assert split_back_to_back([*first, *second]) == (tuple(first), tuple(second))  # queued
    assert split_back_to_back([first[0], refusal, first[1]]) == (tuple(first), (refusal,))  # refused in flight
    assert split_back_to_back([refusal, *first]) == (tuple(first), (refusal,))
    # interleaved: the first turn holds the second's first events (its lifecycle rules fail), up to a terminal
    mixed = [first[0], second[0], second[1], first[1]]
    assert split_back_to_back(mixed) == ((first[0], second[0], second[1]), (first[1],))


def test_websocket_cases_replace_the_http_only_groups() -> None:
    config = RunConfig(launch="gw --port {port}", front_transport="websocket")
    http = RunConfig(launch="gw --port {port}")
    specs = Harness(config, SCENARIOS).cases()
    groups = {s.group for s in specs}
    assert "framing" not in groups and "equivalence" not in groups
    assert CaseSpec("one_call", "websocket") in specs
    assert CaseSpec("fault_http_500", "websocket") in specs
    assert CaseSpec("agent_loop_tool_result", "websocket") in specs
    assert not any(s.group == "websocket" for s in Harness(http, SCENARIOS).cases())
    # an upstream HTTP error leaves no stream over HTTP; over a socket its error event and the follow-up turn are
    http_500 = [s.group for s in Harness(http, SCENARIOS).cases() if s.scenario == "fault_http_500"]
    ws_500 = [s.group for s in specs if s.scenario == "fault_http_500"]
    assert "schema" not in http_500
    assert ws_500 == ["schema", "sequence", "lifecycle", "identity", "reassembly", *http_500, "websocket"]


@pytest.mark.parametrize(("fields", "words"), [
    ({"front": "chat"}, ("--front-transport websocket", "--front chat", "--front responses")),
    ({"upstream_transport": "websocket"}, ("--upstream-transport websocket", "--upstream-dialect chat")),
])
def test_a_transport_without_the_responses_dialect_is_one_line(fields: dict[str, str], words: tuple[str, ...]) -> None:
    front_transport = "http" if "upstream_transport" in fields else "websocket"
    problem = RunConfig(launch="gw --port {port}", front_transport=front_transport, **fields).problem()  # type: ignore[arg-type]
    assert problem is not None and "\n" not in problem
    assert all(word in problem for word in words), problem


def test_a_client_run_has_no_front_transport() -> None:
    problem = RunConfig(client_cmd="client", front_transport="websocket").problem()
    assert problem is not None and "--front-transport" in problem and "client" in problem


@pytest.mark.parametrize("front_transport", ["http", "websocket"])
def test_the_reference_gateway_passes_over_a_websocket_upstream(front_transport: str) -> None:
    """`--upstream-transport websocket`: `{upstream}` is the mock's ws:// URL, the gateway speaks the Responses
    WebSocket mode to it, and every rule reads the upstream turns from the journal as over HTTP."""
    config = RunConfig(launch=f"{fakes.launch()} --upstream-dialect responses", upstream_dialect="responses",
                       upstream_transport="websocket", front_transport=front_transport, case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in PLAYED or s.scenario == "timing_ttft_and_gaps"]
        results = [harness.judge(spec) for spec in specs]
        transports = {r.transport for r in harness.mock.journal.requests() if r.scenario in PLAYED}  # no calibration
    assert transports == {"websocket"}
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    assert sum(r.outcome == "passed" for r in results) > len(results) - 3
