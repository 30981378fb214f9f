"""Client rules of the Responses WebSocket mode (CLI-016, CLI-017), judged from the mock's journal: the
`response.create` messages the client sent on each connection (`WebSocketTurn`: when each arrived, what it said,
what the mock sent back and when). docs/spec/websocket-clients.md §2, §3.

- CLI-016 (MUST): one response in flight per connection. A `response.create` that reached the mock on a connection
  before the previous response on it sent its terminal event breaks it; so does one the mock refused with the error
  code `response_already_in_flight` (whichever turn's messages carry that error event).
- CLI-017 (SHOULD): the `response.create` envelope: no `stream` (every response streams over WebSocket, and the SDK
  says not to send it) and no `background` (not supported over WebSocket).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from callproof.harness._types import JSONData
from callproof.harness.catalogue import Evidence

from ._findings import Findings

__all__ = ["IN_FLIGHT_CODE", "WebSocketTurn", "check_client_websocket", "in_flight_error"]

#: The error code of a `response.create` sent while a response is in flight on the connection.
IN_FLIGHT_CODE = "response_already_in_flight"
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed", "error"})
#: Fields a `response.create` over WebSocket does not carry (docs/spec/websocket-clients.md §3).
_NOT_SENT = {"stream": "every response streams over WebSocket; the SDK says not to send it",
             "background": "background responses are not supported over WebSocket"}


@dataclass(frozen=True, slots=True)
class WebSocketTurn:
    """One `response.create` the mock answered on a WebSocket: its connection and 0-based turn on it, when it
    arrived (`time`, the mock's clock), the client's message (`body`) and the server messages sent for it
    (`messages`: each with the clock time it left)."""

    connection: int
    turn: int
    time: float
    body: JSONData
    messages: tuple[tuple[float, Mapping[str, Any]], ...] = ()

    def terminal_time(self) -> float | None:
        """When the response's terminal event (or an error event ending it) left, else None (cut short)."""
        for at, message in self.messages:
            if message.get("type") in _TERMINAL and not in_flight_error(message):
                return at
        return None


def in_flight_error(message: Mapping[str, Any]) -> bool:
    """Whether a server message is the `response_already_in_flight` error event (the code at the top level or
    in its `error` object)."""
    if message.get("type") != "error":
        return False
    error = message.get("error")
    code = error.get("code") if isinstance(error, Mapping) else None
    return IN_FLIGHT_CODE in (code, message.get("code"))


def check_client_websocket(findings: Findings, turns: Sequence[WebSocketTurn]) -> None:
    """CLI-016 and CLI-017 on the WebSocket turns of one case (none: nothing to judge, neither rule checked)."""
    if not turns:
        return
    findings.check("CLI-016", "CLI-017")
    for turn in turns:
        for index, (_, message) in enumerate(turn.messages):
            if in_flight_error(message):
                findings.fail("CLI-016", f"the client sent a response.create on connection {turn.connection} while "
                              f"a response was in flight there; the mock refused it with {IN_FLIGHT_CODE} (message "
                              f"#{index} of turn {turn.turn}). Wait for the terminal event (response.completed, "
                              "response.incomplete, response.failed or error) before the next response.create",
                              Evidence(event_index=index, event_type="error", path="$.error.code",
                                       expected="no such error", actual=IN_FLIGHT_CODE))
    by_connection: dict[int, list[WebSocketTurn]] = {}
    for turn in turns:
        by_connection.setdefault(turn.connection, []).append(turn)
    for connection, its in by_connection.items():
        ordered = sorted(its, key=lambda t: t.turn)
        for before, after in pairwise(ordered):
            ended = before.terminal_time()
            if ended is not None and after.time < ended:
                findings.fail("CLI-016", f"turn {after.turn} on connection {connection}: the client sent its "
                              f"response.create {ended - after.time:.3f} s before turn {before.turn}'s response "
                              "sent its terminal event; one response is in flight per connection: wait for it, or "
                              "open another connection", Evidence(path=f"connection {connection} turn {after.turn}",
                                                                  expected="after the previous terminal event",
                                                                  actual="while the previous response streamed"))
    for turn in turns:
        if not isinstance(turn.body, Mapping):
            continue
        for field, why in _NOT_SENT.items():
            if field in turn.body:
                findings.fail("CLI-017", f"the response.create of turn {turn.turn} on connection {turn.connection} "
                              f"carries {field}: {turn.body[field]!r} ({why}); leave {field} out of the message",
                              Evidence(path=f"$.{field}", expected="absent", actual=turn.body[field]))
