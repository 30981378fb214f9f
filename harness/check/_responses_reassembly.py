"""Reassembly of one Responses output item from its events: argument deltas and their done event, content parts,
and text or refusal deltas and their done event (RSP-ARGS-001, RSP-TEXT-001/002, RSP-LIFE-007/008); every other
streamed field by the table of `_responses_item_fields` (RSP-ITEM-*)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._front import EventMeta, Sink, as_int, as_str, short, shown
from ._responses_field_rules import field_event, part_done
from ._responses_item_fields import ITEM_EVENTS
from ._responses_state import PART_TEXT_KEY, Item, Part, same

__all__ = ["HANDLED_EVENTS", "item_event"]

#: What an item event does, by its type: (sink, meta, payload, item).
_Handler = Callable[[Sink, EventMeta, dict[str, Any], Item], None]


def item_event(sink: Sink, meta: EventMeta, etype: str, payload: dict[str, Any], item: Item) -> None:
    """One event that names the open `item` (by item_id or output_index)."""
    handler = _HANDLERS.get(etype)
    if handler is not None:
        handler(sink, meta, payload, item)
    else:
        field_event(sink, meta, etype, payload, item)


def _arguments_delta(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
    if not _is_call(sink, meta, item):
        return
    if item.args_done_count:
        sink.add("RSP-LIFE-007", f"an arguments delta for {shown(item.id)} after its arguments.done",
                 meta.evidence("$.delta"))
    delta = as_str(payload.get("delta"))
    if delta is not None:
        item.deltas.append(delta)


def _arguments_done(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
    if not _is_call(sink, meta, item):
        return
    item.args_done_count += 1
    if item.args_done_count > 1:
        sink.add("RSP-LIFE-007", f"a second arguments.done for {shown(item.id)}", meta.evidence())
        return
    arguments = as_str(payload.get("arguments"))
    joined = item.deltas.joined()
    if arguments is not None and arguments != joined:
        sink.add("RSP-ARGS-001",
                 f"arguments {short(arguments)} differ from the {len(item.deltas)} joined deltas "
                 f"{short(joined)}",
                 meta.evidence("$.arguments", joined, arguments))
    item.args_done = arguments
    same(sink, meta, "RSP-ID-007", "name", item.name, payload.get("name"), "$")


def _part_added(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
    index = as_int(payload.get("content_index"))
    part = payload.get("part")
    if index is None:
        return
    if index in item.parts:
        sink.add("RSP-LIFE-008", f"content part {index} of {shown(item.id)} is added twice",
                 meta.evidence("$.content_index", actual=index))
        return
    kind = as_str(part.get("type")) if isinstance(part, dict) else None
    item.parts[index] = Part(kind or "output_text")


def _part_done(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
    found = _open_part(sink, meta, item, payload)
    if found is not None:
        found.done = True
        part = payload.get("part")
        if isinstance(part, dict) and found.text is not None:
            key = PART_TEXT_KEY.get(found.kind, "text")
            same(sink, meta, "RSP-TEXT-002", key, found.text, part.get(key), "$.part")
        part_done(sink, meta, payload, item, as_int(payload.get("content_index")) or 0)


def _text_delta(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
    """An output_text or refusal delta."""
    found = _open_part(sink, meta, item, payload)
    if found is not None:
        if found.text is not None:
            sink.add("RSP-LIFE-008", f"a delta after the {found.kind} done event of part "
                     f"{shown(payload.get('content_index'))}", meta.evidence("$.delta"))
        delta = as_str(payload.get("delta"))
        if delta is not None:
            found.deltas.append(delta)


def _text_done(key: str) -> _Handler:
    """The done event of an output_text or refusal part, whose whole text is at `key` ("text" or "refusal")."""

    def done(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item) -> None:
        found = _open_part(sink, meta, item, payload)
        if found is not None:
            text = as_str(payload.get(key))
            joined = found.deltas.joined()
            if text is not None and text != joined:
                sink.add("RSP-TEXT-001", f"{key} {short(text)} differs from the joined deltas {short(joined)}",
                         meta.evidence(f"$.{key}", joined, text))
            found.text = text

    return done


_HANDLERS: dict[str, _Handler] = {
    "response.function_call_arguments.delta": _arguments_delta,
    "response.function_call_arguments.done": _arguments_done,
    "response.content_part.added": _part_added,
    "response.content_part.done": _part_done,
    "response.output_text.delta": _text_delta,
    "response.refusal.delta": _text_delta,
    "response.output_text.done": _text_done("text"),
    "response.refusal.done": _text_done("refusal"),
}

#: Every event type reassembled here or by the field table.
HANDLED_EVENTS = frozenset(_HANDLERS) | frozenset(ITEM_EVENTS)


def _open_part(sink: Sink, meta: EventMeta, item: Item, payload: dict[str, Any]) -> Part | None:
    index = as_int(payload.get("content_index"))
    if index is None:
        return None
    part = item.parts.get(index)
    if part is None:
        sink.add("RSP-LIFE-008", f"{shown(meta.type)} for content part {index} of {shown(item.id)}, never added",
                 meta.evidence("$.content_index", actual=index))
        part = item.parts[index] = Part("refusal" if "refusal" in (meta.type or "") else "output_text")
    if part.done:
        sink.add("RSP-LIFE-008", f"{shown(meta.type)} for content part {index} after its content_part.done",
                 meta.evidence("$.content_index", actual=index))
        return None
    return part


def _is_call(sink: Sink, meta: EventMeta, item: Item) -> bool:
    if item.type == "function_call":
        return True
    sink.add("RSP-ID-001", f"{shown(meta.type)} names item {shown(item.id)}, a {item.type!r}, not a function_call",
             meta.evidence("$.item_id", "function_call", item.type))
    return False
