"""Broken fake clients for the SSE framing, output order, id fallback and isolation rules (CLI-010 to CLI-013):
each is a reference client of `clients.py`, `chat_clients.py` or `anthropic_clients.py` with one defect, named in
its docstring with the rule that must catch it. `python -m tests.fakes.clients --defect NAME` runs them (the
dialects' defect tables merge these in `clients.dialect_defects`).

The SSE parsers below are the naive ones found in real clients: each handles the plain stream the mock sends by
default and breaks on one framing the standard allows (docs/spec/sse.md §5.1, §5.2).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .anthropic_clients import AnthropicReferenceClient
from .chat_clients import ChatReferenceClient
from .clients import Item, ReferenceClient
from .sse import field, iter_sse

__all__ = ["ANTHROPIC_DEFECTS", "CHAT_DEFECTS", "DEFECTS"]

def _lf_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """Lines split at LF only: a lone CR ends nothing, and a CRLF leaves its CR in the line."""
    buf = b""
    for chunk in chunks:
        buf += chunk
        *done, buf = buf.split(b"\n")
        yield from (line.decode("utf-8", "replace") for line in done)


def _spaced_field(line: str) -> tuple[str, str]:
    """Reads a line as a field only as `data: ` or `event: `, with the space; any other line is no field."""
    for name in ("data", "event"):
        if line.startswith(f"{name}: "):
            return name, line[len(name) + 2:]
    return "", ""


def _id_and_retry_as_data(line: str) -> tuple[str, str]:
    name, value = field(line)
    return ("data" if name in ("id", "retry") else name), value


class RequiresDataSpace(ReferenceClient):
    """Reads a field only as `data: `/`event: ` with the space, so `data:{...}` events are lost and the stream
    seems to end without its terminal event. Caught by CLI-010 (framing no_space)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, read_field=_spaced_field)


class LastDataLineOnly(ReferenceClient):
    """Keeps only the last `data:` line of an event instead of joining them with LF: a multi-line event's data is
    a fragment of its JSON. Caught by CLI-010 (framing multiline_data)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, join=lambda data: data[-1])


class LfOnlyLines(ReferenceClient):
    """Splits lines at LF only: lone-CR line ends end no line and a CRLF blank line is not blank, so no event is
    ever dispatched. Caught by CLI-010 (framing cr_only, crlf)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, split=_lf_lines)


class FieldsAsData(ReferenceClient):
    """Appends `id:` and `retry:` values to the event's data as if they were `data:` lines, which makes the data
    invalid JSON. Caught by CLI-010 (framing comments_and_fields)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, read_field=_id_and_retry_as_data)


class DoneOrder(ReferenceClient):
    """Reports calls in the order their `output_item.done` arrived instead of by output_index. Caught by CLI-011
    (calls in output order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finished: list[int] = []

    def on_event(self, event: dict[str, Any]) -> bool:
        if event.get("type") == "response.output_item.done" and isinstance(event.get("output_index"), int):
            self.finished.append(event["output_index"])
        return super().on_event(event)

    def tool_calls(self) -> list[dict[str, Any]]:
        order = [*self.finished, *(i for i in sorted(self.items) if i not in self.finished)]
        items = [self.items[index] for index in order]
        return [self.call(item) for item in items if item.type == "function_call" and self.is_complete(item)]


class PositionIdFallback(ReferenceClient):
    """Gives a call without call_id an id made from its position (`call_0`, ...) instead of its item id: distinct,
    but not the id the item carries. Caught by CLI-013 (the item id is the fallback)."""

    def call(self, item: Item) -> dict[str, Any]:
        index = next(i for i, other in self.items.items() if other is item)
        return {**super().call(item), "call_id": item.call_id or f"call_{index}"}


class SharedAccumulator(ReferenceClient):
    """Keeps its calls in an accumulator shared by every run (a file per mock, standing for a module-level list)
    and reports everything accumulated: concurrent runs see each other's calls. Caught by CLI-012 (isolation)."""

    def tool_calls(self) -> list[dict[str, Any]]:
        own = super().tool_calls()
        port = urlsplit(self.base_url).port
        path = Path(tempfile.gettempdir()) / f"callproof-fake-accumulator-{port}.jsonl"
        with path.open("a", encoding="utf-8") as shared:
            shared.write("".join(json.dumps(call) + "\n" for call in own))
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


class ChatLfOnlyLines(ChatReferenceClient):
    """The Chat client with an SSE parser that splits lines at LF only. Caught by CLI-010 (framing cr_only, crlf)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, split=_lf_lines)


class AnthropicRequiresDataSpace(AnthropicReferenceClient):
    """The Anthropic client reading fields only as `data: `/`event: ` with the space. Caught by CLI-010 (framing
    no_space)."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        return iter_sse(chunks, self.on_comment, read_field=_spaced_field)


#: Defect name -> the broken Responses client (merged into clients.DEFECTS by `clients.dialect_defects`).
DEFECTS: dict[str, type[ReferenceClient]] = {
    "requires_data_space": RequiresDataSpace,
    "last_data_line_only": LastDataLineOnly,
    "lf_only_lines": LfOnlyLines,
    "fields_as_data": FieldsAsData,
    "done_order": DoneOrder,
    "position_id_fallback": PositionIdFallback,
    "shared_accumulator": SharedAccumulator,
}
CHAT_DEFECTS: dict[str, type[ChatReferenceClient]] = {"lf_only_lines": ChatLfOnlyLines}
ANTHROPIC_DEFECTS: dict[str, type[AnthropicReferenceClient]] = {"requires_data_space": AnthropicRequiresDataSpace}
