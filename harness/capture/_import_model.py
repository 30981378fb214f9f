"""The structured parts of a scenario as `_import_parse` reads them back from a capture, before they become the
scenario's `output`, `order`, `ending`, `error` and `usage`: mutable while a capture is read, then written out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import JSONData
from callproof.harness.check import SSEEvent

__all__ = ["Item", "Structured", "Unstructured", "error_of", "non_negative", "payload_of"]


class Unstructured(ValueError):
    """The capture does not read as a stream of its dialect; the message says where."""


@dataclass
class Item:
    type: str
    fragments: list[str] = field(default_factory=list)
    name: str = ""
    name_fragments: list[str] = field(default_factory=list)
    call_id: str | None = None
    done: str | None = None  # arguments as the done event or the body gives them
    id_on: str = "first"
    name_on_later: str = "omit"
    arguments_before_name: bool = False
    done_step: bool = False

    def to_json(self, chunked: bool) -> dict[str, Any]:
        joined = "".join(self.fragments)
        if self.type in ("text", "reasoning"):
            out: dict[str, Any] = {"type": self.type, "text": joined if self.fragments else (self.done or "")}
            if chunked and self.fragments:
                out["chunk"] = {"fragments": list(self.fragments)}
            return out
        in_done_only = chunked and not self.fragments and bool(self.done)
        arguments = (self.done or "") if in_done_only or not chunked else joined
        out = {"type": "function_call", "name": self.name or "unnamed", "call_id": self.call_id,
               "arguments": arguments}
        if chunked:
            out["chunk"] = {"whole": True} if in_done_only else {"fragments": list(self.fragments)}
        if chunked and len(self.name_fragments) > 1:
            out["name_chunk"] = {"fragments": list(self.name_fragments)}
        if self.id_on != "first":
            out["id_on"] = self.id_on
        if self.name_on_later != "omit":
            out["name_on_later"] = self.name_on_later
        if self.arguments_before_name:
            out["arguments_before_name"] = True
        if in_done_only:
            out["arguments_in_done_only"] = True
        return out


@dataclass
class Structured:
    """The structured parts of a scenario read from a capture; `content` lists the index of every content event
    (a text, reasoning or argument delta) among the capture's events, for measured delays."""

    items: list[Item] = field(default_factory=list)
    steps: list[tuple[int, int]] = field(default_factory=list)
    ending: str = "completed"
    error: dict[str, str] | None = None
    usage: dict[str, int] = field(default_factory=dict)
    content: list[int] = field(default_factory=list)
    chunked: bool = True

    def add(self, item: Item) -> int:
        self.items.append(item)
        return len(self.items) - 1

    def fragment(self, index: int, piece: str, event: int) -> None:
        item = self.items[index]
        item.fragments.append(piece)
        self.steps.append((index, len(item.fragments) - 1))
        self.content.append(event)

    def scenario_parts(self) -> dict[str, Any]:
        """`output`, `order`, `ending`, `error`, `usage` as a scenario file writes them."""
        out: dict[str, Any] = {"output": [item.to_json(self.chunked) for item in self.items]}
        steps = list(self.steps)
        if self.chunked:
            for i, item in enumerate(self.items):  # a call whose arguments came only in its done event: one step
                if item.type == "function_call" and not item.fragments and item.done:
                    steps.append((i, 0))
            sequential = [(i, j) for i, j in sorted(steps)]
            if steps != sequential:
                out["order"] = [list(step) for step in steps]
        if self.ending != "completed":
            out["ending"] = self.ending
        if self.error:
            out["error"] = self.error
        if self.usage:
            out["usage"] = {"input_tokens": 0, "output_tokens": 0, **self.usage}
        return out


def payload_of(event: SSEEvent, position: int) -> dict[str, Any]:
    try:
        payload = json.loads(event.data)
    except ValueError:
        raise Unstructured(f"event {position} ({event.type}) carries no JSON: {event.data[:60]!r}") from None
    if not isinstance(payload, dict):
        raise Unstructured(f"event {position} carries JSON that is not an object")
    return payload


def non_negative(value: JSONData) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def error_of(raw: JSONData, fallback_code: str) -> dict[str, str]:
    raw = raw if isinstance(raw, Mapping) else {}
    code = raw.get("code") or raw.get("type") or fallback_code
    out = {"code": str(code), "message": str(raw.get("message") or "")}
    if isinstance(raw.get("type"), str):
        out["type"] = raw["type"]
    return out
