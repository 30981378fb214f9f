"""Which scenarios a socket of a gateway's Responses WebSocket front tests beyond its first turn
(docs/spec/gateway-websocket.md): an agent loop (continued with `previous_response_id`), an upstream failure (a
turn sent after it), the back-to-back creates of `IN_FLIGHT_SCENARIO`."""

from __future__ import annotations

from callproof.harness.scenario import Scenario, cut_kinds, http_error_fault

__all__ = ["FOLLOW_UP_SCENARIO", "IN_FLIGHT_SCENARIO", "SLOW_SCENARIO", "is_failure", "is_loop", "streamed",
           "websocket_applies"]

#: The scenario whose case sends two creates back to back (GW-WS-002): the first plays SLOW_SCENARIO (its first
#: token comes 300 ms after the upstream's head, so it is surely in flight), the second this one.
IN_FLIGHT_SCENARIO = "one_call"
SLOW_SCENARIO = "timing_ttft_and_gaps"
#: The turn sent after an upstream failure (GW-WS-003).
FOLLOW_UP_SCENARIO = "one_call"


def is_loop(scenario: Scenario) -> bool:
    return any(leg.requires is not None and leg.requires.tool_results for leg in scenario.legs)


def is_failure(scenario: Scenario) -> bool:
    return (not scenario.legs and (http_error_fault(scenario.faults) is not None or scenario.ending == "failed"
                                   or bool(cut_kinds(scenario.faults))))


def streamed(scenario: Scenario) -> bool:
    """A socket always streams: a scenario whose request asks for a non-stream body has nothing to send over one."""
    return scenario.request.get("stream", True) is not False


def websocket_applies(scenario: Scenario) -> bool:
    """Whether a scenario gets a `websocket` case over a WebSocket front."""
    return scenario.id == IN_FLIGHT_SCENARIO or is_loop(scenario) or is_failure(scenario)
