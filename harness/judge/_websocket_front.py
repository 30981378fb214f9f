"""A gateway's Responses WebSocket front (GW-WS-*, docs/spec/gateway-websocket.md): what the harness saw on a
socket, as plain events in arrival order (each a JSON object, or None for a message that is not one), judged
without the socket: a second `response.create` is not answered while one is in flight (GW-WS-002), an
upstream failure ends the turn in an event and leaves the socket serving (GW-WS-003). Continuations (GW-WS-001)
are judged by `check_continuation` (stateful.py), the same judge as GW-STATE-001 over HTTP."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import Evidence

from ._findings import Findings

__all__ = ["WS_RULES", "check_ws_failure", "check_ws_in_flight", "error_code"]

WS_RULES = ("GW-WS-001", "GW-WS-002", "GW-WS-003")
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")
Event = Mapping[str, Any] | None


def _type(event: Event) -> str | None:
    value = event.get("type") if event is not None else None
    return value if isinstance(value, str) else None


def error_code(event: Event) -> str | None:
    """The code of an `error` event (`error.code`, or a top-level `code`), or None."""
    if _type(event) != "error" or event is None:
        return None
    error = event.get("error")
    code = error.get("code") if isinstance(error, Mapping) else event.get("code")
    return code if isinstance(code, str) else None


def check_ws_in_flight(findings: Findings, events: Sequence[Event], closed: str | None,
                       overlap: str | None = None) -> None:
    """GW-WS-002. `events`: everything the socket sent after two `response.create` messages sent back to back;
    `overlap`: the mock journal's evidence, when it has some, that the second reached the upstream while the first's
    upstream request was open. Pass: the second got an `error` event with code `response_already_in_flight`, or its
    response began only after the first's terminal event. Fail: the journal's overlap, two responses began before the
    first ended, the second got another error code, or it got nothing."""
    findings.check("GW-WS-002")
    if overlap is not None:
        findings.fail("GW-WS-002", overlap, Evidence(path="$.type", expected="error response_already_in_flight",
                                                     actual="a second response"))
        return
    started = 0
    first_ended = False
    for index, event in enumerate(events):
        kind = _type(event)
        if kind == "response.created":
            started += 1
            if started == 2 and not first_ended:
                findings.fail("GW-WS-002", f"event #{index} starts a second response while the first is in flight "
                              "(its terminal event had not come): the gateway answered the second response.create "
                              "at once", Evidence(event_index=index, event_type=kind, path="$.type",
                                                  expected="error response_already_in_flight", actual=kind))
                return
        elif kind == "error":
            code = error_code(event)
            if code == "response_already_in_flight":
                return
            if started >= 1:
                findings.fail("GW-WS-002", f"event #{index}: an error event with code {code!r} while a response "
                              "was in flight; the documented refusal is response_already_in_flight",
                              Evidence(event_index=index, event_type=kind, path="$.error.code",
                                       expected="response_already_in_flight", actual=code))
                return
        elif kind in _TERMINAL:
            if first_ended and started >= 2:
                return  # the second answered after the first: queued, never in flight together
            first_ended = True
    findings.fail("GW-WS-002", "the second response.create got no answer (no error event, no response) "
                  f"({closed or 'within the case timeout'}): a client waits for it forever",
                  Evidence(event_index=len(events) - 1 if events else None, path="$.type",
                           expected="error response_already_in_flight", actual=None))


def check_ws_failure(
    findings: Findings, events: Sequence[Event], closed: str | None, follow_up: Sequence[Event],
    follow_closed: str | None,
) -> None:
    """GW-WS-003. `events`: the answer to a turn whose upstream failed (an HTTP error, a cut stream); `follow_up`:
    the answer to one more `response.create` on the same socket. Pass: the turn ended in an `error` event or
    `response.failed` and the follow-up got an answer to its end. Fail: the socket closed instead."""
    findings.check("GW-WS-003")
    last = events[-1] if events else None
    if _type(last) not in ("error", "response.failed", "response.completed", "response.incomplete"):
        findings.fail("GW-WS-003", f"the turn whose upstream failed ended without an error event or response.failed: "
                      f"{closed or 'no terminal event'}", Evidence(
                          event_index=len(events) - 1 if events else None, event_type=_type(last), path="$.type",
                          expected="error or response.failed, the socket kept open", actual=closed))
        return
    end = follow_up[-1] if follow_up else None
    if _type(end) not in (*_TERMINAL, "error"):
        findings.fail("GW-WS-003", "after the upstream failure the socket no longer answers: the next "
                      f"response.create got {len(follow_up)} message(s) and {follow_closed or 'no terminal event'}",
                      Evidence(event_index=len(follow_up) - 1 if follow_up else None, event_type=_type(end),
                               path="$.type", expected="a terminal event for the next response", actual=follow_closed))
