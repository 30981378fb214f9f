"""GW-WS-002 and GW-WS-003 on fixed socket events (no socket, no clock): two creates sent back to back are refused
or queued, never answered together (the mock journal's overlap decides whatever order the events came in), and an
upstream failure ends the turn, not the socket."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.judge import Findings, check_ws_failure, check_ws_in_flight

Event = Mapping[str, Any] | None

REFUSAL = {"type": "error", "error": {"type": "invalid_request_error", "code": "response_already_in_flight",
                                      "message": "A response is already in flight on this connection."}}
OVERLAP = "the mock's journal shows the second response.create's upstream request arriving while the first's was open"


def _response(n: int) -> list[Event]:
    return [{"type": "response.created", "response": {"id": f"resp_{n}"}},
            {"type": "response.output_text.delta", "delta": "hi"},
            {"type": "response.completed", "response": {"id": f"resp_{n}"}}]


def _in_flight(events: Sequence[Event], closed: str | None = None, overlap: str | None = None) -> tuple[str, str]:
    findings = Findings()
    check_ws_in_flight(findings, events, closed, overlap)
    (result,) = findings.results()
    return result.outcome, " ".join(v.message for v in result.violations)


def test_a_refused_second_create_passes() -> None:
    events = [*_response(1)[:2], REFUSAL, _response(1)[2]]
    assert _in_flight(events) == ("passed", "")


def test_a_second_create_held_until_the_first_ends_passes() -> None:
    assert _in_flight([*_response(1), *_response(2)]) == ("passed", "")


def test_two_responses_in_flight_together_fail() -> None:
    first, second = _response(1), _response(2)
    outcome, message = _in_flight([first[0], second[0], first[1], second[1], first[2], second[2]])
    assert outcome == "failed" and "event #1 starts a second response while the first is in flight" in message


def test_the_journals_overlap_fails_a_stream_whose_order_looks_queued() -> None:
    """On a loaded machine the quick second answer can end before the slow first one's events begin: the socket's
    order looks queued, the upstream journal shows both requests open together."""
    outcome, message = _in_flight([*_response(2), *_response(1)], overlap=OVERLAP)
    assert (outcome, message) == ("failed", OVERLAP)


def test_no_answer_to_the_second_create_fails() -> None:
    outcome, message = _in_flight(_response(1), "the gateway closed the socket")
    assert outcome == "failed" and "the second response.create got no answer" in message


def test_an_upstream_failure_that_closes_the_socket_fails_gw_ws_003() -> None:
    failed = [{"type": "response.created", "response": {"id": "resp_1"}},
              {"type": "response.failed", "response": {"id": "resp_1", "status": "failed"}}]
    findings = Findings()
    check_ws_failure(findings, failed, None, (), "the gateway closed the socket (code 1011)")
    assert [r.outcome for r in findings.results()] == ["failed"]
    findings = Findings()
    check_ws_failure(findings, failed, None, _response(2), None)
    assert [r.outcome for r in findings.results()] == ["passed"]
