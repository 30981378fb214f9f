"""Gateways for the edge-case judgements of docs/spec/verdicts.md: each reads its upstream as the reference gateway
does and then answers in a way whose verdict that page decides. `tests/fakes/gateways.py` lists them in its
`DEFECTS`.

- an HTTP 200 `text/event-stream` with an empty body, the upstream read to its end (docs/spec/verdicts.md §2): failed
  where a rule owns the promise the 200 made (the lifecycle's first and last event, the expected ending), error in
  the groups with nothing to apply to, never passed or skipped.
- an upstream content filter's ending reported as a refusal (docs/spec/verdicts.md §5, §6): in both forms (the
  stream and the non-stream body), or in the non-stream body alone (an Anthropic body adding `stop_details` of type
  refusal where its stream has none: GW-EQ-001's false failure of §5); GW-FAULT-004 alone fails them. A body that
  says another stop reason than its stream is a real disagreement: GW-EQ-001 still fails it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response

from examples.gateway import AnthropicFront, ChatFront, Front, Request, ResponsesFront
from examples.gateway.fronts.anthropic import AnthropicTurn
from examples.gateway.fronts.chat import ChatTurn
from examples.gateway.fronts.responses import Turn
from examples.gateway.model import Event, FinishReason

__all__ = ["EDGE_DEFECTS"]


async def _drained(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Read the front stream to its end (so the upstream is read to its end too) and write none of it."""
    async for _ in stream:
        continue
    written: tuple[bytes, ...] = ()  # an async generator that yields nothing
    for part in written:
        yield part


class EmptyResponses(ResponsesFront):
    """empty_200: the Responses front reads the upstream stream to its end and answers HTTP 200 text/event-stream
    with an empty body (RSP-LIFE-001, RSP-LIFE-002, EXP-004; docs/spec/verdicts.md §2)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _drained(super().stream_events(request, events))


class EmptyChat(ChatFront):
    """chat_empty_200: the same at the Chat front (EXP-004, EXP-001; docs/spec/verdicts.md §2)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _drained(super().stream_events(request, events))


class EmptyAnthropic(AnthropicFront):
    """anthropic_empty_200: the same at the Anthropic front (ANT-LIFE-001, ANT-LIFE-002, EXP-004;
    docs/spec/verdicts.md §2)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _drained(super().stream_events(request, events))


#: The text each turn has held back until its ending, by the turn (a gateway that waits to know whether the turn
#: ends as a refusal before it writes the text).
_HELD: dict[int, str] = {}


class FilterAsRefusal(ResponsesFront):
    """filter_as_refusal: holds the text back until the ending, then answers the text an upstream content filter
    cut as a refusal part (status incomplete, reason content_filter kept), streamed and in the non-stream body: a
    content filter is not the model refusing (GW-FAULT-004; docs/spec/verdicts.md §6)."""

    def on_text(self, turn: Turn, text: str) -> None:
        _HELD[id(turn)] = _HELD.get(id(turn), "") + text

    def finish(self, turn: Turn, reason: FinishReason) -> None:
        held = _HELD.pop(id(turn), "")
        if held:
            (self.on_refusal if reason == "content_filter" else super().on_text)(turn, held)
        super().finish(turn, reason)


class BodyFilterAsRefusal(ResponsesFront):
    """body_filter_as_refusal: the non-stream body alone turns the text an upstream content filter cut into refusal
    parts (status incomplete, reason content_filter kept); the stream is right (GW-FAULT-004 on the non-stream
    response; docs/spec/verdicts.md §6)."""

    def body(self, turn: Turn) -> Response:
        result = turn.result
        assert result is not None
        if (result.get("incomplete_details") or {}).get("reason") != "content_filter":
            return super().body(turn)
        output = [{**item, "content": [{"type": "refusal", "refusal": p["text"]} if p.get("type") == "output_text"
                                       else p for p in item.get("content") or []]}
                  if item.get("type") == "message" else item for item in result["output"]]
        return JSONResponse({**result, "output": output})


class ChatFilterAsRefusal(ChatFront):
    """chat_filter_as_refusal: holds the text back until the ending, then answers the text an upstream content
    filter cut as `delta.refusal` (`message.refusal` in the body; finish_reason content_filter kept)
    (GW-FAULT-004; docs/spec/verdicts.md §6)."""

    def on_text(self, turn: ChatTurn, text: str) -> None:
        _HELD[id(turn)] = _HELD.get(id(turn), "") + text

    def finish(self, turn: ChatTurn, reason: FinishReason) -> None:
        held = _HELD.pop(id(turn), "")
        if held:
            (self.on_refusal if reason == "content_filter" else super().on_text)(turn, held)
        super().finish(turn, reason)


class ChatBodyFilterAsRefusal(ChatFront):
    """chat_body_filter_as_refusal: the non-stream body alone answers the text an upstream content filter cut as
    `message.refusal`, `content` null (finish_reason content_filter kept); the stream is right (GW-FAULT-004 on the
    non-stream response; docs/spec/verdicts.md §6)."""

    def body(self, turn: ChatTurn) -> Response:
        if turn.finish_reason == "content_filter" and turn.text:
            turn.refusal, turn.text = (turn.refusal or "") + turn.text, ""
        return super().body(turn)


class AnthropicFilterAsRefusal(AnthropicFront):
    """anthropic_filter_as_refusal: an upstream content filter ends the message with stop_reason "refusal" and
    `stop_details: {"type": "refusal"}`, in `message_delta` and in the body: the model's refusal, not a content
    filter (GW-FAULT-004; docs/spec/verdicts.md §6)."""

    def finish(self, turn: AnthropicTurn, reason: FinishReason) -> None:
        if reason == "content_filter":
            turn.refused = True
        super().finish(turn, reason)


class AnthropicBodyFilterAsRefusal(AnthropicFront):
    """anthropic_body_filter_as_refusal: the stream and the non-stream body agree on the text and on stop_reason
    "refusal", and the body alone adds `stop_details: {"type": "refusal"}` where the upstream's content filter gave
    none: not GW-EQ-001 (§5), GW-FAULT-004 on the non-stream response (docs/spec/verdicts.md §5, §6)."""

    def body(self, turn: AnthropicTurn) -> Response:
        if turn.stop_reason == "refusal":
            turn.refused = True
        return super().body(turn)


class AnthropicBodyFilterAsEndTurn(AnthropicFront):
    """anthropic_body_filter_as_end_turn: the non-stream body ends an upstream content filter with stop_reason
    "end_turn" where the stream says "refusal": the two forms disagree on the stop reason (GW-EQ-001, and
    GW-FAULT-004 on the non-stream response; docs/spec/verdicts.md §5)."""

    def body(self, turn: AnthropicTurn) -> Response:
        if turn.stop_reason == "refusal" and not turn.refused:
            turn.stop_reason = "end_turn"
        return super().body(turn)


#: Defect name -> the front with the defect.
EDGE_DEFECTS: dict[str, type[Front[Any]]] = {
    "empty_200": EmptyResponses,
    "chat_empty_200": EmptyChat,
    "anthropic_empty_200": EmptyAnthropic,
    "filter_as_refusal": FilterAsRefusal,
    "body_filter_as_refusal": BodyFilterAsRefusal,
    "chat_filter_as_refusal": ChatFilterAsRefusal,
    "chat_body_filter_as_refusal": ChatBodyFilterAsRefusal,
    "anthropic_filter_as_refusal": AnthropicFilterAsRefusal,
    "anthropic_body_filter_as_refusal": AnthropicBodyFilterAsRefusal,
    "anthropic_body_filter_as_end_turn": AnthropicBodyFilterAsEndTurn,
}
