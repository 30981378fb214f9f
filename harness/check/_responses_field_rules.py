"""The rules of the streamed item fields of `_responses_item_fields.ITEM_EVENTS`: the deltas join to the done value
(plus the added event's text), the done value equals the field of the item in `response.output_item.done`, the
event names an item of the field's type, and the events come in order (RSP-ITEM-001..009)."""

from __future__ import annotations

from typing import Any, cast

from callproof.harness._types import JSONValue

from ._front import EventMeta, Sink, as_int, as_str, short, shown
from ._responses_item_fields import FIELDS, ITEM_EVENTS, LIFECYCLE_RULE, FieldSpec, dig, render
from ._responses_state import Field, Item

__all__ = ["field_event", "fields_done", "part_done"]


def field_event(sink: Sink, meta: EventMeta, etype: str, payload: dict[str, Any], item: Item) -> bool:
    """An event of the table, naming `item` (a response-level stream: the response's pseudo item). False when the
    table has no row for `etype`."""
    rows = ITEM_EVENTS.get(etype)
    if rows is None:
        return False
    for row in rows:
        spec = row.spec
        if spec.item_type is not None and item.type != spec.item_type:
            sink.add("RSP-ID-001", f"{shown(etype)} names item {shown(item.id)} (output_index {item.output_index}), "
                     f"a {shown(item.type)}, not a {spec.item_type!r}", meta.evidence("$.item_id", spec.item_type,
                                                                                     item.type))
            return True
        index = 0 if spec.index_key is None else as_int(payload.get(spec.index_key))
        if index is not None:  # a missing index is the schema's (RSP-SCHEMA-001)
            _ACTIONS[row.action](sink, meta, spec, payload, item, index)
    return True


def _where(spec: FieldSpec, item: Item, index: int) -> str:
    """`the shell command 1 of item 'sh_1'`."""
    at = f" {index}" if spec.index_key is not None else ""
    return f"the {spec.name}{at} of item {shown(item.id)}" if item.output_index >= 0 else f"the {spec.name} stream"


def _lifecycle(sink: Sink, meta: EventMeta, spec: FieldSpec, message: str, path: str = "$.type") -> None:
    if not spec.quiet:
        sink.add(LIFECYCLE_RULE, message, meta.evidence(path))


def _added(sink: Sink, meta: EventMeta, spec: FieldSpec, payload: dict[str, Any], item: Item, index: int) -> None:
    found = item.fields.get((spec.name, index))
    if found is not None:
        _lifecycle(sink, meta, spec, f"{shown(meta.type)} adds {_where(spec, item, index)} a second time",
                   f"$.{spec.index_key}")
        return
    start = dig(payload, spec.added_path or (), index)
    item.fields[(spec.name, index)] = Field(start=start if isinstance(start, str) else "", added=True)


def _opened(sink: Sink, meta: EventMeta, spec: FieldSpec, item: Item, index: int) -> Field:
    """The field an event continues; reported (and opened) when its added event never came."""
    found = item.fields.get((spec.name, index))
    if found is None:
        if spec.added_path is not None:
            _lifecycle(sink, meta, spec, f"{shown(meta.type)} for {_where(spec, item, index)}, never added (send "
                       f"its added event first)", f"$.{spec.index_key}")
        found = item.fields[(spec.name, index)] = Field(added=True)
    return found


def _delta(sink: Sink, meta: EventMeta, spec: FieldSpec, payload: dict[str, Any], item: Item, index: int) -> None:
    found = _opened(sink, meta, spec, item, index)
    if found.done_count or found.closed:
        _lifecycle(sink, meta, spec, f"a delta for {_where(spec, item, index)} after its done event", "$.delta")
    delta = dig(payload, spec.delta_path, index)
    if isinstance(delta, str):
        found.deltas.append(delta)


def _done(sink: Sink, meta: EventMeta, spec: FieldSpec, payload: dict[str, Any], item: Item, index: int) -> None:
    found = _opened(sink, meta, spec, item, index)
    found.done_count += 1
    if found.done_count > 1:
        _lifecycle(sink, meta, spec, f"a second {shown(meta.type)} for {_where(spec, item, index)}")
        return
    if found.closed:
        _lifecycle(sink, meta, spec, f"{shown(meta.type)} for {_where(spec, item, index)} after its part's done")
    if spec.done_path is None:
        return
    value = dig(payload, spec.done_path, index)
    joined = found.joined()
    path = "$" + render(spec.done_path, index)
    if isinstance(value, str):
        if value != joined:
            sink.add(spec.rule, f"{path[2:]} is {short(value)} but the {len(found.deltas)} deltas of "
                     f"{_where(spec, item, index)} join to {short(joined)}", meta.evidence(path, joined, value))
        found.done = value


def _close(sink: Sink, meta: EventMeta, spec: FieldSpec, payload: dict[str, Any], item: Item, index: int) -> None:
    """The part that holds the field is done (reasoning_summary_part.done): its text is the field's."""
    found = _opened(sink, meta, spec, item, index)
    if found.closed:
        _lifecycle(sink, meta, spec, f"a second {shown(meta.type)} for {_where(spec, item, index)}")
        return
    found.closed = True
    value = dig(payload, spec.close_path or (), index)
    streamed = found.done if found.done is not None else found.joined()
    path = "$" + render(spec.close_path or (), index)
    if isinstance(value, str) and value != streamed:
        sink.add(spec.rule, f"{path[2:]} is {short(value)} but {_where(spec, item, index)} was streamed as "
                 f"{short(streamed)}", meta.evidence(path, streamed, value))


def _annotation(sink: Sink, meta: EventMeta, spec: FieldSpec, payload: dict[str, Any], item: Item,
                index: int) -> None:
    """An output_text annotation: inside an open part, numbered from 0 in order."""
    part = item.parts.get(index)
    if part is None or part.done:
        state = "never added" if part is None else "after its content_part.done"
        _lifecycle(sink, meta, spec, f"{shown(meta.type)} for content part {index} of {shown(item.id)}, {state}",
                   "$.content_index")
    added = item.annotations.setdefault(index, [])
    number = as_int(payload.get("annotation_index"))
    if number is not None and number != len(added):
        sink.add(spec.rule, f"annotation_index {number} for content part {index} of {shown(item.id)}; expected "
                 f"{len(added)} (numbered from 0, in order)", meta.evidence("$.annotation_index", len(added), number))
    added.append(payload.get("annotation"))


_ACTIONS = {"added": _added, "delta": _delta, "done": _done, "close": _close, "annotation": _annotation}


def part_done(sink: Sink, meta: EventMeta, payload: dict[str, Any], item: Item, index: int) -> None:
    """A `response.content_part.done`: a reasoning_text part's text is its reasoning_text.done text (RSP-ITEM-005);
    an output_text part's annotations are the ones added (RSP-ITEM-008)."""
    part = payload.get("part")
    if not isinstance(part, dict):
        return
    kind = as_str(part.get("type"))
    reasoning = FIELDS["reasoning text"]
    found = item.fields.get((reasoning.name, index))
    if kind == "reasoning_text" and found is not None:
        found.closed = True
        streamed = found.done if found.done is not None else found.joined()
        text = part.get("text")
        if isinstance(text, str) and text != streamed:
            sink.add(reasoning.rule, f"part.text is {short(text)} but {_where(reasoning, item, index)} was streamed "
                     f"as {short(streamed)}", meta.evidence("$.part.text", streamed, text))
    if kind == "output_text":
        _same_annotations(sink, meta, item, index, part.get("annotations"), "$.part.annotations")


def _same_annotations(sink: Sink, meta: EventMeta, item: Item, index: int, value: object, path: str) -> None:
    added = item.annotations.get(index, [])
    if isinstance(value, list) and value != added:
        spec = FIELDS["output_text annotations"]
        sink.add(spec.rule, f"{path[2:]} of content part {index} of {shown(item.id)} is {short(value)}; the "
                 f"annotation.added events gave {short(added)}",
                 meta.evidence(path, cast(JSONValue, added), cast(JSONValue, value)))


def fields_done(sink: Sink, meta: EventMeta, item: Item, raw: dict[str, Any]) -> None:
    """A `response.output_item.done`: every field streamed for the item is done, and the item holds its value."""
    for (name, index), found in item.fields.items():
        spec = FIELDS[name]
        if found.done_count == 0:
            _lifecycle(sink, meta, spec, f"{_where(spec, item, index)} is still open (no done event) when its "
                       "output_item.done arrives", "$.item")
        elif spec.close_path is not None and not found.closed:
            _lifecycle(sink, meta, spec, f"{_where(spec, item, index)} has no part done event before its "
                       "output_item.done", "$.item")
        if spec.item_path is None:
            continue
        streamed = found.done if found.done is not None else found.joined()
        value = dig(raw, spec.item_path, index)
        path = "$.item" + render(spec.item_path, index)
        if value != streamed and (found.done is not None or len(found.deltas)):
            now = short(value) if value is not None else "missing"
            sink.add(spec.rule, f"{path[2:]} is {now} but {_where(spec, item, index)} was streamed as "
                     f"{short(streamed)}", meta.evidence(path, streamed, cast(JSONValue, value)))
    content = raw.get("content")
    if item.type == "message" and isinstance(content, list):
        for index, part in item.parts.items():
            if part.kind == "output_text" and index < len(content) and isinstance(content[index], dict):
                _same_annotations(sink, meta, item, index, content[index].get("annotations"),
                                  f"$.item.content[{index}].annotations")

