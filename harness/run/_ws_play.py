"""Playing scenarios over a gateway's Responses WebSocket front (`--front-transport websocket`).

Each scenario is one socket: its request is the first turn (judged by every GW group planned for it, as an HTTP
answer is), and on the same socket the `websocket` case's evidence is gathered (docs/spec/gateway-websocket.md):

- an agent loop (a scenario whose legs require tool results): the next turn continues the first with
  `previous_response_id` and only the new input (the deterministic tool's `function_call_output` for every call),
  GW-WS-001 judges what reached the upstream (or the refusal);
- an upstream failure (an HTTP error fault, a cut stream, a failed ending): one more turn (`one_call`) on the same
  socket must be answered, GW-WS-003;
- `one_call`: two `response.create` messages back to back, GW-WS-002.

Every turn is recorded (`PlayedTurn`, the socket's `SocketPlay` with its transcript), and every one is judged as its
own stream too, the socket's messages by RSP-WS-001..003 (run/_ws_turns.py, docs/spec/gateway-websocket.md §6).

No SSE framing rule applies to a socket and there is no non-stream twin: the `framing` and `equivalence` groups are
not planned over WebSocket.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness.catalogue import Profile
from callproof.harness.check import ALREADY_IN_FLIGHT
from callproof.harness.judge import (
    REFUSAL_CODES,
    EarlierTurn,
    FrontAnswer,
    Refusal,
    error_code,
    read_answer,
)
from callproof.harness.request import tool_output
from callproof.harness.scenario import Scenario, case_marker

from ._http_exchange import Limits
from ._ws_exchange import Message, Socket, Turn, create_message, turn_exchange, ws_url
from ._ws_scenarios import FOLLOW_UP_SCENARIO, IN_FLIGHT_SCENARIO, SLOW_SCENARIO, is_failure, is_loop, websocket_applies

__all__ = ["PlayedTurn", "SocketPlay", "WebSocketEvidence", "WebSocketPlay", "split_back_to_back"]

@dataclass(frozen=True, slots=True)
class WebSocketEvidence:
    """What the `websocket` case judges: the continuation (GW-WS-001), the back-to-back creates (GW-WS-002), the
    turn after an upstream failure (GW-WS-003); None where the scenario does not test it."""

    continuation: tuple[EarlierTurn, Mapping[str, Any], Any, Refusal | None] | None = None
    in_flight: tuple[tuple[Mapping[str, Any] | None, ...], str | None, str | None] | None = None
    failure: tuple[tuple[Mapping[str, Any] | None, ...], str | None, tuple[Mapping[str, Any] | None, ...],
                   str | None] | None = None


@dataclass(frozen=True, slots=True)
class PlayedTurn:
    """One turn of a scenario's socket as played: the scenario whose request it sent (`leg`: the agent loop's leg it
    plays, whose expectation it has), why it was sent (`role`), its case tag, what came back. `own`: the case's own
    answer (judged as the run's answer). `fresh`: a request of its own, not a continuation (the translation rules
    read its upstream request). `refusable`: the `error` codes the mode allows instead of a response to it (the
    refusal of a second create while one is in flight, of a continuation): then no stream and no expectation."""

    scenario: str
    role: str
    turn: Turn
    case: str | None = None
    leg: int | None = None
    own: bool = False
    fresh: bool = True
    refusable: tuple[str, ...] = ()

    @property
    def refused(self) -> bool:
        """The turn was answered by an `error` event of a code the mode allows instead of a response."""
        first = self.turn.messages[0] if self.turn.messages else None
        return first is not None and first.type == "error" and error_code(first.event) in self.refusable


@dataclass(frozen=True, slots=True)
class SocketPlay:
    """One socket of a scenario: its turns in the order they were sent, and its transcript (every client message
    sent, every server message read, in that order)."""

    turns: tuple[PlayedTurn, ...]
    log: tuple[Mapping[str, Any] | Message, ...]


def _case(body: Mapping[str, Any]) -> str | None:
    return case_marker(json.dumps(body))


def split_back_to_back(messages: Sequence[Message]) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """The messages that answered two `response.create` sent back to back, as the two turns' (docs/spec/
    gateway-websocket.md §6): a `response_already_in_flight` error is the second's refusal; the rest, in order,
    the first's up to its terminal (or error) event, the second's after it. Two responses interleaved (GW-WS-002,
    RSP-WS-001) leave the second's first events in the first turn, whose stream then fails its lifecycle rules."""
    first: list[Message] = []
    second: list[Message] = []
    for message in messages:
        refusal = message.type == "error" and error_code(message.event) == ALREADY_IN_FLIGHT
        if refusal or (first and first[-1].ends_turn):
            second.append(message)
        else:
            first.append(message)
    return tuple(first), tuple(second)


def _events(messages: Sequence[Message]) -> tuple[Mapping[str, Any] | None, ...]:
    return tuple(m.event for m in messages)


@dataclass
class WebSocketPlay:
    """One scenario over one socket. `request` makes a scenario's request body with a fresh case tag;
    `upstream_after` the upstream request bodies the mock received since a time."""

    url: str
    headers: Mapping[str, str]
    timeout: float
    limits: Limits
    profile: Profile
    model: str
    upstream_dialect: str
    request: Callable[[str], dict[str, Any]]
    upstream_after: Callable[[float], list[Any]]
    has: Callable[[str], bool] = lambda scenario_id: True
    #: The (arrival, end) stamps of the upstream requests the mock journaled for a case tag (end None: still open).
    upstream_spans: Callable[[str], list[tuple[float, float | None]]] = lambda case: []

    def play(self, scenario: Scenario, body: Mapping[str, Any], *,
             own: bool = True) -> tuple[FrontAnswer | None, str | None, WebSocketEvidence | None, SocketPlay | None]:
        """The first turn's answer (or why there is none), the `websocket` case's evidence, and the socket's turns
        and transcript. `own`: the first turn is the case's own answer (an agent loop's socket replays its first
        leg only to continue it: every turn of it is another)."""
        socket = Socket(ws_url(self.url), self.headers, self.timeout, self.limits)
        if not socket.open():
            return None, socket.error, None, None
        turns: list[PlayedTurn] = []
        try:
            turn = socket.turn(create_message(body))
            role = "the scenario's request" if own else "the agent loop's first leg, replayed to be continued"
            turns.append(PlayedTurn(scenario.id, role, turn, _case(body), 0 if scenario.legs else None, own))
            exchange = turn_exchange(turn)
            if exchange.status is None:
                return (None, f"the IUT did not answer over WebSocket: {exchange.error or 'no message'}", None,
                        SocketPlay(tuple(turns), tuple(socket.log)))
            answer = read_answer(exchange, self.profile, "responses")
            evidence = None
            if websocket_applies(scenario) and turn.over_limit is None:
                evidence = self._evidence(scenario, socket, body, turn, turns)
            return answer, None, evidence, SocketPlay(tuple(turns), tuple(socket.log))
        finally:
            socket.close()

    def one_turn(self, body: Mapping[str, Any]) -> FrontAnswer | None:
        """One request over a socket of its own (the isolation case)."""
        socket = Socket(ws_url(self.url), self.headers, self.timeout, self.limits)
        try:
            if not socket.open():
                return None
            exchange = turn_exchange(socket.turn(create_message(body)))
            return None if exchange.status is None else read_answer(exchange, self.profile, "responses")
        finally:
            socket.close()

    def cancel(self, body: Mapping[str, Any], after: int, ready: Callable[[], bool]) -> tuple[float | None, int,
                                                                                             str | None]:
        """A cancellation over the socket (docs/spec/cancellation.md §1; GW-CANCEL-*): send `body`'s create, read
        `after` messages (0: none; then wait until `ready()` says the gateway's upstream request arrived), and close
        the socket. (the close's monotonic instant, the messages read, None), or (None, read, why no close was
        made: the upgrade failed, the socket closed or went silent first)."""
        socket = Socket(ws_url(self.url), self.headers, self.timeout, self.limits)
        if not socket.open():
            return None, 0, socket.error
        try:
            sent = socket.send(create_message(body))
            deadline = sent + self.timeout
            read = 0
            while read < after:
                got = socket.read(deadline - time.monotonic())
                if got is None or isinstance(got, str):
                    return None, read, got or f"fewer than {after} messages within {self.timeout:g} s"
                read += 1
            while after == 0 and not ready():
                if time.monotonic() > deadline:
                    return None, 0, f"the gateway did not call its upstream within {self.timeout:g} s"
                time.sleep(0.002)
            closed = time.monotonic()
        finally:
            socket.close()
        return closed, read, None

    def _evidence(self, scenario: Scenario, socket: Socket, body: Mapping[str, Any], turn: Turn,
                  turns: list[PlayedTurn]) -> WebSocketEvidence:
        continuation = in_flight = failure = None
        if is_loop(scenario):
            continuation = self._continue(socket, scenario, body, turn, turns)
        if is_failure(scenario):
            request = create_message(self.request(FOLLOW_UP_SCENARIO))
            follow = socket.turn(request) if not socket.closed else \
                Turn(socket.url, request, time.monotonic(), (), socket.error or "the gateway had closed the socket")
            turns.append(PlayedTurn(FOLLOW_UP_SCENARIO, f"{FOLLOW_UP_SCENARIO}, sent after the failed turn", follow,
                                    _case(request)))
            failure = (_events(turn.messages), turn.error, _events(follow.messages), follow.error)
        if scenario.id == IN_FLIGHT_SCENARIO:
            in_flight = self._back_to_back(socket, turns)
        return WebSocketEvidence(continuation, in_flight, failure)

    def _continue(self, socket: Socket, scenario: Scenario, body: Mapping[str, Any], turn: Turn,
                  turns: list[PlayedTurn]) -> tuple[EarlierTurn, Mapping[str, Any], Any, Refusal | None] | None:
        response = turn.response
        if response is None or not isinstance(response.get("id"), str):
            return None  # the first turn did not end in a response: the other groups say why
        output = tuple(item for item in response.get("output") or [] if isinstance(item, dict))
        calls = [item for item in output if item.get("type") == "function_call"]
        items = [{"type": "function_call_output", "call_id": call.get("call_id"),
                  "output": tool_output(str(call.get("name")), str(call.get("arguments") or ""),
                                        str(call.get("call_id"))).output} for call in calls]
        message = create_message({"model": body.get("model", self.model), "tools": body.get("tools", []),
                                  "input": items}, previous_response_id=response["id"])
        message = {key: value for key, value in message.items() if key != "tools" or value}
        second = socket.turn(message)
        turns.append(PlayedTurn(scenario.id, f"the continuation of turn {len(turns)}: previous_response_id and the "
                                "tool outputs", second, _case(body), 1 if len(scenario.legs) > 1 else None,
                                fresh=False, refusable=REFUSAL_CODES))
        upstream = self.upstream_after(second.sent)
        first = second.messages[0].event if second.messages else None
        refusal = Refusal(None, dict(first)) if first is not None and first.get("type") == "error" else None
        earlier = EarlierTurn(body, output, response["id"])
        return earlier, message, upstream[-1] if upstream else None, refusal

    def _back_to_back(self, socket: Socket,
                      turns: list[PlayedTurn]) -> tuple[tuple[Mapping[str, Any] | None, ...], str | None, str | None]:
        """Two creates sent at once: the messages until both are answered (two ends), the socket closes or the
        case timeout passes; why there are no more; what the mock's journal shows (`_overlap`). Each create is a
        turn of the socket (`split_back_to_back`)."""
        if socket.closed:
            return (), socket.error or "the gateway had closed the socket", None
        slow = SLOW_SCENARIO if self.has(SLOW_SCENARIO) else IN_FLIGHT_SCENARIO
        first = create_message(self.request(slow))
        second = create_message(self.request(IN_FLIGHT_SCENARIO))
        sent = socket.send(first)
        socket.send(second)
        messages, closed, timed_out = self._answers(socket, sent + self.timeout)
        ones, twos = split_back_to_back(messages)
        number = len(turns) + 1
        for scenario, body, got, role in (
                (slow, first, ones, f"{slow}, the first of two creates sent back to back"),
                (IN_FLIGHT_SCENARIO, second, twos,
                 f"{IN_FLIGHT_SCENARIO}, sent back to back while turn {number} was in flight")):
            ended = bool(got) and got[-1].ends_turn
            turns.append(PlayedTurn(scenario, role, Turn(socket.url, body, sent, got, None if ended else closed,
                                                         timed_out and not ended),
                                    _case(body), refusable=(ALREADY_IN_FLIGHT,) if body is second else ()))
        overlap = self._overlap(case_marker(json.dumps(first)), case_marker(json.dumps(second)))
        return _events(messages), closed, overlap

    def _overlap(self, first_case: str | None, second_case: str | None) -> str | None:
        """The journal's evidence that the second create was answered while the first was in flight: its upstream
        request arrived before the first's had ended. It does not depend on the order of the socket's events (on a
        loaded machine the quick second answer can end before the slow first one's events begin)."""
        first = self.upstream_spans(first_case) if first_case else []
        second = self.upstream_spans(second_case) if second_case else []
        if not first or not second:
            return None  # refused (no upstream request), or no evidence: the socket's events decide
        arrived, (began, ended) = second[0][0], first[0]
        if ended is not None and arrived >= ended:
            return None  # held until the first ended: queued, never in flight together
        until = "was still open" if ended is None else f"ended {(ended - arrived) * 1000:.1f} ms after it"
        return (f"the mock's journal shows the second response.create's upstream request arriving at {arrived:.4f} "
                f"while the first's (arrived at {began:.4f}) {until}: the second was answered in flight")

    def _answers(self, socket: Socket, deadline: float) -> tuple[tuple[Message, ...], str | None, bool]:
        """The messages until two ends; why there are no more (None: both ended); whether the case timeout passed."""
        messages: list[Message] = []
        ends = 0
        while ends < 2:
            got = socket.read(deadline - time.monotonic())
            if got is None:
                return tuple(messages), f"no more messages within the case timeout of {self.timeout:g} s", True
            if isinstance(got, str):
                return tuple(messages), got, False
            messages.append(got)
            ends += got.ends_turn
        return tuple(messages), None, False


