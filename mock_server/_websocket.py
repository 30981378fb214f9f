"""The Responses API's WebSocket mode in the mock (docs/mock.md#websocket-mode): a WebSocket upgrade on any path ending
/responses; each `response.create` message (the body of POST /v1/responses minus `stream`) is answered like a
streamed POST, by the same steps (`Upstream.decide`: selection, a sequence's next leg, the plan, holds), and the
plan's events go out as JSON text messages at their scheduled offsets: the same events, order and timing as the SSE
rendering (keep-alive comments and `[DONE]` are not messages).

The mode's rules: one response in flight per connection (a `response.create` meanwhile gets an error event
`response_already_in_flight` and the first response goes on); `previous_response_id` must name the connection's last
completed response (else `previous_response_not_found`); `generate: false` answers with a response without output;
the connection ends after a time limit (`websocket_connection_limit_reached`, then close 1000); a message that is
not JSON or of an unknown type gets an error event and the connection stays open. How each fault kind plays over a
socket is the table `WS_FAULTS`, beside the injectors (mock_server/_inject.py). Each `response.create` is one
journal request (`Journal.log_turn`): its messages are its writes (one JSON line each), and a turn cut by the client
closing ends `cancelled`.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import orjson
from anyio.abc import TaskGroup
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from callproof.harness.scenario import Expect, Scenario

from ._inject import WS_FAULTS
from ._journal import Outcome, case_tag
from ._player import SSE_MEDIA_TYPE, Plan, Write
from ._sequences import SESSION_HEADER
from ._upstream import Decision, Upstream, json_object
from ._ws_protocol import SEND_MANY
from ._ws_turn_plan import Message, TurnPlan, error_event, for_turn, plan_error, text_of, turn_plan, with_stream_id
from .dialects import RenderContext, Renderer

__all__ = ["DEFAULT_CONNECTION_LIMIT", "WS_FAULTS", "Message", "TurnPlan", "WebSocketMode", "turn_plan"]

#: Seconds a connection may stay open (OpenAI's limit is 60 minutes); `create_app(ws_connection_limit=...)`.
DEFAULT_CONNECTION_LIMIT = 3600.0

#: Plans whose messages are kept (a plan comes from the plan cache, so the same plan is met again).
_TURN_CACHE = 256

#: A `generate: false` turn plays this: a response without output (response.created, in_progress, completed).
_WARMUP = Scenario("websocket_warmup", "websocket", "generate: false: the response prepares state, no output",
                   (), (), {}, Expect("completed"))


def _input_items(request: Mapping[str, Any]) -> list[Any]:
    """A request's `input` as a list of items (a string is one user message)."""
    value = request.get("input")
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return list(value) if isinstance(value, list) else []


class WebSocketMode:
    """The WebSocket endpoint of the mock: an ASGI app for `websocket` scopes, sharing the upstream's state
    (scenarios, sequences, plan cache, holds, journal, clock)."""

    def __init__(self, upstream: Upstream, renderer: Renderer | None, *,
                 connection_limit: float = DEFAULT_CONNECTION_LIMIT) -> None:
        if connection_limit <= 0:
            raise ValueError(f"the WebSocket connection limit must be positive, got {connection_limit}")
        self.upstream = upstream
        self.renderer = renderer
        self.connection_limit = connection_limit
        self._ids = itertools.count(1)
        self._turns: OrderedDict[int, tuple[Plan, TurnPlan]] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not await _connected(receive):
            return
        await send({"type": "websocket.accept"})
        if self.renderer is None:
            await send({"type": "websocket.close", "code": 1011, "reason": "the responses dialect is not available"})
            return
        await _Connection(self, scope, receive, send, next(self._ids), self.renderer).run()

    def turn_plan(self, plan: Plan, scenario: Scenario | None) -> TurnPlan:
        """`turn_plan(plan)`, kept per plan object (plans come from the upstream's plan cache)."""
        key = id(plan)
        kept = self._turns.get(key)
        if kept is not None and kept[0] is plan:
            return kept[1]
        made = turn_plan(plan, scenario)
        self._turns[key] = (plan, made)
        if len(self._turns) > _TURN_CACHE:
            self._turns.popitem(last=False)
        return made


async def refuse(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
    """A WebSocket upgrade the mock does not serve: accepted, then closed with 1008 (policy violation) and
    `reason`, so the client reads why."""
    if await _connected(receive):
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})


async def _connected(receive: Receive) -> bool:
    message = await receive()
    return bool(message["type"] == "websocket.connect")


@dataclass(slots=True)
class _Turn:
    request_id: int
    scope: anyio.CancelScope
    outcome: Outcome = "cancelled"
    ended: bool = False


class _Connection:
    """One socket: reads client messages, plays one turn at a time, enforces the time limit."""

    def __init__(self, mode: WebSocketMode, scope: Scope, receive: Receive, send: Send, ident: int,
                 renderer: Renderer) -> None:
        self.mode = mode
        self.upstream = mode.upstream
        self.scope = scope
        self.receive = receive
        self._send = send
        self.id = ident
        self.renderer = renderer
        self.headers = Headers(scope=scope)
        self.batched = SEND_MANY in (scope.get("extensions") or {})
        self.turns = 0
        self.active: _Turn | None = None
        self.last_response: str | None = None
        #: The items of the conversation up to and including the last response: its context for a continuation.
        self.history: list[Any] = []
        self.case: str | None = None
        self._pending_history: list[Any] = []
        self.closed = False

    async def run(self) -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._limit, tasks)
            await self._read(tasks)
            tasks.cancel_scope.cancel()

    async def send_text(self, text: str) -> bool:
        """Send one message; False when the socket is gone."""
        if self.closed:
            return False
        try:
            # No lock: uvicorn writes each message whole once the transport is writable, so tasks sending at once
            # never interleave frames (and an uncontended lock would still cost a loop iteration per message).
            await self._send({"type": "websocket.send", "text": text})
        except OSError:
            self.closed = True
            return False
        return True

    async def send_encoded(self, datas: list[bytes]) -> bool:
        """Send text messages due at once, given as their UTF-8 bytes: in one write where the server offers it
        (`_ws_protocol.SEND_MANY`), else one by one; False when the socket is gone."""
        if not self.batched:
            for data in datas:
                if not await self.send_text(data.decode()):
                    return False
            return True
        if self.closed:
            return False
        try:
            await self._send({"type": "websocket.send", "utf8": datas})
        except OSError:
            self.closed = True
            return False
        return True

    async def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):  # the client went first
            await self._send({"type": "websocket.close", "code": code, "reason": reason})

    async def _read(self, tasks: TaskGroup) -> None:
        while True:
            message = await self.receive()
            if message["type"] == "websocket.disconnect":
                self.closed = True
                if self.active is not None:
                    self.active.scope.cancel()  # the turn ends `cancelled` (unless it had ended)
                return
            text = message.get("text")
            if text is None:
                data = message.get("bytes") or b""
                text = data.decode("utf-8", "replace")
            await self._on_message(text, tasks)

    async def _on_message(self, text: str, tasks: TaskGroup) -> None:
        body, problem = json_object(text.encode("utf-8", "replace"))
        if body is None:
            await self.send_text(error_event(400, "invalid_json", problem.replace("request", "message")))
            return
        kind = body.get("type")
        if kind != "response.create":
            await self.send_text(error_event(
                400, "unknown_event_type" if isinstance(kind, str) else "missing_event_type",
                f"Unknown client event type {kind!r}: the mock's WebSocket mode answers `response.create` "
                "(`callproof docs mock#websocket-mode`).", param="type"))
            return
        await self._create(text, body, tasks)

    async def _create(self, text: str, body: dict[str, Any], tasks: TaskGroup) -> None:
        start = self.upstream.clock.now()
        turn = self.turns
        self.turns += 1
        previous = text_of(body.get("previous_response_id"))
        # A continuation without a case tag belongs to the conversation's case.
        case = case_tag(text) or (self.case if previous is not None else None)
        request = {k: v for k, v in body.items() if k not in ("type", "stream_id", "generate")}
        log = {"time": start, "path": self.scope["path"], "headers": self.headers.items(), "body": body,
               "connection": self.id, "turn": turn, "case": case, "previous_response_id": previous}
        if self.active is not None:
            await self._refuse(log, 400, "response_already_in_flight",
                               "A response is already in flight on this connection: wait for its terminal event "
                               "(one response at a time per WebSocket connection).")
            return
        if previous is not None and previous != self.last_response:
            known = f"; the last one on this connection is {self.last_response!r}" if self.last_response else (
                "; no response has completed on this connection")
            await self._refuse(log, 400, "previous_response_not_found",
                               f"Previous response with id {previous!r} not found{known}.",
                               param="previous_response_id")
            return
        if previous is not None:
            # A continuation: the response answers the whole conversation (selection, `requires`, match blocks see
            # the earlier turns' items, as a server holding the connection's state would).
            request["input"] = [*self.history, *_input_items(request)]
            text = orjson.dumps(request).decode()
        self._pending_history = _input_items(request)
        if body.get("generate") is False:
            decision = Decision(self._warmup(request, turn), _WARMUP.id, "generate: false", None, start, _WARMUP)
        else:
            session = self.headers.get(SESSION_HEADER, "").strip() or case or f"websocket connection {self.id}"
            decision = await self.upstream.decide(self.headers, text, request, self.renderer, case, stream=True,
                                                  session=session)
        plan = decision.plan
        if decision.begin is None:
            await self._refuse(log, plan.status, None, "", event=plan_error(plan), scenario=decision.scenario,
                               how=decision.how, leg=decision.leg)
            return
        played = for_turn(self.mode.turn_plan(plan, decision.played), self.id, turn)
        self.case = case
        request_id = self.upstream.journal.log_turn(**log, status=plan.status, scenario=decision.scenario,
                                                    faults=plan.faults, start=decision.begin, how=decision.how,
                                                    leg=decision.leg)
        self.active = _Turn(request_id, anyio.CancelScope())
        tasks.start_soon(self._play, self.active, played, decision.begin, text_of(body.get("stream_id")))

    def _warmup(self, request: dict[str, Any], turn: int) -> Plan:
        """The plan of a `generate: false` turn: a response without output, its id unique to the connection."""
        model = request.get("model")
        ctx = RenderContext(seed=f"callproof-ws-{self.id}-{turn}",
                            model=model if isinstance(model, str) and model else "callproof-mock", request=request)
        frames = self.renderer.stream(_WARMUP, ctx).frames
        return Plan(200, (), SSE_MEDIA_TYPE, writes=tuple(Write(0.0, f.data) for f in frames))

    async def _refuse(self, log: dict[str, Any], status: int, code: str | None, message: str, *,
                      param: str | None = None, event: str | None = None, scenario: str | None = None,
                      how: str | None = None, leg: int | None = None) -> None:
        """Answer a `response.create` with an error event (journaled like a refused request)."""
        journal, clock = self.upstream.journal, self.upstream.clock
        request_id = journal.log_turn(**log, status=status, scenario=scenario, how=how, leg=leg)
        text = event if event is not None else error_event(status, code, message, param=param)
        journal.record_write(request_id, text.encode() + b"\n", clock.now())
        journal.record_end(request_id, "completed", clock.now())
        await self.send_text(text)

    async def _play(self, turn: _Turn, played: TurnPlan, begin: float, stream_id: str | None) -> None:
        journal, clock = self.upstream.journal, self.upstream.clock

        def end(outcome: Outcome) -> None:
            turn.outcome, turn.ended = outcome, True
            journal.record_end(turn.request_id, outcome, clock.now())

        try:
            with turn.scope:
                messages = played.messages
                finish = begin + played.end_at
                i = 0
                while i < len(messages):  # the messages due at the same instant, sent together
                    at = messages[i].at
                    j = i + 1
                    while j < len(messages) and messages[j].at == at:
                        j += 1
                    due = begin + at
                    await clock.sleep_until(due)
                    datas = [m.data if stream_id is None else with_stream_id(m.data, stream_id) for m in messages[i:j]]
                    journal.record_writes(turn.request_id, [data + b"\n" for data in datas], clock.now())
                    if j == len(messages) and played.close_code is None and finish <= due:
                        end("completed")
                        self._done(played)
                    if not await self.send_encoded(datas):
                        return
                    i = j
                if turn.ended:
                    return
                await clock.sleep_until(finish)
                if played.close_code is not None:
                    end("aborted")
                    self.active = None
                    await self.close(played.close_code, played.close_reason)
                    return
                end("completed")
                self._done(played)
        finally:
            if not turn.ended:
                journal.record_end(turn.request_id, turn.outcome, clock.now())
            if self.active is turn:
                self.active = None

    def _done(self, played: TurnPlan) -> None:
        """The turn's response completed: it is the one a continuation names, and the next turn may start."""
        if played.response_id is not None:
            self.last_response = played.response_id
            self.history = [*self._pending_history, *played.output]
        self.active = None

    async def _limit(self, tasks: TaskGroup) -> None:
        """After the connection limit: the error event, the turn in flight ended, and close 1000."""
        await anyio.sleep(self.mode.connection_limit)
        turn = self.active
        if turn is not None:
            turn.outcome = "aborted"
            turn.scope.cancel()
        await self.send_text(error_event(
            400, "websocket_connection_limit_reached",
            f"Responses WebSocket connection limit reached ({self.mode.connection_limit:g} s). Create a new "
            "WebSocket connection to continue."))
        await self.close(1000, "websocket_connection_limit_reached")
