"""Broken Responses WebSocket fronts of the reference gateway (examples/gateway/fronts/websocket.py), one defect
each, for `--front-transport websocket` (GW-WS-*; tests/harness/run/data/mutations.json). Each is a
`WebSocketFront` subclass; `tests.fakes.gateways` serves it as the gateway's WebSocket front (`--defect NAME`)."""

from __future__ import annotations

from examples.gateway.fronts.websocket import Connection, WebSocketFront
from examples.gateway.model import Json

__all__ = ["DEFECTS", "AnswersWhileInFlight", "ClosesOnUpstreamFailure", "DropsContinuation"]


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


DEFECTS: dict[str, type[WebSocketFront]] = {
    "ws_answers_while_in_flight": AnswersWhileInFlight,
    "ws_closes_on_upstream_failure": ClosesOnUpstreamFailure,
    "ws_drops_continuation": DropsContinuation,
}
