"""What the Responses checker keeps of each output item while it streams: the item, its content parts, and their
deltas joined as they arrive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._front import EventMeta, Sink, short

__all__ = ["PART_TEXT_KEY", "Deltas", "Field", "Item", "Part", "same"]

#: A content part's type -> the key of its text.
PART_TEXT_KEY = {"output_text": "text", "refusal": "refusal"}


class Deltas:
    """The deltas of one item or part, joined in runs of `_RUN`: the rules compare only the joined string and count
    the deltas, and a run of small strings costs ~50 bytes an object where the joined run costs a byte a character
    (11 MB of arguments streamed 16 characters at a time held ~70 MB as separate strings)."""

    __slots__ = ("_count", "_runs", "_tail")

    _RUN = 256

    def __init__(self) -> None:
        self._runs: list[str] = []
        self._tail: list[str] = []
        self._count = 0

    def append(self, delta: str) -> None:
        self._tail.append(delta)
        self._count += 1
        if len(self._tail) >= self._RUN:
            self._runs.append("".join(self._tail))
            self._tail = []

    def joined(self) -> str:
        return "".join(self._runs) + "".join(self._tail)

    def __len__(self) -> int:
        return self._count


@dataclass(slots=True)
class Part:
    """A content part of a message item: its kind, its deltas, its text once done."""

    kind: str
    deltas: Deltas = field(default_factory=Deltas)
    text: str | None = None
    done: bool = False


@dataclass(slots=True)
class Field:
    """One streamed field of an item (a custom call's input, one shell command, one summary part...): the text of
    its added event, its deltas, the value of its done event and whether its part is done."""

    start: str = ""
    added: bool = False
    deltas: Deltas = field(default_factory=Deltas)
    done: str | None = None
    done_count: int = 0
    closed: bool = False

    def joined(self) -> str:
        return self.start + self.deltas.joined()


@dataclass(slots=True)
class Item:
    """An output item: its identity as added, its argument deltas (a function call) or parts (a message)."""

    output_index: int
    id: str | None
    type: str | None
    call_id: str | None = None
    name: str | None = None
    deltas: Deltas = field(default_factory=Deltas)
    args_done: str | None = None
    args_done_count: int = 0
    done: bool = False
    final: dict[str, Any] | None = None
    parts: dict[int, Part] = field(default_factory=dict)
    #: The streamed fields other than function-call arguments and message text, by (field name, index).
    fields: dict[tuple[str, int], Field] = field(default_factory=dict)
    #: The annotations added to each output_text part, by content_index, in the order they arrived.
    annotations: dict[int, list[object]] = field(default_factory=dict)


def same(sink: Sink, meta: EventMeta, rule: str, key: str, before: object, now: object, path: str) -> None:
    """Report `rule` when both values are non-empty strings and differ."""
    if isinstance(before, str) and isinstance(now, str) and before and now and before != now:
        sink.add(rule, f"{key} is {short(now)} here but {short(before)} before",
                 meta.evidence(f"{path}.{key}" if path != "$" else f"$.{key}", before, now))
