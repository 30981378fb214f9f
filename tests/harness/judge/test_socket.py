"""The turns of one socket of a WebSocket front (docs/spec/gateway-websocket.md §6), on fixed messages (no socket):
another turn's results named by the turn, several turns' results merged into one case's, and the socket's transcript
judged by RSP-WS-001..003 with each violation naming its turn."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from callproof.harness.catalogue import RULES, Evidence, RuleResult, Violation
from callproof.harness.judge import SocketMessage, TurnLabel, check_socket, excerpts, in_turn, merge_results

LABELS = [TurnLabel(1, 2, "the scenario's request"), TurnLabel(2, 2, "one_call, sent after the failed turn")]


def _result(rule: str, *messages: str, outcome: str = "failed", index: int = 0) -> RuleResult:
    violations = tuple(Violation(rule, m, Evidence(index, "response.created", "$.sequence_number", offset=0))
                       for m in messages)
    return RuleResult(RULES[rule], outcome, violations, len(violations))  # type: ignore[arg-type]


def _passed(rule: str) -> RuleResult:
    return RuleResult(RULES[rule], "passed")


# -- a turn's results ---------------------------------------------------------------------------------------------
def test_a_turns_violations_name_the_turn_in_message_and_evidence() -> None:
    (result,) = in_turn([_result("RSP-SEQ-002", "the first sequence_number is 11, not 0")], LABELS[1])
    (violation,) = result.violations
    assert violation.message == ("turn 2 of 2 (one_call, sent after the failed turn): the first sequence_number is "
                                 "11, not 0")
    assert violation.evidence.turn == 2 and violation.evidence.event_index == 0
    assert violation.evidence.describe().startswith("turn 2, event #0 'response.created'")
    assert violation.evidence.to_json()["turn"] == 2


def test_evidence_without_a_turn_is_described_and_serialised_as_before() -> None:
    evidence = Evidence(4, "response.output_item.done", "$.item.call_id", offset=812)
    assert evidence.describe() == "event #4 'response.output_item.done' at byte 812, $.item.call_id"
    assert "turn" not in evidence.to_json()


# -- merging ------------------------------------------------------------------------------------------------------
def test_a_rule_failed_in_one_turn_fails_the_case_with_every_turns_violations_in_order() -> None:
    merged = merge_results([_passed("RSP-SEQ-002"), _passed("RSP-SEQ-001")],
                           [_result("RSP-SEQ-002", "b1", "b2")], [_result("RSP-SEQ-002", "c")])
    assert [r.rule.id for r in merged] == ["RSP-SEQ-001", "RSP-SEQ-002"]  # catalogue order
    seq = merged[1]
    assert (seq.outcome, seq.count, [v.message for v in seq.violations]) == ("failed", 3, ["b1", "b2", "c"])


@pytest.mark.parametrize(("outcomes", "merged"), [
    (("not-applicable", "passed"), "passed"),
    (("not-applicable", "not-applicable"), "not-applicable"),
    (("passed", "upstream"), "upstream"),
    (("upstream", "failed"), "failed"),
])
def test_the_merged_outcome_is_the_strongest(outcomes: Sequence[str], merged: str) -> None:
    parts = [[RuleResult(RULES["RSP-SEQ-003"], o)] for o in outcomes]  # type: ignore[arg-type]
    assert [r.outcome for r in merge_results(*parts)] == [merged]


def test_a_rule_of_one_part_only_is_kept_as_it_is() -> None:
    result = _result("RSP-SEQ-003", "x")
    assert merge_results([result], []) == (result,)


def test_excerpts_of_another_turn_are_cut_from_that_turns_stream() -> None:
    own, other = b"data: {\"own\": 1}\n\n", b"data: {\"turn\": 2}\n\n"
    (result,) = in_turn([_result("RSP-SEQ-002", "x")], LABELS[1])
    assert excerpts(own, [result], {2: other}) == {"RSP-SEQ-002": other.decode()}
    assert excerpts(own, [result]) == {}  # no stream of that turn: no excerpt rather than the wrong one
    assert excerpts(None, [_result("RSP-SEQ-002", "x")], {2: other}) == {}


# -- the transcript rules ---------------------------------------------------------------------------------------
def _created(rid: str, number: int = 0, previous: str | None = None) -> dict[str, Any]:
    return {"type": "response.created", "sequence_number": number,
            "response": {"id": rid, "object": "response", "status": "in_progress", "previous_response_id": previous}}


def _completed(rid: str, number: int = 1, previous: str | None = None) -> dict[str, Any]:
    return {"type": "response.completed", "sequence_number": number,
            "response": {"id": rid, "object": "response", "status": "completed", "previous_response_id": previous}}


def _server(turn: int, events: Sequence[dict[str, Any]], start: int = 0) -> list[SocketMessage]:
    return [SocketMessage("server", turn, json.dumps(e), start + i, e["type"]) for i, e in enumerate(events)]


def _create(turn: int, **fields: Any) -> SocketMessage:
    return SocketMessage("client", turn, {"type": "response.create", "model": "m", "input": "hi", **fields})


def _outcomes(results: Sequence[RuleResult]) -> dict[str, str]:
    return {r.rule.id: r.outcome for r in results}


def test_a_socket_of_two_turns_one_after_the_other_passes() -> None:
    messages = [_create(1), *_server(1, [_created("resp_1"), _completed("resp_1")]),
                _create(2), *_server(2, [_created("resp_2"), _completed("resp_2")])]
    assert _outcomes(check_socket(messages, LABELS, own=1)) == {
        "RSP-WS-001": "passed", "RSP-WS-002": "not-applicable", "RSP-WS-003": "passed"}


def test_a_socket_of_one_turn_does_not_pass_the_in_flight_rule() -> None:
    messages = [_create(1), *_server(1, [_created("resp_1"), _completed("resp_1")])]
    assert _outcomes(check_socket(messages, LABELS[:1], own=1))["RSP-WS-001"] == "not-applicable"


def test_a_second_response_in_flight_fails_ws001_naming_its_turn() -> None:
    labels = [LABELS[0], TurnLabel(2, 3, "first back to back"), TurnLabel(3, 3, "second back to back")]
    messages = [_create(1), *_server(1, [_created("resp_1"), _completed("resp_1")]), _create(2), _create(3),
                *_server(2, [_created("resp_2"), _created("resp_3", 0)]),
                *_server(3, [_completed("resp_3")], start=0), *_server(2, [_completed("resp_2", 2)], start=2)]
    result = {r.rule.id: r for r in check_socket(messages, labels, own=1)}["RSP-WS-001"]
    assert result.outcome == "failed"
    (violation,) = result.violations
    assert violation.message.startswith("turn 2 of 3, event #1: response.created ('resp_3') arrives while response "
                                        "'resp_2' (created on turn 2 of 3, event #0) is in flight")
    assert (violation.evidence.turn, violation.evidence.event_index, violation.evidence.offset) == (2, 1, None)


def test_the_flat_sse_error_event_fails_ws002_in_the_cases_own_turn_without_a_turn_in_its_evidence() -> None:
    flat = {"type": "error", "code": "response_already_in_flight", "message": "busy", "param": None}
    messages = [_create(1), *_server(1, [flat])]
    result = {r.rule.id: r for r in check_socket(messages, LABELS[:1], own=1)}["RSP-WS-002"]
    assert result.outcome == "failed"
    assert result.violations[0].message.startswith("turn 1 of 2, event #0: ")
    assert "flat SSE error event" in result.violations[0].message
    assert result.violations[0].evidence.turn is None  # the case's own answer: the timeline's stream


def test_a_continuation_that_does_not_echo_its_previous_response_fails_ws003() -> None:
    messages = [_create(1), *_server(1, [_created("resp_1"), _completed("resp_1")]),
                _create(2, previous_response_id="resp_1"), *_server(2, [_created("resp_2"), _completed("resp_2")])]
    result = {r.rule.id: r for r in check_socket(messages, LABELS, own=None)}["RSP-WS-003"]
    assert result.outcome == "failed"
    assert result.violations[0].message.startswith(
        "turn 2 of 2, event #0: response.previous_response_id is null but the client's response.create on turn 2 "
        "of 2 sent 'resp_1'")
    assert result.violations[0].evidence.turn == 2  # own=None: every turn is another than the case's own answer


def test_a_turns_violation_keeps_what_the_load_can_account_for() -> None:
    """A `loaded` violation (GW-STREAM-*, played again) stays loaded when it is named by its turn."""
    late = Violation("GW-STREAM-001", "late", Evidence(event_index=3), loaded=True)
    [result] = in_turn([RuleResult(RULES["GW-STREAM-001"], "failed", (late,), 1)], TurnLabel(2, 3, "one_call"))
    [named] = result.violations
    assert named.loaded and named.message == "turn 2 of 3 (one_call): late" and named.evidence.turn == 2
