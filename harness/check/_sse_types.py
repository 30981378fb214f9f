"""What the SSE parser produces: dispatched events (WHATWG HTML §9.2.6) and the framing issues it records where a
browser's EventSource silently drops or repairs something, each with its message."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "FramingIssue",
    "IssueKind",
    "SSEEvent",
    "empty_data_block",
    "event_objects",
    "invalid_utf8",
    "oversize_event",
    "trailing_event",
]

IssueKind = Literal["invalid-utf8", "trailing-event", "oversize-event", "empty-data-block"]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event (§9.2.6 "dispatch the event")."""

    #: The event-type buffer, or "message" when it is empty (no `event:` field, or an empty one).
    type: str
    #: The data buffer without its single trailing LF (`data:` lines joined with "\n").
    data: str
    #: The last-event-ID buffer at dispatch; it persists across events. None until an `id:` field set it.
    id: str | None
    #: The last valid `retry:` value (milliseconds) of this event's block, else None.
    retry: int | None
    #: Byte offset of the block's first line (comments included).
    offset: int
    #: Byte offset just after the first byte of the blank line's end-of-line (see the `_sse` module docstring).
    end: int
    #: Arrival time of the feed() that completed the event.
    arrival: float
    #: True when an `event:` field set a non-empty type.
    explicit_type: bool


def event_objects(events: Iterable[SSEEvent]) -> list[dict[str, Any]]:
    """The events whose data is a JSON object, parsed, in order (the others left out)."""
    found: list[dict[str, Any]] = []
    for event in events:
        try:
            value = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


@dataclass(frozen=True, slots=True)
class FramingIssue:
    """Something a conformant client tolerates silently but a server should not send."""

    kind: IssueKind
    #: Byte offset of the problem: the bad byte, or the first line of the block concerned.
    offset: int
    #: What, where (byte offset and line) and how to fix it.
    detail: str


def invalid_utf8(offset: int, line: int, bad: bytes) -> FramingIssue:
    """Bytes `bad` at stream offset `offset` (on line `line`) are not UTF-8; they decode as U+FFFD."""
    return FramingIssue(
        "invalid-utf8", offset,
        f"invalid UTF-8 ({bad.hex(' ')}) at byte {offset} (line {line}), decoded as U+FFFD; "
        "an event stream is always UTF-8: encode all event text as UTF-8",
    )


def trailing_event(offset: int, line: int) -> FramingIssue:
    """The stream ended inside the event block that starts at `offset` (line `line`)."""
    return FramingIssue(
        "trailing-event", offset,
        f"the stream ended inside the event block at byte {offset} (line {line}), "
        "before the blank line that dispatches it, so clients discard that event; end every event, "
        "including the last one, with an empty line (\\n\\n)",
    )


def oversize_event(offset: int, line: int, limit: int) -> FramingIssue:
    """The event block that starts at `offset` (line `line`) outgrew `limit` bytes and was skipped."""
    return FramingIssue(
        "oversize-event", offset,
        f"the event block at byte {offset} (line {line}) is larger than {limit} "
        "bytes, so it was skipped unchecked; split large payloads into several smaller events",
    )


def empty_data_block(offset: int, line: int, type_: str) -> FramingIssue:
    """The event block at `offset` (line `line`) has an `event: type_` field but no data line."""
    return FramingIssue(
        "empty-data-block", offset,
        f"the event block at byte {offset} (line {line}) has an `event: {type_}` field but no data "
        "line: the spec dispatches nothing, but the OpenAI SDK dispatches it and fails to JSON-decode '' "
        "(the Anthropic SDK skips it); give the event a data line, or send keep-alives as `: comment` lines",
    )
