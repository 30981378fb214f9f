"""Gateways for the edge-case judgements of docs/spec/verdicts.md: each reads its upstream as the reference gateway
does and then answers in a way whose verdict that page decides. `tests/fakes/gateways.py` lists them in its
`DEFECTS`.

- an HTTP 200 `text/event-stream` with an empty body, the upstream read to its end (docs/spec/verdicts.md §2): failed
  where a rule owns the promise the 200 made (the lifecycle's first and last event, the expected ending), error in
  the groups with nothing to apply to, never passed or skipped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from examples.gateway import AnthropicFront, ChatFront, Front, Request, ResponsesFront
from examples.gateway.model import Event

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


#: Defect name -> the front with the defect.
EDGE_DEFECTS: dict[str, type[Front[Any]]] = {
    "empty_200": EmptyResponses,
    "chat_empty_200": EmptyChat,
    "anthropic_empty_200": EmptyAnthropic,
}
