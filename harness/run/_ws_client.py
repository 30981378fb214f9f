"""A client over the Responses API's WebSocket mode (`--client-transport websocket`, docs/spec/websocket-clients.md):
the wire of a case is the mock's last WebSocket turn under its case tag, the server messages it sent (the journal's
body of the turn, one JSON message a line) read as the decoded events of a Responses stream (no SSE bytes: no
framing rule applies). A scenario whose point is SSE framing, or that replays raw SSE bytes, has nothing to play
over WebSocket and is not planned; the case's turns are CLI-016's and CLI-017's evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.check import SSEEvent
from callproof.harness.judge import Findings, WebSocketTurn, check_client_websocket, responses_call_item_ids
from callproof.harness.outcome import Result, result_of_events
from callproof.harness.scenario import Scenario, is_framing
from callproof.mock_server import Journal, JournalRequest

from ._client_wire import Wire, json_payload

__all__ = ["WebSocketWire", "websocket_events", "websocket_playable", "websocket_turns"]


def websocket_playable(scenario: Scenario) -> bool:
    """Whether a scenario means something over WebSocket: not raw SSE bytes, no SSE framing fault (the messages of a
    WebSocket turn are whole JSON texts: framing, keep-alive comments and fragmented writes do not exist there)."""
    return not scenario.raw and not any(is_framing(fault.kind) for fault in scenario.faults)


def websocket_events(body: bytes) -> list[SSEEvent]:
    """The server messages of a WebSocket turn (JSONL, one message a line, as the journal keeps them) as the events
    of a Responses stream: each message is one event, its type the message's `type`."""
    events: list[SSEEvent] = []
    offset = 0
    for line in body.split(b"\n"):
        end = offset + len(line) + 1
        text = line.decode("utf-8", "replace").strip()
        if text:
            payload = json_payload(text)
            kind = payload.get("type") if payload is not None else None
            events.append(SSEEvent(kind if isinstance(kind, str) and kind else "message", text, None, None, offset,
                                   end, 0.0, isinstance(kind, str) and bool(kind)))
        offset = end
    return events


def websocket_turns(journal: Journal, case: str) -> tuple[WebSocketTurn, ...]:
    """The case's WebSocket turns in the journal: each `response.create` the mock answered, with its connection,
    turn, arrival, the client's message and the server messages with the time each left (CLI-016, CLI-017)."""
    turns: list[WebSocketTurn] = []
    for request in journal.requests(case=case):
        connection, turn = getattr(request, "connection", None), getattr(request, "turn", None)
        if _transport(request) != "websocket" or not isinstance(connection, int) or not isinstance(turn, int):
            continue
        messages: list[tuple[float, dict[str, Any]]] = []
        for write in journal.writes(request.id):
            for line in write.data.split(b"\n"):
                payload = json_payload(line.decode("utf-8", "replace")) if line.strip() else None
                if payload is not None:
                    messages.append((write.time, payload))
        turns.append(WebSocketTurn(connection, turn, request.time, request.body, tuple(messages)))
    return tuple(turns)


def _refused_in_flight(body: bytes) -> bool:
    """Whether a WebSocket turn's messages are only the mock's `response_already_in_flight` error event."""
    payloads = [json_payload(e.data) for e in websocket_events(body)]
    if len(payloads) != 1 or payloads[0] is None or payloads[0].get("type") != "error":
        return False
    error = payloads[0].get("error")
    return isinstance(error, dict) and error.get("code") == "response_already_in_flight"


def _transport(request: object) -> str:
    value = getattr(request, "transport", None)
    return value if isinstance(value, str) else "http"




class WebSocketWire:
    """The client side of the websocket transport."""

    def playable(self, scenario: Scenario) -> bool:
        return websocket_playable(scenario)

    def read(self, journal: Journal, requests: Sequence[JournalRequest], dialect: Dialect) -> Wire:
        """The case's last answered WebSocket turn (an error naming what the adapter did where it has none)."""
        turns = [r for r in requests if _transport(r) == "websocket"]
        if not turns:
            return (Result("error", "", (), "no websocket turn", error=(
                f"the adapter called the mock over HTTP ({len(requests)} request(s)), not over WebSocket: in a "
                "--client-transport websocket run it must connect to $CALLPROOF_WS_URL/responses and send "
                "response.create")), (), len(requests), ())
        # a response.create refused because another was in flight answered nothing of the case (CLI-016 judges it)
        answered = [t for t in turns if not _refused_in_flight(journal.body_of(t.id))] or turns
        turn = answered[-1]
        events = websocket_events(journal.body_of(turn.id))
        sent = [p for p in (json_payload(e.data) for e in events) if p is not None]
        return (result_of_events(events, "responses"), tuple(responses_call_item_ids(sent)), len(requests),
                tuple(turn.faults))

    def turns(self, journal: Journal, case: str) -> tuple[WebSocketTurn, ...]:
        return websocket_turns(journal, case)

    def judge(self, findings: Findings, turns: Sequence[WebSocketTurn]) -> None:
        """CLI-016, CLI-017 on the case's turns."""
        check_client_websocket(findings, turns)
