"""Check a transcript of the Responses API's WebSocket mode (docs/spec/websocket.md §7): JSON lines, one message
a line, as the mock's journal gives a WebSocket turn and as a user records one with any client.

A line is a server message (a JSON object), a client message (`response.create` / `response.steer`), or either
wrapped as `{"direction": "client" | "server", "message": {...}}`. Server messages are judged; client messages
are read only to pair each response with the `response.create` that asked for it (RSP-WS-003). The server's
messages fall into turns: each `response.created` starts one, on its `stream_id` lane, and every RSP rule of a
streamed Responses capture judges each turn as it judges an SSE stream (its own sequence numbers from 0), minus
the SSE framing rules; the RSP-WS rules judge the mode itself. Evidence names the message (its index among the
server messages, its type, the line and the byte offset of its line), the field and the rule.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Literal

import jsonschema_rs

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Profile

from ._check import CheckReport, report_of, transport_rules
from ._front import EventMeta, Sink, as_int, as_str, shown
from ._responses import ResponsesChecker
from ._schemas import FrontSchemas, _Validator, schema_store
from ._unicode import loads_json

__all__ = [
    "ALREADY_IN_FLIGHT", "CLIENT_TYPES", "TranscriptChecker", "check_websocket_messages",
    "check_websocket_transcript", "transcript_line_kind",
]

Direction = Literal["client", "server"]
#: The error code of a `response.create` answered while another response is in flight.
ALREADY_IN_FLIGHT = "response_already_in_flight"
#: Error codes about the connection rather than a response: answered with `status`, never part of a response's
#: stream (a response still in flight when one arrives must end on its own: RSP-LIFE-002).
CONNECTION_CODES = frozenset((ALREADY_IN_FLIGHT, "websocket_connection_limit_reached"))
#: The types of the client's messages (openai-python ResponsesClientEvent).
CLIENT_TYPES = frozenset(("response.create", "response.steer"))
_STEER_TYPES = frozenset(("response.steer.accepted", "response.steer.pending", "response.steer.failed"))
_MAX_LINES = 1 << 62
_SSE_PREFIXES = (b"data:", b"event:", b"id:", b"retry:", b":")
#: The client's `response.create` a server answer belongs to: its previous_response_id and its line; None where
#: the transcript holds no client message for it.
Asked = tuple[str | None, int] | None


@cache
def _turn_schemas(profile: Profile) -> FrontSchemas:
    """The Responses schemas of `profile` for the turns, with the WebSocket error event judged apart (RSP-WS-002):
    the turn's checker accepts any `error` object and reads only its sequence_number and place."""
    schemas = schema_store().front("responses", profile)
    anything = _Validator("responses/websocket/error_event.json", jsonschema_rs.validator_for(True))
    return replace(schemas, events={**schemas.events, "error": anything})


def transcript_line_kind(line: bytes) -> Literal["json", "sse", "other"]:
    """What one transcript line looks like: a JSON object, an SSE field line, or something else."""
    text = line.strip()
    if text.startswith(b"{"):
        return "json"
    return "sse" if text.startswith(_SSE_PREFIXES) else "other"


@dataclass(slots=True)
class _Turn:
    """One response on a lane: its checker, its own sink, and where its events' lines are: `marks` holds (event
    index, line - index) each time that difference changes (a client line, another lane's or a blank line in
    between), so memory stays bounded however many events the turn streams."""

    checker: ResponsesChecker
    sink: Sink
    line: int
    marks: list[tuple[int, int]] = field(default_factory=list)
    last: EventMeta | None = None

    def note(self, index: int, line: int) -> None:
        if not self.marks or self.marks[-1][1] != line - index:
            self.marks.append((index, line - index))

    def line_of(self, index: int) -> int | None:
        at = bisect_right(self.marks, (index, _MAX_LINES)) - 1
        return index + self.marks[at][1] if at >= 0 else None


@dataclass(slots=True)
class _Lane:
    """One `stream_id` lane (None: the connection's default): its response in flight, the id of its last
    response, and the client's `response.create`s not answered yet (their previous_response_id and line)."""

    turn: _Turn | None = None
    previous: str | None = None
    pending: deque[tuple[str | None, int]] = field(default_factory=deque)
    clients: bool = False


@cache
def _websocket_rules(profile: Profile) -> frozenset[str]:
    return frozenset(rule.id for rule in transport_rules("responses", profile, "websocket"))


def _line(number: int) -> str:
    return f"line {number}"


class TranscriptChecker:
    """Fed a WebSocket transcript line by line (`line`) or message by message (`message`); `close()` gives the
    report (kind `websocket`). `place` names a line in messages (default `line N`; the `line` given to `message`)."""

    def __init__(self, profile: Profile = "openai", *, place: Callable[[int], str] | None = None) -> None:
        self.profile: Profile = profile
        #: How a message names a line: `line N` for a transcript file; `callproof run` names a socket's turns.
        self._at: Callable[[int], str] = place or _line
        self._rules = _websocket_rules(profile)
        self._sink = Sink(self._rules)
        self._schemas = _turn_schemas(profile)
        self._error_schema = schema_store().validator("responses/websocket/error_event.json")
        self._server_schema = schema_store().validator("responses/websocket/server_event.json")
        self._lanes: dict[str | None, _Lane] = {}
        self._ids: set[str] = set()
        self._count = 0
        self._lines = 0
        self._bytes = 0
        self._last: EventMeta | None = None
        self._report: CheckReport | None = None

    # -- input ----------------------------------------------------------------------------------------------
    def line(self, raw: bytes, offset: int | None = None) -> None:
        """One line of a JSONL transcript (its end of line optional); blank lines are skipped."""
        self._lines += 1
        line_no = self._lines
        at = self._bytes if offset is None else offset
        self._bytes += len(raw)
        text = raw.strip()
        if not text:
            return
        try:
            value: JSONValue = loads_json(text)
        except ValueError as exc:
            meta = self._meta(None, line_no, at)
            hint = (" (it looks like SSE: check the capture with --transport sse)"
                    if transcript_line_kind(text) == "sse" else "")
            reason = exc.args[0] if exc.args else exc
            self._sink.add("RSP-WS-004", f"{self._at(line_no)}: the message is not JSON ({reason}){hint}; it starts "
                           f"{text[:60].decode('utf-8', 'replace')!r}", meta.evidence("$"))
            self._last = meta
            return
        self.message(value, line=line_no, offset=at)

    def message(self, value: JSONValue, *, direction: Direction | None = None, line: int | None = None,
                offset: int | None = None) -> None:
        """One decoded message. `direction` None: read from a wrapper or from the message's type."""
        if line is None:
            self._lines += 1
            line = self._lines
        if direction is None and isinstance(value, dict) and set(value) == {"direction", "message"}:
            wrapped = value["direction"]
            if wrapped in ("client", "server"):
                direction, value = ("client" if wrapped == "client" else "server"), value["message"]
        if direction is None:
            kind = value.get("type") if isinstance(value, dict) else None
            direction = "client" if kind in CLIENT_TYPES else "server"
        if direction == "client":
            self._client(value, line)
            return
        meta = self._meta(value, line, offset)
        if not isinstance(value, dict):
            self._sink.add("RSP-WS-004",
                           f"{self._at(line)}: the message is a JSON {type(value).__name__}, not an object",
                           meta.evidence("$"))
            self._last = meta
            return
        self._server(meta, value, line)
        self._last = meta

    def close(self) -> CheckReport:
        if self._report is None:
            started = False
            for lane in self._lanes.values():
                if lane.turn is not None:
                    started = True
                    self._end(lane.turn, abandoned=False)
                    lane.turn = None
            if not started and not self._count:
                # Nothing un-judged passes: a transcript without a server message fails as an empty stream does.
                self._end(self._new_turn(0), abandoned=False)
            self._report = report_of("responses", self.profile, "websocket", self._sink, self._count, self._bytes)
        return self._report

    # -- the messages ---------------------------------------------------------------------------------------
    def _meta(self, value: object, line: int, offset: int | None) -> EventMeta:
        kind = value.get("type") if isinstance(value, dict) else None
        meta = EventMeta(self._count, kind if isinstance(kind, str) else None, offset, None)
        self._count += 1
        return meta

    def _lane(self, key: str | None) -> _Lane:
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = _Lane()
        return lane

    def _client(self, value: JSONValue, line: int) -> None:
        if not isinstance(value, dict) or value.get("type") != "response.create":
            return
        lane = self._lane(as_str(value.get("stream_id")))
        lane.clients = True
        lane.pending.append((as_str(value.get("previous_response_id")), line))

    def _server(self, meta: EventMeta, payload: dict[str, Any], line: int) -> None:
        etype = meta.type
        lane = self._lane(as_str(payload.get("stream_id")))
        if etype == "error":
            self._error(meta, payload, line, lane)
        elif etype == "response.created":
            self._created(meta, payload, line, lane)
        elif etype in _STEER_TYPES:
            if not self._server_schema.is_valid(payload):
                for err in self._server_schema.errors(payload):
                    self._sink.add("RSP-SCHEMA-001", f"{self._at(line)}: {err.message} (schema {err.schema})",
                                   meta.evidence(err.path))
        else:
            if lane.turn is None:
                lane.turn = self._new_turn(line)
                self._answer(lane)
            self._feed(lane.turn, meta, payload, line)

    def _error(self, meta: EventMeta, payload: dict[str, Any], line: int, lane: _Lane) -> None:
        error = payload.get("error")
        code = as_str(error.get("code")) if isinstance(error, dict) else None
        turn = lane.turn
        inside = turn is not None and not turn.checker.ended and code not in CONNECTION_CODES
        self._error_shape(meta, payload, line, inside)
        if inside:
            assert turn is not None
            self._feed(turn, meta, payload, line)
        else:
            self._answer(lane)  # the error answers a response.create instead of a response

    def _error_shape(self, meta: EventMeta, payload: dict[str, Any], line: int, inside: bool) -> None:
        sink, schema = self._sink, self._error_schema
        if not schema.is_valid(payload):
            flat = "error" not in payload and ("message" in payload or "code" in payload)
            hint = ("; this is the flat SSE error event: over a WebSocket the code and message go in a nested "
                    "`error` object") if flat else ""
            for err in schema.errors(payload):
                sink.add("RSP-WS-002", f"{self._at(line)}: {err.message} (schema {err.schema}){hint}",
                         meta.evidence(err.path))
            return
        error = payload["error"]
        if "code" not in error or error["code"] == "":
            sink.add("RSP-WS-002", f"{self._at(line)}: the error has no code ({shown(error.get('code'))}): send "
                     "`code`, a string clients branch on (previous_response_not_found, response_already_in_flight, "
                     "...) or null where the error has none",
                     meta.evidence("$.error.code", actual=error.get("code")))
        if inside:
            if as_int(payload.get("sequence_number")) is None:
                sink.add("RSP-WS-002", f"{self._at(line)}: the error ends the response in flight but carries no "
                         "sequence_number: number it after the response's last event",
                         meta.evidence("$.sequence_number", actual=payload.get("sequence_number")))
            return
        status = payload.get("status")
        number = as_int(status)
        if number is None or not 400 <= number <= 599:
            sink.add("RSP-WS-002", f"{self._at(line)}: the error answers a response.create outside a response but its "
                     f"status is {shown(status)}: give the HTTP status of the error (400 for "
                     f"{ALREADY_IN_FLIGHT} and previous_response_not_found)",
                     meta.evidence("$.status", actual=status if isinstance(status, (int, str)) else None))

    def _created(self, meta: EventMeta, payload: dict[str, Any], line: int, lane: _Lane) -> None:
        response = payload.get("response")
        rid = as_str(response.get("id")) if isinstance(response, dict) else None
        old = lane.turn
        if old is not None:
            in_flight = not old.checker.ended
            if in_flight:
                self._sink.add(
                    "RSP-WS-001",
                    f"{self._at(line)}: response.created ({shown(rid)}) arrives while response "
                    f"{shown(old.checker.response_id)} (created on {self._at(old.line)}) is in flight, with no "
                    f"terminal event yet: answer the second response.create with an error event, code "
                    f"{ALREADY_IN_FLIGHT}",
                    meta.evidence("$.type"),
                )
            self._end(old, abandoned=in_flight)
        turn = lane.turn = self._new_turn(line)
        asked = self._answer(lane)
        if isinstance(response, dict):
            self._continuation(meta, response.get("previous_response_id"), line, lane, asked)
        self._feed(turn, meta, payload, line)
        if rid is not None:
            if rid in self._ids:
                self._sink.add("RSP-WS-003", f"{self._at(line)}: response.id {shown(rid)} is the id of an earlier "
                               "response of this connection: a continuation of it would be ambiguous; give every "
                               "response its own id", meta.evidence("$.response.id", actual=rid))
            lane.previous = rid
            self._ids.add(rid)

    def _continuation(self, meta: EventMeta, value: object, line: int, lane: _Lane, asked: Asked) -> None:
        said = as_str(value)
        path = "$.response.previous_response_id"
        if asked is not None:
            sent, sent_line = asked
            if said != sent:
                dropped = " (the continuation was dropped)" if said is None else ""
                self._sink.add("RSP-WS-003", f"{self._at(line)}: response.previous_response_id is {shown(said)} but "
                               f"the client's response.create on {self._at(sent_line)} sent {shown(sent)}{dropped}",
                               meta.evidence(path, sent, said))
            return
        if said is None:
            return
        if lane.previous is not None:
            if said != lane.previous:
                self._sink.add("RSP-WS-003", f"{self._at(line)}: response.previous_response_id is {shown(said)}; the "
                               f"connection's previous response was {shown(lane.previous)}",
                               meta.evidence(path, lane.previous, said))
        elif self._ids and said not in self._ids:
            self._sink.add("RSP-WS-003", f"{self._at(line)}: response.previous_response_id is {shown(said)}, a "
                           "response this connection never answered", meta.evidence(path, None, said))

    def _answer(self, lane: _Lane) -> Asked:
        """The client's response.create the server's next answer on `lane` belongs to (None: not recorded)."""
        return lane.pending.popleft() if lane.pending else None

    # -- the turns ------------------------------------------------------------------------------------------
    def _new_turn(self, line: int) -> _Turn:
        sink = Sink(self._rules)
        return _Turn(ResponsesChecker(sink, self._schemas, self.profile), sink, line)

    def _feed(self, turn: _Turn, meta: EventMeta, payload: dict[str, Any], line: int) -> None:
        turn.note(meta.index, line)
        turn.checker.event(meta, payload)
        turn.last = meta

    def _end(self, turn: _Turn, *, abandoned: bool) -> None:
        """Finish a turn and move its violations into the transcript's sink, each naming its line. An abandoned
        turn (RSP-WS-001) is not also reported for its missing terminal event (RSP-LIFE-002)."""
        turn.checker.finish(turn.last)
        sink = self._sink
        for rule, count in turn.sink.counts.items():
            if abandoned and rule == "RSP-LIFE-002":
                continue
            kept = turn.sink.kept.get(rule, [])
            for violation in kept:
                index = violation.evidence.event_index
                line = turn.line_of(index) if index is not None else None
                where = f"{self._at(line)}: " if line is not None else ""
                sink.add(rule, where + violation.message, violation.evidence)
            sink.add_uncounted(rule, count - len(kept))


def check_websocket_transcript(data: bytes, *, profile: Profile = "openai") -> CheckReport:
    """Check a whole WebSocket transcript (JSON lines; a UTF-8 byte order mark is skipped)."""
    checker = TranscriptChecker(profile)
    offset = 0
    if data.startswith(b"\xef\xbb\xbf"):
        offset = 3
    for raw in data[offset:].splitlines(keepends=True):
        checker.line(raw, offset)
        offset += len(raw)
    return checker.close()


def check_websocket_messages(
    messages: Iterable[Mapping[str, Any] | JSONValue], *, profile: Profile = "openai",
) -> CheckReport:
    """Check decoded messages (each a server message, a client message, or a direction wrapper)."""
    checker = TranscriptChecker(profile)
    for message in messages:
        checker.message(dict(message) if isinstance(message, Mapping) else message)
    return checker.close()
