"""The Responses-front state machine: sequence, lifecycle, identity and reassembly rules (RSP-*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from callproof.harness.catalogue import Evidence, Profile

from ._front import EventMeta, Sink, as_int, as_str, parse_json_object, short, validate
from ._schemas import FrontSchemas

__all__ = ["BODY_RULES", "ResponsesChecker"]

#: The rules a non-stream Response body is checked for.
BODY_RULES = frozenset(("RSP-SCHEMA-003", "RSP-ID-004", "RSP-ID-005", "RSP-ID-008", "RSP-ARGS-004"))

_RESPONSE_EVENTS = frozenset((
    "response.created", "response.in_progress", "response.queued",
    "response.completed", "response.incomplete", "response.failed",
))
_TERMINAL_STATUS = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}
_TEXT_DELTA = {"response.output_text.delta": "output_text", "response.refusal.delta": "refusal"}
_TEXT_DONE = {"response.output_text.done": ("output_text", "text"), "response.refusal.done": ("refusal", "refusal")}
_PART_TEXT_KEY = {"output_text": "text", "refusal": "refusal"}


def _schema_rule(path: str) -> str | None:
    """Schema errors on identity fields are reported under their specific rule."""
    if path == "$.sequence_number":
        return "RSP-SEQ-001"
    leaf = path.rsplit(".", 1)[-1]
    in_item = path.startswith(("$.item.", "$.response.output[", "$.output["))
    if leaf == "call_id" and in_item:
        return "RSP-ID-004"
    if leaf == "name" and (in_item or path == "$.name"):
        return "RSP-ID-005"
    return None


class _Deltas:
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
class _Part:
    kind: str
    deltas: _Deltas = field(default_factory=_Deltas)
    text: str | None = None
    done: bool = False


@dataclass(slots=True)
class _Item:
    output_index: int
    id: str | None
    type: str | None
    call_id: str | None = None
    name: str | None = None
    deltas: _Deltas = field(default_factory=_Deltas)
    args_done: str | None = None
    args_done_count: int = 0
    done: bool = False
    final: dict[str, Any] | None = None
    parts: dict[int, _Part] = field(default_factory=dict)


class ResponsesChecker:
    """Fed one decoded event at a time; reports to the sink."""

    def __init__(self, sink: Sink, schemas: FrontSchemas, profile: Profile) -> None:
        self._sink = sink
        self._schemas = schemas
        self._profile = profile
        self._events = 0
        self._prev_seq: int | None = None
        self._created = False
        self._terminal: EventMeta | None = None
        self._after_terminal = False
        self._response_id: str | None = None
        self._items: dict[int, _Item] = {}
        self._by_id: dict[str, _Item] = {}
        self._call_ids: dict[str, int] = {}
        self._duplicate_ids: set[str] = set()
        self._done_sentinel: EventMeta | None = None
        self._error_event: EventMeta | None = None
        self._error_terminates = profile != "open-responses"

    # -- the stream ---------------------------------------------------------------------------------
    def event(self, meta: EventMeta, payload: Any) -> None:
        index = self._events
        self._events += 1
        sink = self._sink
        if not isinstance(payload, dict):
            sink.add("RSP-SCHEMA-001", f"the event is a JSON {short(payload, 40)}, not an object",
                     meta.evidence("$"))
            return
        etype = meta.type
        if index == 0 and etype != "response.created":
            sink.add("RSP-LIFE-001", f"the first event is {etype!r}, not 'response.created'",
                     meta.evidence("$.type", "response.created", etype))
        elif etype == "response.created" and self._created:
            sink.add("RSP-LIFE-001", "'response.created' occurs a second time", meta.evidence("$.type"))
        if self._done_sentinel is not None and self._profile == "open-responses":
            sink.add("RSP-FRAME-002", "an event follows the [DONE] sentinel", meta.evidence())
        if self._terminal is not None and self._profile == "lenient" and etype == "response.failed" \
                and self._terminal is self._error_event:
            self._terminal = None  # lenient accepts both endings: OpenAI's bare `error`, Open Responses' error + failed
        if self._terminal is not None:
            if not self._after_terminal:
                self._after_terminal = True
                sink.add("RSP-LIFE-003",
                         f"{etype!r} follows the terminal event #{self._terminal.index} {self._terminal.type!r}",
                         meta.evidence("$.type"))
            return
        self._sequence(meta, index, payload.get("sequence_number"))
        if not self._validate(meta, etype, payload):
            return
        assert etype is not None
        if etype in _RESPONSE_EVENTS:
            self._response_event(meta, etype, payload)
        elif etype == "response.output_item.added":
            self._item_added(meta, payload)
        elif etype == "response.output_item.done":
            self._item_done(meta, payload)
        elif etype == "error":
            self._error_event = meta
            if self._error_terminates:
                self._terminal = meta
        elif "item_id" in payload or "output_index" in payload:
            item = self._item_for(meta, payload)
            if item is not None:
                self._item_event(meta, etype, payload, item)

    def done_sentinel(self, meta: EventMeta) -> None:
        if self._done_sentinel is not None:
            self._sink.add("RSP-FRAME-002", "a second [DONE] sentinel", meta.evidence())
        self._done_sentinel = meta
        if self._profile == "openai":
            self._sink.add("RSP-FRAME-001", "`data: [DONE]` sent on the Responses front", meta.evidence())
        elif self._profile == "open-responses" and self._terminal is None:
            self._sink.add("RSP-FRAME-002", "[DONE] arrives before the terminal event", meta.evidence())

    def finish(self, last: EventMeta | None) -> None:
        sink = self._sink
        if self._events == 0:
            sink.add("RSP-LIFE-001", "the stream has no events", last.evidence() if last else Evidence())
        if self._terminal is None:
            where = f"after event #{last.index} {last.type!r}" if last is not None else "with no events"
            sink.add("RSP-LIFE-002", f"the stream ends {where} without a terminal event",
                     last.evidence() if last else Evidence())
        if self._profile == "open-responses" and self._done_sentinel is None:
            sink.add("RSP-FRAME-002", "the stream ends without `data: [DONE]`",
                     last.evidence() if last else Evidence())
        error = self._error_event
        if error is not None and (self._terminal is None or self._terminal.type != "response.failed"):
            ended = self._terminal.type if self._terminal is not None else "nothing"
            sink.add("RSP-LIFE-010", f"the error event #{error.index} is followed by {ended!r}, not response.failed",
                     error.evidence())

    def body(self, meta: EventMeta, payload: Any) -> None:
        if isinstance(payload, dict) and "error" in payload and "object" not in payload:
            validate(self._sink, meta, self._schemas.error_body, payload, "RSP-SCHEMA-003", lambda _: None)
            return
        validate(self._sink, meta, self._schemas.body, payload, "RSP-SCHEMA-003", _schema_rule)
        if not isinstance(payload, dict) or not isinstance(payload.get("output"), list):
            return
        status = payload.get("status")
        for position, item in enumerate(payload["output"]):
            if not isinstance(item, dict) or item.get("type") != "function_call":
                continue
            path = f"$.output[{position}]"
            call_id = as_str(item.get("call_id"))
            if call_id:
                self._claim_call_id(meta, call_id, position, path + ".call_id")
            if status != "incomplete" and item.get("status") != "incomplete":
                self._check_arguments(meta, as_str(item.get("arguments")), path + ".arguments")

    # -- per event kind ------------------------------------------------------------------------------
    def _sequence(self, meta: EventMeta, index: int, value: object) -> None:
        seq = as_int(value)
        if seq is None:
            self._prev_seq = None  # reported by the schema (RSP-SEQ-001); the next event starts afresh
            return
        if index == 0 and seq != 0:
            self._sink.add("RSP-SEQ-002", f"the first sequence_number is {seq}, not 0",
                           meta.evidence("$.sequence_number", 0, seq))
        elif self._prev_seq is not None and seq != self._prev_seq + 1:
            self._sink.add("RSP-SEQ-003",
                           f"sequence_number {seq} follows {self._prev_seq}; expected {self._prev_seq + 1}",
                           meta.evidence("$.sequence_number", self._prev_seq + 1, seq))
        self._prev_seq = seq

    def _validate(self, meta: EventMeta, etype: str | None, payload: dict[str, Any]) -> bool:
        if etype is None:
            self._sink.add("RSP-SCHEMA-001", "the event has no string `type`", meta.evidence("$.type"))
            return False
        validator = self._schemas.events.get(etype)
        if validator is None:
            if ":" in etype and self._schemas.extensions:
                return False
            known = sorted(self._schemas.events)
            near = [k for k in known if k.rsplit(".", 1)[0] == etype.rsplit(".", 1)[0]][:3]
            hint = f"; nearest known: {', '.join(near)}" if near else ""
            self._sink.add("RSP-SCHEMA-002", f"unknown event type {etype!r} for profile {self._profile}{hint}",
                           meta.evidence("$.type", actual=etype))
            return False
        validate(self._sink, meta, validator, payload, "RSP-SCHEMA-001", _schema_rule)
        return True

    def _response_event(self, meta: EventMeta, etype: str, payload: dict[str, Any]) -> None:
        response = payload.get("response")
        if etype == "response.created":
            self._created = True
        if not isinstance(response, dict):
            return
        rid = as_str(response.get("id"))
        if rid is not None:
            if self._response_id is None:
                self._response_id = rid
            elif rid != self._response_id:
                self._sink.add("RSP-ID-010", f"response.id is {rid!r}; earlier events said {self._response_id!r}",
                               meta.evidence("$.response.id", self._response_id, rid))
        expected = _TERMINAL_STATUS.get(etype)
        if expected is None:
            return
        self._terminal = meta
        status = response.get("status")
        if isinstance(status, str) and status != expected:
            self._sink.add("RSP-LIFE-009", f"{etype} carries response.status {status!r}",
                           meta.evidence("$.response.status", expected, status))
        if etype == "response.completed":
            for item in self._items.values():
                if not item.done:
                    self._sink.add("RSP-LIFE-006",
                                   f"item {item.id!r} (output_index {item.output_index}) is never done",
                                   meta.evidence("$.response.output", actual=item.output_index))
        if etype != "response.failed" and isinstance(response.get("output"), list):
            self._final_output(meta, response["output"])

    def _final_output(self, meta: EventMeta, output: list[Any]) -> None:
        done = [item for _, item in sorted(self._items.items()) if item.done]
        got = [(as_str(o.get("type")), as_str(o.get("id"))) if isinstance(o, dict) else (None, None) for o in output]
        want = [(item.type, item.id) for item in done]
        if [t for t, _ in got] != [t for t, _ in want] or any(
            w is not None and g is not None and w != g for (_, g), (_, w) in zip(got, want, strict=False)
        ):
            self._sink.add("RSP-ID-009", f"response.output is {short(got)}; the done items were {short(want)}",
                           meta.evidence("$.response.output", [list(w) for w in want], [list(g) for g in got]))
            return
        for position, (item, final) in enumerate(zip(done, output, strict=True)):
            path = f"$.response.output[{position}]"
            if item.type == "function_call" and item.final is not None:
                self._same(meta, "RSP-ID-006", "call_id", item.final.get("call_id"), final.get("call_id"), path)
                self._same(meta, "RSP-ID-007", "name", item.final.get("name"), final.get("name"), path)
                self._same(meta, "RSP-ARGS-003", "arguments", item.final.get("arguments"),
                           final.get("arguments"), path)
            elif item.type == "message":
                self._message_texts(meta, item, final, path)

    def _item_added(self, meta: EventMeta, payload: dict[str, Any]) -> None:
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
        item = _Item(output_index, as_str(raw.get("id")), as_str(raw.get("type")))
        if item.id is not None:
            if item.id in self._by_id:
                self._duplicate_ids.add(item.id)
                self._sink.add("RSP-ID-003", f"item id {item.id!r} is already used by output_index "
                               f"{self._by_id[item.id].output_index}", meta.evidence("$.item.id", actual=item.id))
            else:
                self._by_id[item.id] = item
        self._items[output_index] = item
        if item.type == "function_call":
            item.call_id = as_str(raw.get("call_id")) or None
            item.name = as_str(raw.get("name")) or None
            if item.call_id is not None:
                self._claim_call_id(meta, item.call_id, output_index, "$.item.call_id")

    def _item_done(self, meta: EventMeta, payload: dict[str, Any]) -> None:
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
                           f"{item.id!r}", meta.evidence("$.item.id", item.id, rid))
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

    def _call_done(self, meta: EventMeta, item: _Item, raw: dict[str, Any]) -> None:
        sink = self._sink
        if item.args_done_count == 0:
            sink.add("RSP-LIFE-007", f"call {item.id!r} is done without response.function_call_arguments.done",
                     meta.evidence("$.item"))
        self._same(meta, "RSP-ID-006", "call_id", item.call_id, raw.get("call_id"), "$.item")
        self._same(meta, "RSP-ID-007", "name", item.name, raw.get("name"), "$.item")
        call_id = as_str(raw.get("call_id"))
        if item.call_id is None and call_id:
            item.call_id = call_id
            self._claim_call_id(meta, call_id, item.output_index, "$.item.call_id")
        arguments = as_str(raw.get("arguments"))
        streamed = item.args_done if item.args_done is not None else (item.deltas.joined() if item.deltas else None)
        if arguments is not None and streamed is not None and arguments != streamed:
            sink.add("RSP-ARGS-002", f"item.arguments {short(arguments)} differ from the streamed {short(streamed)}",
                     meta.evidence("$.item.arguments", streamed, arguments))
        if raw.get("status") != "incomplete":
            self._check_arguments(meta, arguments, "$.item.arguments")

    def _check_arguments(self, meta: EventMeta, arguments: str | None, path: str) -> None:
        if arguments is None or (arguments == "" and self._profile == "lenient"):
            return
        if arguments == "":
            self._sink.add("RSP-ARGS-004", "arguments are '' (send '{}' for a call without arguments)",
                           meta.evidence(path, "{}", ""))
            return
        problem = parse_json_object(arguments)
        if problem is not None:
            self._sink.add("RSP-ARGS-004", f"arguments {short(arguments)} are {problem}",
                           meta.evidence(path, actual=arguments[:200]))

    def _claim_call_id(self, meta: EventMeta, call_id: str, output_index: int, path: str) -> None:
        owner = self._call_ids.setdefault(call_id, output_index)
        if owner != output_index:
            self._sink.add("RSP-ID-008", f"call_id {call_id!r} is already used by output_index {owner}",
                           meta.evidence(path, actual=call_id))

    def _message_done(self, meta: EventMeta, item: _Item, raw: dict[str, Any]) -> None:
        for content_index, part in sorted(item.parts.items()):
            if not part.done:
                self._sink.add("RSP-LIFE-008", f"content part {content_index} of {item.id!r} is not done before "
                               "its item", meta.evidence("$.item"))
        self._message_texts(meta, item, raw, "$.item")

    def _message_texts(self, meta: EventMeta, item: _Item, raw: dict[str, Any], path: str) -> None:
        content = raw.get("content")
        if not isinstance(content, list):
            return
        for content_index, part in item.parts.items():
            if part.text is None or content_index >= len(content) or not isinstance(content[content_index], dict):
                continue
            key = _PART_TEXT_KEY.get(part.kind, "text")
            self._same(meta, "RSP-TEXT-002", key, part.text, content[content_index].get(key),
                       f"{path}.content[{content_index}]")

    def _item_for(self, meta: EventMeta, payload: dict[str, Any]) -> _Item | None:
        item_id = as_str(payload.get("item_id"))
        output_index = as_int(payload.get("output_index"))
        if item_id in self._duplicate_ids and output_index is not None and output_index in self._items:
            item = self._items[output_index]  # an ambiguous id (RSP-ID-003): trust the output_index
        elif item_id is not None:
            named = self._by_id.get(item_id)
            if named is None:
                self._sink.add("RSP-LIFE-004", f"item_id {item_id!r} names no item added so far",
                               meta.evidence("$.item_id", actual=item_id))
                return None
            item = named
            if output_index is not None and output_index != item.output_index:
                self._sink.add("RSP-ID-001", f"output_index {output_index} for item {item_id!r}, which was added "
                               f"at output_index {item.output_index}",
                               meta.evidence("$.output_index", item.output_index, output_index))
        elif output_index is not None:
            found = self._items.get(output_index)
            if found is None:
                self._sink.add("RSP-LIFE-004", f"output_index {output_index} names no item added so far",
                               meta.evidence("$.output_index", actual=output_index))
                return None
            item = found
        else:
            return None
        if item.done:
            self._sink.add("RSP-LIFE-005", f"{meta.type!r} for item {item.id!r} after its output_item.done",
                           meta.evidence("$.item_id"))
            return None
        return item

    def _item_event(self, meta: EventMeta, etype: str, payload: dict[str, Any], item: _Item) -> None:
        sink = self._sink
        if etype == "response.function_call_arguments.delta":
            if not self._is_call(meta, item):
                return
            if item.args_done_count:
                sink.add("RSP-LIFE-007", f"an arguments delta for {item.id!r} after its arguments.done",
                         meta.evidence("$.delta"))
            delta = as_str(payload.get("delta"))
            if delta is not None:
                item.deltas.append(delta)
        elif etype == "response.function_call_arguments.done":
            if not self._is_call(meta, item):
                return
            item.args_done_count += 1
            if item.args_done_count > 1:
                sink.add("RSP-LIFE-007", f"a second arguments.done for {item.id!r}", meta.evidence())
                return
            arguments = as_str(payload.get("arguments"))
            joined = item.deltas.joined()
            if arguments is not None and arguments != joined:
                sink.add("RSP-ARGS-001",
                         f"arguments {short(arguments)} differ from the {len(item.deltas)} joined deltas "
                         f"{short(joined)}",
                         meta.evidence("$.arguments", joined, arguments))
            item.args_done = arguments
            self._same(meta, "RSP-ID-007", "name", item.name, payload.get("name"), "$")
        elif etype == "response.content_part.added":
            index = as_int(payload.get("content_index"))
            part = payload.get("part")
            if index is None:
                return
            if index in item.parts:
                sink.add("RSP-LIFE-008", f"content part {index} of {item.id!r} is added twice",
                         meta.evidence("$.content_index", actual=index))
                return
            kind = as_str(part.get("type")) if isinstance(part, dict) else None
            item.parts[index] = _Part(kind or "output_text")
        elif etype == "response.content_part.done":
            found = self._open_part(meta, item, payload)
            if found is not None:
                found.done = True
                part = payload.get("part")
                if isinstance(part, dict) and found.text is not None:
                    key = _PART_TEXT_KEY.get(found.kind, "text")
                    self._same(meta, "RSP-TEXT-002", key, found.text, part.get(key), "$.part")
        elif etype in _TEXT_DELTA:
            found = self._open_part(meta, item, payload)
            if found is not None:
                if found.text is not None:
                    sink.add("RSP-LIFE-008", f"a delta after the {found.kind} done event of part "
                             f"{payload.get('content_index')}", meta.evidence("$.delta"))
                delta = as_str(payload.get("delta"))
                if delta is not None:
                    found.deltas.append(delta)
        elif etype in _TEXT_DONE:
            found = self._open_part(meta, item, payload)
            kind, key = _TEXT_DONE[etype]
            if found is not None:
                text = as_str(payload.get(key))
                joined = found.deltas.joined()
                if text is not None and text != joined:
                    sink.add("RSP-TEXT-001", f"{key} {short(text)} differs from the joined deltas {short(joined)}",
                             meta.evidence(f"$.{key}", joined, text))
                found.text = text

    def _open_part(self, meta: EventMeta, item: _Item, payload: dict[str, Any]) -> _Part | None:
        index = as_int(payload.get("content_index"))
        if index is None:
            return None
        part = item.parts.get(index)
        if part is None:
            self._sink.add("RSP-LIFE-008", f"{meta.type!r} for content part {index} of {item.id!r}, never added",
                           meta.evidence("$.content_index", actual=index))
            part = item.parts[index] = _Part("refusal" if "refusal" in (meta.type or "") else "output_text")
        if part.done:
            self._sink.add("RSP-LIFE-008", f"{meta.type!r} for content part {index} after its content_part.done",
                           meta.evidence("$.content_index", actual=index))
            return None
        return part

    def _is_call(self, meta: EventMeta, item: _Item) -> bool:
        if item.type == "function_call":
            return True
        self._sink.add("RSP-ID-001", f"{meta.type!r} names item {item.id!r}, a {item.type!r}, not a function_call",
                       meta.evidence("$.item_id", "function_call", item.type))
        return False

    def _same(self, meta: EventMeta, rule: str, key: str, before: object, now: object, path: str) -> None:
        """Report `rule` when both values are non-empty strings and differ."""
        if isinstance(before, str) and isinstance(now, str) and before and now and before != now:
            self._sink.add(rule, f"{key} is {short(now)} here but {short(before)} before",
                           meta.evidence(f"{path}.{key}" if path != "$" else f"$.{key}", before, now))
