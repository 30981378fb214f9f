"""What every front dialect provides: its path, its request parsed into a neutral `Request`, neutral events
rendered as its stream (one write per upstream event, never buffered) and as its non-stream body, and errors in
its error shape.

A front keeps what one answer accumulates in a per-request state object (its "turn") that its methods take as
their first argument: the front object itself is stateless and shared by all requests.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any, ClassVar, Generic, TypeVar

from starlette.responses import JSONResponse, Response

from ..guard import ArgumentsGuard
from ..model import (
    Annotation,
    ArgumentsDelta,
    CallDone,
    CallStart,
    Event,
    Finish,
    FinishReason,
    Json,
    OpaqueEvent,
    ReasoningDelta,
    ReasoningDone,
    ReasoningStart,
    RefusalDelta,
    Request,
    TextDelta,
    UpstreamCut,
    UpstreamError,
    UpstreamHTTPError,
    Usage,
    UsageUpdate,
)

__all__ = ["Front", "RequestShapeError", "TurnT", "number", "tool_name"]

log = logging.getLogger("gateway")
TurnT = TypeVar("TurnT")


class RequestShapeError(ValueError):
    """The front request does not have the front dialect's shape (answered with HTTP 400)."""


class Front(Generic[TurnT]):
    """One front dialect. Subclasses implement the request parser, the turn's steps (`start`, `on_text`,
    `on_call_start`, `on_arguments`, `on_call_done`, `on_usage`, `finish`, `fail`), `flush` (the pending output
    as bytes) and the shapes of bodies and errors. `stream_events` and `complete` drive them."""

    dialect: ClassVar[str]
    path: ClassVar[str]
    # -- request ----------------------------------------------------------------------------------------------

    def parse_request(self, body: Json) -> Request:
        raise NotImplementedError

    # -- the answer, step by step -----------------------------------------------------------------------------

    def new_turn(self, request: Request) -> TurnT:
        raise NotImplementedError

    def start(self, turn: TurnT) -> None:
        """Whatever the front sends before the upstream answers."""

    def on_event(self, turn: TurnT, event: Event) -> None:
        if isinstance(event, TextDelta):
            self.on_text(turn, event.text)
        elif isinstance(event, CallStart) and event.kind == "custom":
            self.on_custom_call_start(turn, event.key, event.id, event.name)
        elif isinstance(event, CallStart):
            self.on_call_start(turn, event.key, event.id, event.name)
        elif isinstance(event, ArgumentsDelta):
            self.on_arguments(turn, event.key, event.fragment)
        elif isinstance(event, CallDone):
            self.on_call_done(turn, event.key)
        elif isinstance(event, UsageUpdate):
            self.on_usage(turn, event.usage)
        elif isinstance(event, Finish):
            if event.refusal is not None:
                self.on_refusal_ending(turn, event.refusal)
            self.finish(turn, event.reason)
        else:
            self.on_item_event(turn, event)

    def on_item_event(self, turn: TurnT, event: Event) -> None:
        """Refusals, annotations, reasoning and opaque items (docs/spec/items.md, "The reference gateway")."""
        if isinstance(event, RefusalDelta):
            self.on_refusal(turn, event.text)
        elif isinstance(event, Annotation):
            self.on_annotation(turn, event.annotation)
        elif isinstance(event, ReasoningStart):
            self.on_reasoning_start(turn, event.key, event.issuer, event.id)
        elif isinstance(event, ReasoningDelta):
            self.on_reasoning(turn, event.key, event.fragment, event.summary_index)
        elif isinstance(event, ReasoningDone):
            self.on_reasoning_done(turn, event.key, event.sealed if event.issuer == self.dialect else None)
        elif isinstance(event, OpaqueEvent):
            self.on_opaque(turn, event)

    def on_text(self, turn: TurnT, text: str) -> None:
        raise NotImplementedError

    def on_refusal(self, turn: TurnT, text: str) -> None:
        """The model's refusal, in the front's own refusal form (never as answer text)."""
        raise NotImplementedError

    def on_refusal_ending(self, turn: TurnT, details: Json) -> None:
        """The upstream says, at its end, that the model refused (its text came as text): the front's ending for
        the finish's reason says it (content_filter) unless the front has a refusal ending (Anthropic)."""

    def on_annotation(self, turn: TurnT, annotation: Json) -> None:
        """An annotation of the text so far: dropped by default (only the Responses front has them)."""

    def on_reasoning_start(self, turn: TurnT, key: int, issuer: str, upstream_id: str | None = None) -> None:
        """Reasoning: dropped by default (the Chat front has no field for it)."""

    def on_reasoning(self, turn: TurnT, key: int, fragment: str, summary_index: int | None) -> None:
        """A reasoning fragment (summary part `summary_index`, or the reasoning text): dropped by default."""

    def on_reasoning_done(self, turn: TurnT, key: int, sealed: str | None) -> None:
        """The reasoning ends; `sealed` its seal when this front's dialect issued it, else None."""

    def on_opaque(self, turn: TurnT, event: OpaqueEvent) -> None:
        """An item the model does not translate: the Responses front carries it on; here a call the client must
        run fails the answer (the front cannot carry it), an item the provider ran (MCP, code interpreter, web
        search) is dropped: its outcome is in the text that follows."""
        if event.client_run and event.event.get("type") == "response.output_item.added":
            self.fail(turn, "unsupported_item", f"the upstream's answer has a {event.item_type} item (output "
                      f"{event.key}), a call the client must run, which a {self.dialect} answer cannot carry")

    def on_call_start(self, turn: TurnT, key: int, upstream_id: str | None, name: str) -> None:
        raise NotImplementedError

    def on_custom_call_start(self, turn: TurnT, key: int, upstream_id: str | None, name: str) -> None:
        """A custom tool call (raw text input; its `ArgumentsDelta`s are that input). A front whose answer has
        function calls only fails the answer: never a function call with the input wrapped in JSON."""
        self.fail(turn, "unsupported_item", f"the upstream called the custom tool {name!r} ({upstream_id or 'no id'}):"
                  f" a custom (freeform) tool call has raw text input, which a {self.dialect} answer cannot carry (it "
                  "has function calls only); not passed on as a function call")

    def on_arguments(self, turn: TurnT, key: int, fragment: str) -> None:
        raise NotImplementedError

    def on_call_done(self, turn: TurnT, key: int) -> None:
        """The upstream says a call is complete; by default calls stay open until the finish."""

    def on_usage(self, turn: TurnT, usage: Usage) -> None:
        raise NotImplementedError

    def finish(self, turn: TurnT, reason: FinishReason) -> None:
        raise NotImplementedError

    def on_upstream_cut(self, turn: TurnT, message: str) -> None:
        """The upstream dropped or ended early: whatever was streamed is unfinished, never a normal finish."""
        self.fail(turn, "upstream_disconnected", message)

    def fail(self, turn: TurnT, code: str, message: str) -> None:
        raise NotImplementedError

    def ended(self, turn: TurnT) -> bool:
        """Whether the turn has its ending (a finish or a failure)."""
        raise NotImplementedError

    def flush(self, turn: TurnT) -> bytes:
        """The output pending since the last flush, encoded."""
        raise NotImplementedError

    # -- driving it -------------------------------------------------------------------------------------------

    def guard(self) -> ArgumentsGuard | None:
        """What refuses a call whose arguments are not JSON (one per answer): the answer fails instead."""
        return ArgumentsGuard()

    async def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        """The front stream: one write for the start, then one per upstream event that produced output, as the
        upstream event arrives."""
        turn = self.new_turn(request)
        guard = self.guard()
        self.start(turn)
        yield self.flush(turn)
        try:
            async for upstream_event in events:
                for event in guard.see(upstream_event) if guard is not None else [upstream_event]:
                    if not self.ended(turn):  # a failed turn (an item it cannot carry) takes nothing more
                        self.on_event(turn, event)
                if output := self.flush(turn):
                    yield output
                if self.ended(turn):
                    break
            if not self.ended(turn):
                self.on_upstream_cut(turn, "the upstream stream ended without its finish")
        except UpstreamCut as exc:
            self.on_upstream_cut(turn, str(exc))
        except UpstreamError as exc:
            self.fail(turn, exc.code, str(exc))
        except Exception as exc:  # a bug or an unexpected upstream shape: still end the stream properly
            log.exception("translating the upstream stream failed")
            self.fail(turn, "server_error", f"The gateway failed: {exc!r}")
        if output := self.flush(turn):
            yield output

    def complete(self, request: Request, events: Iterable[Event] | UpstreamError) -> Response:
        """The non-stream answer: the same steps as a stream (so both agree), then `body`."""
        turn = self.new_turn(request)
        guard = self.guard()
        self.start(turn)
        try:
            if isinstance(events, UpstreamError):
                raise events
            for upstream_event in events:
                for event in guard.see(upstream_event) if guard is not None else [upstream_event]:
                    if not self.ended(turn):
                        self.on_event(turn, event)
            if not self.ended(turn):
                self.on_upstream_cut(turn, "the upstream answer ended without its finish")
        except UpstreamError as exc:
            self.fail(turn, exc.code, str(exc))
        self.flush(turn)
        return self.body(turn)

    def body(self, turn: TurnT) -> Response:
        """The non-stream body of an ended turn."""
        raise NotImplementedError

    # -- errors -----------------------------------------------------------------------------------------------

    def error_response(self, request: Request, error: UpstreamHTTPError) -> Response:
        """An upstream HTTP error stays an HTTP error: same status, this front's error body, Retry-After kept."""
        return JSONResponse(self.error_body(error), status_code=error.status, headers=self.error_headers(error))

    def error_body(self, error: UpstreamHTTPError) -> Json:
        """OpenAI's error shape (the Anthropic front overrides it)."""
        return {"error": {"message": error.message, "type": error.type, "param": error.param, "code": error.code}}

    def error_headers(self, error: UpstreamHTTPError) -> dict[str, str]:
        return dict(error.headers)

    def invalid_request(self, message: str) -> Response:
        error = UpstreamHTTPError(400, message, "invalid_request_error")
        return JSONResponse(self.error_body(error), status_code=400)


def tool_name(value: Any, index: int) -> str:
    """A tool definition's name; RequestShapeError naming the tool when it has none (never forwarded)."""
    if not isinstance(value, str) or not value:
        raise RequestShapeError(f"tools[{index}] has no name (a tool definition needs a non-empty string `name`; "
                                f"got {value!r}): refused, not forwarded")
    return value


def number(value: Any) -> int | None:
    """An integer request field (None when absent or not an integer)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
