"""Broken Responses WebSocket fronts of the reference gateway (examples/gateway/fronts/websocket.py), one defect
each, for `--front-transport websocket` (GW-WS-*; tests/harness/run/data/mutations.json). Each is a
`WebSocketFront` subclass; `tests.fakes.gateways` serves it as the gateway's WebSocket front (`--defect NAME`)."""

from __future__ import annotations

import json

from starlette.websockets import WebSocket

from examples.gateway.fronts.responses import TERMINAL
from examples.gateway.fronts.websocket import Connection, OpenUpstream, WebSocketFront
from examples.gateway.model import Json

__all__ = [
    "DEFECTS", "AnswersWhileInFlight", "BreaksLaterTurns", "ClosesOnUpstreamFailure", "ContinuesSequence",
    "DropsContinuation", "FlatInFlightError",
]


class AnswersWhileInFlight(WebSocketFront):
    """Answers a second response.create at once while the first is in flight: two responses' events on one socket
    at the same time (GW-WS-002)."""

    def in_flight_error(self) -> Json | None:
        return None


class ClosesOnUpstreamFailure(WebSocketFront):
    """Sends the error event of an upstream failure (or response.failed), then closes the socket: the client's next
    response.create has nowhere to go (GW-WS-003)."""

    def close_after_failure(self) -> bool:
        return True


class DropsContinuation(WebSocketFront):
    """Accepts any previous_response_id and drops it: the stateless upstream gets only the new input, without the
    earlier turns' items (GW-WS-001)."""

    def continuation(self, connection: Connection, previous: str) -> list[Json] | Json:
        return []


class FlatInFlightError(WebSocketFront):
    """Refuses a second response.create while one is in flight with the flat SSE error event (`code`, `message`,
    `param` at the top, no `status`, no nested `error` object) instead of the WebSocket mode's error shape: the code
    is right, so GW-WS-002 passes; the transcript rule of the error's shape fails (RSP-WS-002)."""

    def in_flight_error(self) -> Json | None:
        return {"type": "error", "code": "response_already_in_flight", "param": None,
                "message": "A response is already in flight on this connection."}


def _events(messages: list[str]) -> list[Json]:
    return [json.loads(message) for message in messages]


class _Numbering(Connection):
    """A socket whose responses are numbered across the socket: each response's `sequence_number`s go on from the
    last response's terminal event instead of starting at 0."""

    base: int = 0

    async def send(self, messages: list[str]) -> bool:
        out = []
        for event in _events(messages):
            number = event.get("sequence_number")
            if isinstance(number, int):
                event["sequence_number"] = number + self.base
                if event.get("type") in TERMINAL.values():
                    self.base = event["sequence_number"] + 1
            out.append(json.dumps(event, separators=(",", ":")))
        return await super().send(out)


class ContinuesSequence(WebSocketFront):
    """Numbers the events of one socket with one counter: the second response of a socket starts its
    `sequence_number`s where the first ended, not at 0 (RSP-SEQ-002 on turn 2 of the socket alone; every first turn
    is right, so over HTTP, or judging each socket's first turn only, it passes)."""

    def connect(self, socket: WebSocket, open_upstream: OpenUpstream, authorization: str | None) -> Connection:
        return _Numbering(socket, self, open_upstream, authorization)


class _LaterTurnsBroken(Connection):
    """A socket whose second and later responses announce `response.in_progress` with a Response lacking `object`."""

    responses: int = 0

    async def send(self, messages: list[str]) -> bool:
        out = []
        for event in _events(messages):
            if event.get("type") == "response.created":
                self.responses += 1
            if self.responses >= 2 and event.get("type") == "response.in_progress":
                event["response"].pop("object", None)
            out.append(json.dumps(event, separators=(",", ":")))
        return await super().send(out)


class BreaksLaterTurns(WebSocketFront):
    """Streams the second and later responses of a socket with a `response.in_progress` event whose Response lacks
    the required `object` (RSP-SCHEMA-001 on the later turns of a socket alone: every first turn is right)."""

    def connect(self, socket: WebSocket, open_upstream: OpenUpstream, authorization: str | None) -> Connection:
        return _LaterTurnsBroken(socket, self, open_upstream, authorization)


DEFECTS: dict[str, type[WebSocketFront]] = {
    "ws_answers_while_in_flight": AnswersWhileInFlight,
    "ws_closes_on_upstream_failure": ClosesOnUpstreamFailure,
    "ws_drops_continuation": DropsContinuation,
    "ws_flat_in_flight_error": FlatInFlightError,
    "ws_continues_sequence": ContinuesSequence,
    "ws_breaks_later_turns": BreaksLaterTurns,
}
