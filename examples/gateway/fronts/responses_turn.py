"""What one response of the Responses front accumulates (its Turn: output items, content parts, the events not yet
written) and the shapes an item's parts take on the wire."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..model import Json, Request

__all__ = ["ContentPart", "Item", "Turn", "part_json", "text_part", "where"]


@dataclass(eq=False)
class ContentPart:
    """A message's content part (output_text, refusal) or a reasoning item's summary part (summary_text) or
    reasoning text (reasoning_text)."""

    type: str
    text: str = ""
    annotations: list[Json] = field(default_factory=list)
    done: bool = False


@dataclass(eq=False)
class Item:
    """One output item: a message (its content `parts`), a function or custom tool call (`text` is its arguments
    or raw input), a reasoning item (summary `parts`, reasoning text `content`) or an opaque item carried as the
    upstream sent it (`added`: its output_item.added item)."""

    type: str  # "message" | "function_call" | "custom_tool_call" | "reasoning" | an opaque item's type
    id: str
    output_index: int = -1
    text: str = ""
    name: str = ""
    call_id: str = ""
    parts: list[ContentPart] = field(default_factory=list)
    content: ContentPart | None = None  # a reasoning item's reasoning text
    summary_keys: dict[int, int] = field(default_factory=dict)  # the upstream's summary_index -> this item's
    sealed: str | None = None  # a reasoning item's encrypted_content
    added: Json = field(default_factory=dict)
    done: Json | None = None  # the item as output_item.done sent it
    touched: int = 0  # Turn.clock at the item's start or latest fragment


@dataclass(eq=False)
class Turn:
    """Everything one response accumulates; never shared between requests."""

    request: Request
    id: str
    model: str
    created_at: int = field(default_factory=lambda: int(time.time()))
    items: list[Item] = field(default_factory=list)  # added items, in output_index order
    calls: dict[int, Item] = field(default_factory=dict)  # by the upstream's call key
    reasoning: dict[int, Item] = field(default_factory=dict)  # open reasoning items, by the upstream's key
    opaque: dict[int, Item] = field(default_factory=dict)  # opaque items, by the upstream's output index
    message: Item | None = None  # the message item text goes to, until another item is added
    call_ids: set[str] = field(default_factory=set)
    usage: Json | None = None
    events: list[Json] = field(default_factory=list)  # emitted, not yet written
    sequence: int = 0
    clock: int = 0  # counts item starts and fragments
    last_start: int = 0  # clock of the latest item start
    result: Json | None = None  # the terminal Response object
    closed: bool = False

    @property
    def front(self) -> Json:
        return self.request.front

    def emit(self, type: str, **fields: Any) -> None:
        self.events.append({"type": type, "sequence_number": self.sequence, **fields})
        self.sequence += 1

    def take(self) -> list[Json]:
        events, self.events = self.events, []
        return events


def where(item: Item) -> Json:
    return {"item_id": item.id, "output_index": item.output_index}


def text_part(text: str) -> Json:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def part_json(part: ContentPart) -> Json:
    """A part as the Responses API shows it."""
    if part.type == "output_text":
        return {"type": "output_text", "annotations": list(part.annotations), "logprobs": [], "text": part.text}
    if part.type == "refusal":
        return {"type": "refusal", "refusal": part.text}
    return {"type": part.type, "text": part.text}
