"""A plan as the mock's WebSocket mode plays it (docs/mock.md#websocket-mode): the plan's events as JSON text
messages at their offsets (`TurnPlan`), an HTTP error answer as one `error` event, a scripted `close` fault
(`WS_FAULTS`) as the close after them; each turn's own response id; a message's `stream_id`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from callproof.harness.check import SSEParser
from callproof.harness.scenario import Scenario, fault_param

from ._inject import WS_FAULTS
from ._player import Plan

__all__ = ["Message", "TurnPlan", "error_event", "for_turn", "plan_error", "text_of", "turn_plan", "with_stream_id"]

#: The close code of a scripted close without a `close_code` (1011: the server met an unexpected condition).
_CLOSE_CODE = 1011


@dataclass(frozen=True, slots=True)
class Message:
    """One text message, `at` seconds after the turn's schedule starts: its UTF-8 bytes (encoded once per plan, the
    journal's write and the frame's payload alike)."""

    at: float
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode()


@dataclass(frozen=True, slots=True)
class TurnPlan:
    """A plan as a socket plays it: the messages in order, the offset the turn ends at, the close code when a
    fault closes the socket after them (None: the connection stays open), and the id of the response."""

    messages: tuple[Message, ...]
    end_at: float
    close_code: int | None = None
    close_reason: str = ""
    response_id: str | None = None
    #: The output items of the response's terminal event (a continuation's context).
    output: tuple[Any, ...] = ()


def error_event(status: int | None, code: str | None, message: str, *, kind: str = "invalid_request_error",
                 param: str | None = None, headers: Mapping[str, str] | None = None) -> str:
    """An `error` event of the WebSocket mode (openai-python's ResponseWsError)."""
    error: dict[str, Any] = {"type": kind, "code": code, "message": message, "param": param}
    if headers:
        error["headers"] = dict(headers)
    event: dict[str, Any] = {"type": "error", "error": error}
    if status is not None:
        event["status"] = status
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def plan_error(plan: Plan) -> str:
    """The error event standing for a plan that answers with an HTTP error (a refusal or an `http_error` fault):
    the error body's fields, its status, and its headers (Retry-After, rate limits)."""
    try:
        body = orjson.loads(plan.body or b"")
    except orjson.JSONDecodeError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    error = error if isinstance(error, dict) else {}
    message = error.get("message")
    headers = {k: v for k, v in plan.headers if not k.startswith("x-callproof-")}
    return error_event(plan.status, text_of(error.get("code")),
                        message if isinstance(message, str) else f"HTTP {plan.status} from the callproof mock",
                        kind=text_of(error.get("type")) or "server_error", param=text_of(error.get("param")),
                        headers=headers)


def text_of(value: object) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None


def turn_plan(plan: Plan, scenario: Scenario | None) -> TurnPlan:
    """`plan` as messages: each SSE event's data at the offset of the write that completes it; an HTTP error
    answer as one error event; a `close` fault (`WS_FAULTS`) closes the socket after the events."""
    if not plan.streamed:
        return TurnPlan((Message(plan.first_byte, plan_error(plan).encode()),), plan.first_byte)
    parser = SSEParser()
    messages: list[Message] = []
    for write in plan.writes:
        for event in parser.feed(write.data, write.at):
            if event.data != "[DONE]":
                messages.append(Message(write.at, event.data.encode()))
    closing = next((kind for kind in plan.faults if WS_FAULTS.get(kind) == "close"), None)
    code = None
    reason = ""
    if closing is not None:
        fault = next((f for f in scenario.faults if f.kind == closing), None) if scenario is not None else None
        value = fault_param(fault, "close_code") if fault is not None else None
        code = int(value) if value is not None else _CLOSE_CODE
        reason = f"callproof mock: scripted {closing} fault"
    return TurnPlan(tuple(messages), plan.end_at, code, reason, _response_id(messages[:4]), _output(messages[-1:]))


def for_turn(played: TurnPlan, connection: int, turn: int) -> TurnPlan:
    """`played` with a response id of its own: plans are cached and their ids derive from the scenario, so every turn
    of a scenario on a connection would name the same response (and a continuation its own previous response). The
    id becomes `<plan's id>_ws<connection>t<turn>`, deterministic, wherever it appears as a JSON string (the response
    object of every lifecycle event, `response_id` fields): one string replacement per pre-encoded message."""
    old = played.response_id
    if old is None:
        return played
    new = f"{old}_ws{connection}t{turn}"
    quoted, renamed = f'"{old}"'.encode(), f'"{new}"'.encode()
    messages = tuple(Message(m.at, m.data.replace(quoted, renamed)) if quoted in m.data else m
                     for m in played.messages)
    return replace(played, messages=messages, response_id=new)


def _response(data: bytes) -> dict[str, Any] | None:
    try:
        event = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    response = event.get("response") if isinstance(event, dict) else None
    return response if isinstance(response, dict) else None


def _response_id(messages: list[Message]) -> str | None:
    """The id of the response the messages stream (from the first event carrying the Response)."""
    for message in messages:
        response = _response(message.data)
        if response is not None and isinstance(response.get("id"), str):
            return str(response["id"])
    return None


def _output(messages: list[Message]) -> tuple[Any, ...]:
    """The output items of the terminal event among `messages`."""
    for message in messages:
        response = _response(message.data)
        if response is not None and isinstance(response.get("output"), list):
            return tuple(response["output"])
    return ()


def with_stream_id(data: bytes, stream_id: str) -> bytes:
    """The message with the `stream_id` of the `response.create` that started it (the WebSocket lane)."""
    try:
        event = orjson.loads(data)
    except orjson.JSONDecodeError:
        return data
    if not isinstance(event, dict):
        return data
    event["stream_id"] = stream_id
    return orjson.dumps(event)
