"""The journal: every request the mock received and every write it sent, with timestamps, in order.

The gateway rules read it (docs/spec/contracts.md §7.8): what the IUT sent upstream, which scenario and case it
belonged to, and when each byte left the mock. Secrets never enter it: the values of authorization-like headers are
replaced by "[redacted]". Thread-safe: the server records from its event loop thread while tests read from theirs.
Timestamps come from the server's clock (monotonic seconds; a `VirtualClock` in timing tests).

Recording is on the mock's hot path, so the journal keeps what the server had at hand (a request's raw header
bytes, secrets already redacted, and its raw body) as plain fields that cost the garbage collector nothing, and
builds the `JournalRequest`, `JournalWrite` and `JournalEnd` objects only when they are read.
"""

from __future__ import annotations

import base64
import bisect
import json
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import IO, Any, Literal, TypeAlias, cast

from callproof.harness import Dialect, JSONData
from callproof.harness.scenario import case_marker

__all__ = [
    "REDACTED", "SECRET_HEADERS", "Journal", "JournalEnd", "JournalRequest", "JournalWrite", "Transport", "case_tag",
]

#: How a request reached the mock: an HTTP request, or a `response.create` message on a WebSocket.
Transport: TypeAlias = Literal["http", "websocket"]
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"})
REDACTED = "[redacted]"
_SECRET_RAW = frozenset(name.encode("latin-1") for name in SECRET_HEADERS)
_REDACTED_RAW = REDACTED.encode("latin-1")


def case_tag(text: str) -> str | None:
    """The case id of the first `[callproof:case=<uuid>]` marker in `text`."""
    return case_marker(text)


def redact(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers by lower-case name (repeated ones joined with ", "), secrets redacted."""
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        value = REDACTED if key in SECRET_HEADERS else value
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def _flat_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
    """Raw (ASGI) header pairs flattened, name, value, name, value..., the values of secrets replaced."""
    flat = list(chain.from_iterable(headers))
    names = flat[::2]
    if not _SECRET_RAW.isdisjoint(map(bytes.lower, names)):
        for i, name in enumerate(names):
            if name.lower() in _SECRET_RAW:
                flat[2 * i + 1] = _REDACTED_RAW
    return flat


@dataclass(frozen=True, slots=True)
class JournalRequest:
    """One request: `body` is the decoded JSON (or the text when it is not JSON); `time` is the clock at arrival,
    `start` the clock when its answer was planned: the scripted offsets of its writes count from `start`."""

    id: int
    time: float
    wall: float
    method: str
    path: str
    headers: Mapping[str, str]
    body: JSONData
    status: int
    dialect: Dialect | None = None
    stream: bool = False
    scenario: str | None = None
    case: str | None = None
    faults: tuple[str, ...] = ()
    start: float = 0.0
    how: str | None = None
    #: The leg of a sequence that answered (docs/mock.md#sequences), else None.
    leg: int | None = None
    #: "websocket" for a `response.create` turn of the Responses WebSocket mode (docs/mock.md#websocket-mode): its
    #: `connection` (an id unique per mock), its `turn` (0-based within the connection) and the
    #: `previous_response_id` it continued; the body is the client's message, the writes the messages sent.
    transport: Transport = "http"
    connection: int | None = None
    turn: int | None = None
    previous_response_id: str | None = None
    kind: Literal["request"] = "request"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "id": self.id, "time": self.time, "wall": self.wall, "method": self.method,
            "path": self.path, "headers": dict(self.headers), "body": self.body, "status": self.status,
            "dialect": self.dialect, "stream": self.stream, "scenario": self.scenario, "case": self.case,
            "faults": list(self.faults), "start": self.start, "how": self.how, "leg": self.leg,
            "transport": self.transport, "connection": self.connection, "turn": self.turn,
            "previous_response_id": self.previous_response_id,
        }


@dataclass(frozen=True, slots=True)
class JournalWrite:
    """One write of a response body (a stream write, or a whole JSON body) at clock time `time`."""

    request: int
    time: float
    data: bytes
    kind: Literal["write"] = "write"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "request": self.request, "time": self.time, "size": len(self.data)}
        try:
            out["text"] = self.data.decode("utf-8")
        except UnicodeDecodeError:  # a write split inside a code point
            out["base64"] = base64.b64encode(self.data).decode("ascii")
        return out


@dataclass(frozen=True, slots=True)
class JournalEnd:
    """How a response ended: `completed`, `aborted` (the mock dropped the connection as scripted) or
    `cancelled` (the client went away first)."""

    request: int
    time: float
    outcome: Literal["completed", "aborted", "cancelled"]
    kind: Literal["end"] = "end"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "request": self.request, "time": self.time, "outcome": self.outcome}


Record = JournalRequest | JournalWrite | JournalEnd
Outcome: TypeAlias = Literal["completed", "aborted", "cancelled"]

# Records as read back, before they become the public objects.
#: A request: JournalRequest's fields in order. From `log_request`, the headers are flat raw bytes (name, value, ...)
#: and the body is the raw bytes (or None); from `record_request`, the headers are a mapping, the body as given;
#: from `log_turn`, the same plus the WebSocket fields (connection, turn, previous_response_id) at the end.
_RawRequest: TypeAlias = tuple[Any, ...]
#: A write: (request, time, data); an end: (request, time, outcome).
_RawWrite: TypeAlias = tuple[int, float, bytes]
_RawEnd: TypeAlias = tuple[int, float, Outcome]
_Raw: TypeAlias = _RawRequest | _RawWrite | _RawEnd


def _decode_body(raw: bytes | None) -> JSONData:
    """A raw request body as JournalRequest.body: the JSON object, else the text."""
    if raw is None:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    return body if isinstance(body, dict) else raw.decode("utf-8", "replace")


def _request(raw: _RawRequest) -> JournalRequest:
    rid, at, wall, method, path, headers, body, status, dialect, stream, scenario, case, faults, start, how, leg = raw[
        :16]
    if not isinstance(headers, Mapping):  # kept by log_request as received
        headers = redact((name.decode("latin-1"), value.decode("latin-1")) for name, value in zip(
            headers[::2], headers[1::2], strict=True))
        body = _decode_body(body)
    if len(raw) > 16:  # a WebSocket turn (log_turn)
        connection, turn, previous = raw[16:]
        return JournalRequest(rid, at, wall, method, path, headers, body, status, dialect, stream, scenario, case,
                              faults, start, how, leg, "websocket", connection, turn, previous)
    return JournalRequest(rid, at, wall, method, path, headers, body, status, dialect, stream, scenario, case, faults,
                          start, how, leg)


def _record(raw: _Raw) -> Record:
    if len(raw) != 3:
        return _request(raw)
    request, at, last = raw
    return JournalWrite(request, at, last) if isinstance(last, bytes) else JournalEnd(request, at, last)


# How records are kept: as runs of fields, a kind first, in chunks, so that keeping one allocates nothing the
# garbage collector tracks (a tuple per record would count towards its next collection, and a parsed body would stay
# on its lists for good; strings, numbers and bytes in a list do not). A full chunk becomes a tuple, which the
# collector stops tracking once it has seen it.
_SHORT = 0  # a write or an end: _SHORT, request, time, data | outcome
_REQUEST = 1  # from log_request: _REQUEST, JournalRequest's fields (body raw) but the headers, n, 2n header bytes
_OBJECT = 2  # from record_request: _OBJECT, the request tuple (headers a mapping, body as given)


def _unpack(fields: Sequence[Any]) -> list[_Raw]:
    """The records in runs of fields, in order."""
    records: list[_Raw] = []
    i, end = 0, len(fields)
    while i < end:
        kind = fields[i]
        if kind == _SHORT:
            records.append((fields[i + 1], fields[i + 2], fields[i + 3]))
            i += 4
        elif kind == _OBJECT:
            records.append(fields[i + 1])
            i += 2
        else:
            head, count = fields[i + 1 : i + 16], fields[i + 16]
            records.append((*head[:5], tuple(fields[i + 17 : i + 17 + 2 * count]), *head[5:]))
            i += 17 + 2 * count
    return records


@dataclass(slots=True)
class _State:
    """The records in order: the `sealed` chunks (`counts` records each), then the `open` one being filled. A read
    of one request or case unpacks only the chunks that can hold its records: chunk `base` is sealed[0]; `first_ids`
    the first request id each chunk (and the open one) can hold; `cases` the chunk of each case's first request."""

    sealed: list[tuple[Any, ...]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    open: list[Any] = field(default_factory=list)
    open_count: int = 0
    size: int = 0
    next_id: int = 1
    base: int = 0
    first_ids: list[int] = field(default_factory=lambda: [1])
    cases: dict[str, int] = field(default_factory=dict)


#: Records per sealed chunk (fewer when max_records is smaller).
_CHUNK = 1024


#: Records kept in memory by default: a long-running `callproof mock` forgets the oldest beyond this.
MAX_RECORDS = 200_000


class Journal:
    """Records requests, writes and ends in the order they happen; `path` also appends each record to a JSON-lines
    file as it happens (the file keeps everything, across resets). In memory it keeps the last `max_records`
    records, so a mock left running for days stays bounded; `dropped` counts the records trimmed from memory."""

    def __init__(self, path: str | Path | None = None, *, max_records: int = MAX_RECORDS) -> None:
        if max_records < 1:
            raise ValueError(f"max_records must be at least 1, got {max_records}")
        self._lock = threading.Lock()
        self._state = _State()
        self.max_records = max_records
        self._chunk = min(_CHUNK, max_records)
        self.dropped = 0
        self._file: IO[str] | None = open(path, "a", encoding="utf-8") if path is not None else None  # noqa: SIM115

    # -- recording (server side) --

    def record_request(
        self, *, time: float, method: str, path: str, headers: Iterable[tuple[str, str]], body: JSONData, status: int,
        dialect: Dialect | None = None, stream: bool = False, scenario: str | None = None, case: str | None = None,
        faults: tuple[str, ...] = (), start: float | None = None, how: str | None = None, leg: int | None = None,
    ) -> JournalRequest:
        with self._lock:
            raw: _RawRequest = (self._state.next_id, time, _wall(), method, path, redact(headers), body, status,
                                dialect, stream, scenario, case, faults, time if start is None else start, how, leg)
            self._state.next_id += 1
            self._index_case(case)
            self._keep((_OBJECT, raw))
        return _request(raw)

    def log_request(
        self, *, time: float, method: str, path: str, raw_headers: Iterable[tuple[bytes, bytes]],
        raw_body: bytes | None, status: int, dialect: Dialect | None = None, stream: bool = False,
        scenario: str | None = None, case: str | None = None, faults: tuple[str, ...] = (), start: float | None = None,
        how: str | None = None, leg: int | None = None,
    ) -> int:
        """`record_request` for the server's hot path: takes the headers and body as received (the ASGI scope's raw
        header pairs; the body bytes, or None when it was not read), decoded only when read (the body as the JSON
        object it holds, else its text), and returns just the request id."""
        headers = _flat_headers(raw_headers)
        with self._lock:
            rid = self._state.next_id
            self._state.next_id += 1
            self._index_case(case)
            self._keep((_REQUEST, rid, time, _wall(), method, path, raw_body, status, dialect, stream, scenario, case,
                        faults, time if start is None else start, how, leg, len(headers) // 2, *headers))
        return rid

    def log_turn(
        self, *, time: float, path: str, headers: Iterable[tuple[str, str]], body: JSONData, status: int,
        connection: int, turn: int, scenario: str | None = None, case: str | None = None, faults: tuple[str, ...] = (),
        start: float | None = None, how: str | None = None, leg: int | None = None,
        previous_response_id: str | None = None,
    ) -> int:
        """One `response.create` of the Responses WebSocket mode (docs/mock.md#websocket-mode): recorded like a
        streamed POST .../responses (method "POST", dialect "responses", stream True; `headers` are the upgrade's,
        `body` the client's message) with transport "websocket", its connection, turn and continued response id.
        Returns the request id; the messages sent are its writes, one JSON text and a newline each."""
        with self._lock:
            rid = self._state.next_id
            self._state.next_id += 1
            raw: _RawRequest = (rid, time, _wall(), "POST", path, redact(headers), body, status, "responses", True,
                                scenario, case, faults, time if start is None else start, how, leg, connection, turn,
                                previous_response_id)
            self._index_case(case)
            self._keep((_OBJECT, raw))
        return rid

    def record_write(self, request: int, data: bytes, time: float) -> None:
        with self._lock:
            self._keep((_SHORT, request, time, data))

    def record_writes(self, request: int, datas: Sequence[bytes], time: float) -> None:
        """Writes made at one instant (a WebSocket turn's messages due at once), one record each."""
        with self._lock:
            for data in datas:
                self._keep((_SHORT, request, time, data))

    def record_end(self, request: int, outcome: Outcome, time: float) -> None:
        with self._lock:
            self._keep((_SHORT, request, time, outcome))

    def _index_case(self, case: str | None) -> None:
        """Index the chunk of a case's first request (under the lock, before keeping its record)."""
        state = self._state
        if case is not None and case not in state.cases:
            state.cases[case] = state.base + len(state.sealed)

    def _keep(self, run: tuple[Any, ...]) -> None:
        """Keep one record, given as its run of fields."""
        state = self._state
        state.open += run
        state.open_count += 1
        state.size += 1
        if state.open_count >= self._chunk:
            state.sealed.append(tuple(state.open))
            state.counts.append(state.open_count)
            state.open, state.open_count = [], 0
            state.first_ids.append(state.next_id)
            # Forget the oldest chunks the last max_records do not reach: memory holds at most about twice that.
            while state.size - state.counts[0] >= self.max_records:
                del state.sealed[0]
                del state.first_ids[0]
                state.base += 1
                dropped = state.counts.pop(0)
                state.size -= dropped
                self.dropped += dropped
                while state.cases and next(iter(state.cases.values())) < state.base:
                    del state.cases[next(iter(state.cases))]
        if self._file is not None:
            self._file.write(json.dumps(_record(_unpack(run)[0]).to_json(), ensure_ascii=False) + "\n")
            self._file.flush()

    # -- reading --

    def _kept(self, *, request: int | None = None, case: str | None = None) -> list[_Raw]:
        """The records kept (the last max_records); for a `request` from the chunk of its own record (its writes
        and end follow it), for a `case` from the chunk of its first request, else all."""
        with self._lock:
            state = self._state
            first = 0
            if request is not None:
                first = max(0, bisect.bisect_right(state.first_ids, request) - 1)
            elif case is not None:
                first = max(0, state.cases.get(case, state.base) - state.base)
            first = min(first, len(state.sealed))
            chunks = [*state.sealed[first:], tuple(state.open)]
            before, size = sum(state.counts[:first]), state.size
        records = [r for chunk in chunks for r in _unpack(chunk)]
        return records[max(0, size - self.max_records - before):]

    def records(self) -> list[Record]:
        return [_record(r) for r in self._kept()]

    def requests(self, *, case: str | None = None, scenario: str | None = None) -> list[JournalRequest]:
        return [
            _request(r) for r in self._kept(case=case)
            if len(r) != 3 and (case is None or r[11] == case) and (scenario is None or r[10] == scenario)
        ]

    def writes(self, request: int | None = None) -> list[JournalWrite]:
        return [
            JournalWrite(r[0], r[1], r[2]) for r in self._kept(request=request)
            if len(r) == 3 and isinstance(r[2], bytes) and (request is None or r[0] == request)
        ]

    def end(self, request: int) -> JournalEnd | None:
        ends = [r for r in self._kept(request=request)
                if len(r) == 3 and not isinstance(r[2], bytes) and r[0] == request]
        if not ends:
            return None
        _, at, outcome = ends[-1]
        return JournalEnd(request, at, cast(Outcome, outcome))

    def body_of(self, request: int) -> bytes:
        """Every byte written for `request`, joined (a WebSocket turn's: its messages as JSON lines)."""
        return b"".join(w.data for w in self.writes(request))

    def to_jsonl(self, *, case: str | None = None) -> str:
        """The journal as JSON lines; `case` keeps the requests of that case and their writes and ends."""
        kept = self._kept()
        if case is not None:
            ids = {r[0] for r in kept if len(r) != 3 and r[11] == case}
            kept = [r for r in kept if r[0] in ids]
        return "".join(json.dumps(_record(r).to_json(), ensure_ascii=False) + "\n" for r in kept)

    def __len__(self) -> int:
        """The number of requests recorded."""
        return sum(len(r) != 3 for r in self._kept())

    def reset(self) -> None:
        """Forget every record (request ids keep counting up, so ids stay unique across resets)."""
        with self._lock:
            state = self._state
            state.base += len(state.sealed) + 1  # numbers are never reused
            state.sealed, state.counts, state.open, state.open_count, state.size = [], [], [], 0, 0
            state.first_ids, state.cases = [state.next_id], {}

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _wall() -> float:
    return time.time()
