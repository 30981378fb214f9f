"""The output items of a Responses stream or body: added and done in order, their ids, call ids and names, the
arguments of a done call, and the final `response.output` against the items done on the wire (RSP-ID-*,
RSP-LIFE-004/005/007/008, RSP-ARGS-002/003/004); RSP-ID-011 compares every other field of a done item with its
copy in the terminal response."""

from __future__ import annotations

from typing import Any, cast

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Profile

from ._front import EventMeta, Sink, as_int, as_str, parse_json_object, short, shown
from ._relay_caveat import relay_caveat
from ._responses_field_rules import fields_done
from ._responses_state import PART_TEXT_KEY, Item, same

__all__ = ["CALL_TYPES", "OutputItems"]

#: Keys of a done item that other rules compare when both sides are non-empty strings (RSP-ID-009 the id,
#: RSP-ID-006 call_id, RSP-ID-007 name, RSP-ARGS-003 a function call's arguments); RSP-ID-011 compares them
#: otherwise, and every key of the other item types (an MCP call's arguments, a custom call's input).
_COMPARED_ELSEWHERE = frozenset(("id", "call_id", "name", "arguments"))
#: The item types with a call_id the client answers with a tool result: claimed once per response (RSP-ID-008) and
#: kept from added to done (RSP-ID-006).
CALL_TYPES = frozenset(("function_call", "custom_tool_call", "shell_call"))


class OutputItems:
    """The items added so far, by output_index and by id, and the call ids claimed; reports to the sink."""

    def __init__(self, sink: Sink, profile: Profile) -> None:
        self._sink = sink
        self._profile = profile
        self._items: dict[int, Item] = {}
        self._by_id: dict[str, Item] = {}
        self._call_ids: dict[str, int] = {}
        self._duplicate_ids: set[str] = set()

    def not_done(self) -> list[Item]:
        """The items added but never done, in the order they were added."""
        return [item for item in self._items.values() if not item.done]

    def finals(self) -> list[dict[str, Any]]:
        """The items of the done events, in output_index order (each passed the output item schema)."""
        return [item.final for _, item in sorted(self._items.items()) if item.final is not None]

    def added(self, meta: EventMeta, payload: dict[str, Any]) -> None:
        """A `response.output_item.added` event."""
        output_index = as_int(payload.get("output_index"))
        raw = payload.get("item")
        if output_index is None or not isinstance(raw, dict):
            return
        expected = len(self._items)
        if output_index != expected or output_index in self._items:
            self._sink.add("RSP-ID-002", f"output_index {output_index} added; expected {expected}",
                           meta.evidence("$.output_index", expected, output_index))
            if output_index in self._items:
                return
        item = Item(output_index, as_str(raw.get("id")), as_str(raw.get("type")))
        if item.id is not None:
            if item.id in self._by_id:
                self._duplicate_ids.add(item.id)
                self._sink.add("RSP-ID-003", f"item id {shown(item.id)} is already used by output_index "
                               f"{self._by_id[item.id].output_index}", meta.evidence("$.item.id", actual=item.id))
            else:
                self._by_id[item.id] = item
        self._items[output_index] = item
        if item.type in CALL_TYPES:
            item.call_id = as_str(raw.get("call_id")) or None
            item.name = as_str(raw.get("name")) or None
            if item.call_id is not None:
                self.claim_call_id(meta, item.call_id, output_index, "$.item.call_id")

    def done(self, meta: EventMeta, payload: dict[str, Any]) -> None:
        """A `response.output_item.done` event."""
        output_index = as_int(payload.get("output_index"))
        raw = payload.get("item")
        if output_index is None or not isinstance(raw, dict):
            return
        item = self._items.get(output_index)
        if item is None:
            self._sink.add("RSP-LIFE-004", f"output_item.done for output_index {output_index}, never added",
                           meta.evidence("$.output_index", actual=output_index))
            return
        rid = as_str(raw.get("id"))
        if item.id is not None and rid is not None and rid != item.id:
            self._sink.add("RSP-ID-001", f"item.id {rid!r} at output_index {output_index}, which was added as "
                           f"{shown(item.id)}", meta.evidence("$.item.id", item.id, rid))
        if item.done:
            self._sink.add("RSP-LIFE-005", f"output_index {output_index} is done a second time",
                           meta.evidence("$.output_index", actual=output_index))
            return
        item.done = True
        item.final = raw
        if item.type == "function_call":
            self._call_done(meta, item, raw)
        elif item.type == "message":
            self._message_done(meta, item, raw)
        elif item.type in CALL_TYPES:
            self._call_id_done(meta, item, raw)
        fields_done(self._sink, meta, item, raw)

    def named(self, meta: EventMeta, payload: dict[str, Any]) -> Item | None:
        """The open item an event names by item_id or output_index; None (reported) when there is none."""
        item_id = as_str(payload.get("item_id"))
        output_index = as_int(payload.get("output_index"))
        if item_id in self._duplicate_ids and output_index is not None and output_index in self._items:
            item = self._items[output_index]  # an ambiguous id (RSP-ID-003): trust the output_index
        elif item_id is not None:
            found = self._by_id.get(item_id)
            if found is None:
                self._sink.add("RSP-LIFE-004", f"item_id {shown(item_id)} names no item added so far",
                               meta.evidence("$.item_id", actual=item_id))
                return None
            item = found
            if output_index is not None and output_index != item.output_index:
                self._sink.add("RSP-ID-001", f"output_index {output_index} for item {shown(item_id)}, which was added "
                               f"at output_index {item.output_index}",
                               meta.evidence("$.output_index", item.output_index, output_index))
        elif output_index is not None:
            at = self._items.get(output_index)
            if at is None:
                self._sink.add("RSP-LIFE-004", f"output_index {output_index} names no item added so far",
                               meta.evidence("$.output_index", actual=output_index))
                return None
            item = at
        else:
            return None
        if item.done:
            self._sink.add("RSP-LIFE-005", f"{shown(meta.type)} for item {shown(item.id)} after its output_item.done",
                           meta.evidence("$.item_id"))
            return None
        return item

    def final_output(self, meta: EventMeta, output: list[Any]) -> None:
        """A terminal event's `response.output` against the items done on the wire."""
        sink = self._sink
        done = [item for _, item in sorted(self._items.items()) if item.done]
        got = [(as_str(o.get("type")), as_str(o.get("id"))) if isinstance(o, dict) else (None, None) for o in output]
        want = [(item.type, item.id) for item in done]
        if [t for t, _ in got] != [t for t, _ in want] or any(
            w is not None and g is not None and w != g for (_, g), (_, w) in zip(got, want, strict=False)
        ):
            sink.add("RSP-ID-009", f"response.output is {short(got)}; the done items were {short(want)}",
                     meta.evidence("$.response.output", [list(w) for w in want], [list(g) for g in got]))
            return
        for position, (item, final) in enumerate(zip(done, output, strict=True)):
            path = f"$.response.output[{position}]"
            if item.type == "function_call" and item.final is not None:
                same(sink, meta, "RSP-ID-006", "call_id", item.final.get("call_id"), final.get("call_id"), path)
                same(sink, meta, "RSP-ID-007", "name", item.final.get("name"), final.get("name"), path)
                same(sink, meta, "RSP-ARGS-003", "arguments", item.final.get("arguments"),
                     final.get("arguments"), path)
            elif item.type == "message":
                self._message_texts(meta, item, final, path)
            elif item.type in CALL_TYPES and item.final is not None:
                same(sink, meta, "RSP-ID-006", "call_id", item.final.get("call_id"), final.get("call_id"), path)
            self._same_item(meta, item, final, path)

    def failed_output(self, meta: EventMeta, output: list[Any]) -> None:
        """A response.failed's `output`: the items it lists (it may list fewer) as their done events said."""
        for position, final in enumerate(output):
            if not isinstance(final, dict):
                continue
            fid = as_str(final.get("id"))
            item = self._by_id.get(fid) if fid is not None else self._items.get(position)
            if item is not None and item.done:
                self._same_item(meta, item, final, f"$.response.output[{position}]")

    def _same_item(self, meta: EventMeta, item: Item, final: dict[str, Any], path: str) -> None:
        """Every field the item's output_item.done carried, with the same value in the final item (RSP-ID-011)."""
        done = item.final
        if done is None:
            return
        for key, value in done.items():
            got = final.get(key)
            elsewhere = key in _COMPARED_ELSEWHERE and (item.type == "function_call" or key in ("id", "call_id"))
            if key == "type" or (elsewhere and _both_text(value, got)):
                continue
            if key == "content" and isinstance(value, list) and isinstance(got, list) and len(value) == len(got):
                for index, (before, now) in enumerate(zip(value, got, strict=True)):
                    part = item.parts.get(index)
                    text_key = PART_TEXT_KEY.get(part.kind, "text") if part is not None and part.text else None
                    self._same_fields(meta, item, before, now, f"{path}.content[{index}]", text_key)
                continue
            self._differs(meta, item, f"{path}.{key}", value, got, key in final)

    def _same_fields(self, meta: EventMeta, item: Item, before: object, now: object, path: str,
                     skip: str | None) -> None:
        if not isinstance(before, dict) or not isinstance(now, dict):
            self._differs(meta, item, path, before, now, True)
            return
        for key, value in before.items():
            if key != skip or not _both_text(value, now.get(key)):
                self._differs(meta, item, f"{path}.{key}", value, now.get(key), key in now)

    def _differs(self, meta: EventMeta, item: Item, path: str, done: object, final: object, present: bool) -> None:
        if final == done and (present or done is None):
            return
        now = short(final) if present else "missing"
        self._sink.add("RSP-ID-011", f"{path[2:]} is {now} in the terminal response but {short(done)} in the "
                       f"output_item.done of item {shown(item.id)} (output_index {item.output_index})",
                       meta.evidence(path, cast(JSONValue, done), cast(JSONValue, final) if present else None))

    def check_arguments(self, meta: EventMeta, arguments: str | None, path: str) -> None:
        """A done call's arguments are a JSON object (RSP-ARGS-004); lenient accepts ''."""
        if arguments is None or (arguments == "" and self._profile == "lenient"):
            return
        if arguments == "":
            self._sink.add("RSP-ARGS-004", "arguments are '' (send '{}' for a call without arguments)",
                           meta.evidence(path, "{}", ""))
            return
        problem = parse_json_object(arguments)
        if problem is not None:
            self._sink.add("RSP-ARGS-004", f"arguments {short(arguments)} are {problem}{relay_caveat(problem)}",
                           meta.evidence(path, actual=arguments[:200]))

    def claim_call_id(self, meta: EventMeta, call_id: str, output_index: int, path: str) -> None:
        """A call id belongs to one output_index (RSP-ID-008)."""
        owner = self._call_ids.setdefault(call_id, output_index)
        if owner != output_index:
            self._sink.add("RSP-ID-008", f"call_id {call_id!r} is already used by output_index {owner}",
                           meta.evidence(path, actual=call_id))

    def _call_id_done(self, meta: EventMeta, item: Item, raw: dict[str, Any]) -> None:
        """A call's call_id as added (RSP-ID-006), claimed here when the added item had none (RSP-ID-008)."""
        same(self._sink, meta, "RSP-ID-006", "call_id", item.call_id, raw.get("call_id"), "$.item")
        call_id = as_str(raw.get("call_id"))
        if item.call_id is None and call_id:
            item.call_id = call_id
            self.claim_call_id(meta, call_id, item.output_index, "$.item.call_id")

    def _call_done(self, meta: EventMeta, item: Item, raw: dict[str, Any]) -> None:
        sink = self._sink
        if item.args_done_count == 0:
            sink.add("RSP-LIFE-007", f"call {shown(item.id)} is done without response.function_call_arguments.done",
                     meta.evidence("$.item"))
        same(sink, meta, "RSP-ID-007", "name", item.name, raw.get("name"), "$.item")
        self._call_id_done(meta, item, raw)
        arguments = as_str(raw.get("arguments"))
        streamed = item.args_done if item.args_done is not None else (item.deltas.joined() if item.deltas else None)
        if arguments is not None and streamed is not None and arguments != streamed:
            sink.add("RSP-ARGS-002", f"item.arguments {short(arguments)} differ from the streamed {short(streamed)}",
                     meta.evidence("$.item.arguments", streamed, arguments))
        if raw.get("status") != "incomplete":
            self.check_arguments(meta, arguments, "$.item.arguments")

    def _message_done(self, meta: EventMeta, item: Item, raw: dict[str, Any]) -> None:
        for content_index, part in sorted(item.parts.items()):
            if not part.done:
                self._sink.add("RSP-LIFE-008", f"content part {content_index} of {shown(item.id)} is not done before "
                               "its item", meta.evidence("$.item"))
        self._message_texts(meta, item, raw, "$.item")

    def _message_texts(self, meta: EventMeta, item: Item, raw: dict[str, Any], path: str) -> None:
        content = raw.get("content")
        if not isinstance(content, list):
            return
        for content_index, part in item.parts.items():
            if part.text is None or content_index >= len(content) or not isinstance(content[content_index], dict):
                continue
            key = PART_TEXT_KEY.get(part.kind, "text")
            same(self._sink, meta, "RSP-TEXT-002", key, part.text, content[content_index].get(key),
                 f"{path}.content[{content_index}]")


def _both_text(before: object, now: object) -> bool:
    """Both values are non-empty strings: the rule that owns the key (`same`) compares them."""
    return isinstance(before, str) and isinstance(now, str) and bool(before) and bool(now)

