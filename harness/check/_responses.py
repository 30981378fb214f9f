"""The Responses-front state machine: the stream's framing, sequence and lifecycle, and the non-stream body
(RSP-*). The output items are tracked in `_responses_items`, each item reassembled in `_responses_reassembly`."""

from __future__ import annotations

from typing import Any

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence, Profile

from ._front import EventMeta, Sink, as_int, as_str, short, shown, validate
from ._responses_field_rules import field_event
from ._responses_items import CALL_TYPES, OutputItems
from ._responses_reassembly import item_event
from ._responses_state import Item
from ._schemas import FrontSchemas

__all__ = ["BODY_RULES", "ResponsesChecker"]

#: The rules a non-stream Response body is checked for.
BODY_RULES = frozenset(("RSP-SCHEMA-003", "RSP-ID-004", "RSP-ID-005", "RSP-ID-008", "RSP-ARGS-004", "RSP-LIFE-011"))

_RESPONSE_EVENTS = frozenset((
    "response.created", "response.in_progress", "response.queued",
    "response.completed", "response.incomplete", "response.failed",
))
_TERMINAL_STATUS = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


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
        self._items = OutputItems(sink, profile)
        self._streams = Item(-1, None, None)  # the response-level streams (audio, audio transcript)
        self._done_sentinel: EventMeta | None = None
        self._error_event: EventMeta | None = None
        self._error_terminates = profile != "open-responses"

    @property
    def ended(self) -> bool:
        """Whether a terminal event has arrived (the response is no longer in flight)."""
        return self._terminal is not None

    @property
    def response_id(self) -> str | None:
        """The response's id as its first response event gave it."""
        return self._response_id

    # -- the stream ---------------------------------------------------------------------------------
    def event(self, meta: EventMeta, payload: JSONValue) -> None:
        index = self._events
        self._events += 1
        sink = self._sink
        if not isinstance(payload, dict):
            sink.add("RSP-SCHEMA-001", f"the event is a JSON {short(payload, 40)}, not an object",
                     meta.evidence("$"))
            return
        etype = meta.type
        if index == 0 and etype != "response.created":
            sink.add("RSP-LIFE-001", f"the first event is {shown(etype)}, not 'response.created'",
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
                sink.add("RSP-LIFE-003", f"{shown(etype)} follows the terminal event #{self._terminal.index} "
                         f"{shown(self._terminal.type)}", meta.evidence("$.type"))
            return
        self._sequence(meta, index, payload.get("sequence_number"))
        if not self._validate(meta, etype, payload):
            return
        assert etype is not None
        if etype in _RESPONSE_EVENTS:
            self._response_event(meta, etype, payload)
        elif etype == "response.output_item.added":
            self._items.added(meta, payload)
        elif etype == "response.output_item.done":
            self._items.done(meta, payload)
        elif etype == "error":
            self._error_event = meta
            if self._error_terminates:
                self._terminal = meta
        elif "item_id" in payload or "output_index" in payload:
            item = self._items.named(meta, payload)
            if item is not None:
                item_event(sink, meta, etype, payload, item)
        else:
            field_event(sink, meta, etype, payload, self._streams)

    def done_sentinel(self, meta: EventMeta) -> None:
        if self._done_sentinel is not None:
            self._sink.add("RSP-FRAME-002", "a second [DONE] sentinel", meta.evidence())
        self._done_sentinel = meta
        if self._profile == "openai":
            self._sink.add("RSP-FRAME-001", "`data: [DONE]` sent on the Responses front", meta.evidence())
        elif self._profile == "open-responses" and self._terminal is None:
            self._sink.add("RSP-FRAME-002", "[DONE] arrives before the terminal event", meta.evidence())

    def finish(self, last: EventMeta | None, aborted: bool = False) -> None:
        sink = self._sink
        if self._events == 0:
            sink.add("RSP-LIFE-001", "the stream has no events", last.evidence() if last else Evidence())
        # an aborted body is an error ending the SDK raises on, not a stream without its end (docs/spec/verdicts.md §7)
        if self._terminal is None and not aborted:
            where = f"after event #{last.index} {last.type!r}" if last is not None else "with no events"
            sink.add("RSP-LIFE-002", f"the stream ends {where} without a terminal event",
                     last.evidence() if last else Evidence())
        if self._profile == "open-responses" and self._done_sentinel is None and not aborted:
            sink.add("RSP-FRAME-002", "the stream ends without `data: [DONE]`",
                     last.evidence() if last else Evidence())
        error = self._error_event
        if error is not None and (self._terminal is None or self._terminal.type != "response.failed"):
            ended = self._terminal.type if self._terminal is not None else "nothing"
            sink.add("RSP-LIFE-010", f"the error event #{error.index} is followed by {ended!r}, not response.failed",
                     error.evidence())

    def body(self, meta: EventMeta, payload: JSONData) -> None:
        if isinstance(payload, dict) and "error" in payload and "object" not in payload:
            validate(self._sink, meta, self._schemas.error_body, payload, "RSP-SCHEMA-003", lambda _: None)
            return
        validate(self._sink, meta, self._schemas.body, payload, "RSP-SCHEMA-003", _schema_rule)
        if not isinstance(payload, dict) or not isinstance(payload.get("output"), list):
            return
        status = payload.get("status")
        _statuses(self._sink, meta, status, payload["output"], "$.output")
        for position, item in enumerate(payload["output"]):
            if not isinstance(item, dict) or item.get("type") not in CALL_TYPES:
                continue
            path = f"$.output[{position}]"
            call_id = as_str(item.get("call_id"))
            if call_id:
                self._items.claim_call_id(meta, call_id, position, path + ".call_id")
            if item.get("type") == "function_call" and status != "incomplete" and item.get("status") != "incomplete":
                self._items.check_arguments(meta, as_str(item.get("arguments")), path + ".arguments")

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
            self._sink.add("RSP-SCHEMA-002", f"unknown event type {shown(etype)} for profile {self._profile}{hint}",
                           meta.evidence("$.type", actual=etype))
            return False
        if etype in _RESPONSE_EVENTS:
            payload = self._without_checked_output(payload)
        validate(self._sink, meta, validator, payload, "RSP-SCHEMA-001", _schema_rule)
        return True

    def _without_checked_output(self, payload: dict[str, Any]) -> dict[str, Any]:
        """`payload` for schema validation: its response.output emptied when it equals, item for item, the items of
        the done events, which passed the same output item schema there (a terminal snapshot's items are most of
        its validation time). Any difference (an item changed, missing or added) validates the whole snapshot."""
        response = payload.get("response")
        if not isinstance(response, dict):
            return payload
        output = response.get("output")
        if not output or not isinstance(output, list) or output != self._items.finals():
            return payload
        return {**payload, "response": {**response, "output": []}}

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
            for item in self._items.not_done():
                self._sink.add("RSP-LIFE-006", f"item {shown(item.id)} (output_index {item.output_index}) is "
                               "never done", meta.evidence("$.response.output", actual=item.output_index))
        output = response.get("output")
        if not isinstance(output, list):
            return
        _statuses(self._sink, meta, status, output, "$.response.output")
        if etype == "response.failed":
            self._items.failed_output(meta, output)
        else:
            self._items.final_output(meta, output)


def _statuses(sink: Sink, meta: EventMeta, status: object, output: list[Any], path: str) -> None:
    """A `completed` response holds no `incomplete` item (RSP-LIFE-011); the converse is allowed."""
    if status != "completed":
        return
    for position, item in enumerate(output):
        if isinstance(item, dict) and item.get("status") == "incomplete":
            sink.add("RSP-LIFE-011", f"the response is 'completed' but its output[{position}] "
                     f"({shown(item.get('type'))} {shown(item.get('id'))}) ended 'incomplete': send "
                     "response.incomplete with incomplete_details.reason",
                     meta.evidence(f"{path}[{position}].status", "completed", "incomplete"))
