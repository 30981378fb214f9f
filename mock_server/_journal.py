"""The journal: every request the mock received and every write it sent, with timestamps, in order.

The gateway rules read it (design.md section 7, family 8): what the IUT sent upstream, which scenario and case it
belonged to, and when each byte left the mock. Secrets never enter it: the values of authorization-like headers are
replaced by "[redacted]". Thread-safe: the server records from its event loop thread while tests read from theirs.
Timestamps come from the server's clock (monotonic seconds; a `VirtualClock` in timing tests).
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

__all__ = ["REDACTED", "SECRET_HEADERS", "Journal", "JournalEnd", "JournalRequest", "JournalWrite", "case_tag"]

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"})
REDACTED = "[redacted]"
_CASE = re.compile(r"\[callproof:case=([A-Za-z0-9_.:-]+)\]")


def case_tag(text: str) -> str | None:
    """The case id of the first `[callproof:case=<uuid>]` marker in `text`."""
    match = _CASE.search(text)
    return match.group(1) if match else None


def redact(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers by lower-case name (repeated ones joined with ", "), secrets redacted."""
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        value = REDACTED if key in SECRET_HEADERS else value
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


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
    body: Any
    status: int
    dialect: str | None = None
    stream: bool = False
    scenario: str | None = None
    case: str | None = None
    faults: tuple[str, ...] = ()
    start: float = 0.0
    kind: Literal["request"] = "request"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "id": self.id, "time": self.time, "wall": self.wall, "method": self.method,
            "path": self.path, "headers": dict(self.headers), "body": self.body, "status": self.status,
            "dialect": self.dialect, "stream": self.stream, "scenario": self.scenario, "case": self.case,
            "faults": list(self.faults), "start": self.start,
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


@dataclass(slots=True)
class _State:
    records: list[Record] = field(default_factory=list)
    next_id: int = 1


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
        self.dropped = 0
        self._file: IO[str] | None = open(path, "a", encoding="utf-8") if path is not None else None  # noqa: SIM115

    # -- recording (server side) --

    def record_request(
        self, *, time: float, method: str, path: str, headers: Iterable[tuple[str, str]], body: Any, status: int,
        dialect: str | None = None, stream: bool = False, scenario: str | None = None, case: str | None = None,
        faults: tuple[str, ...] = (), start: float | None = None,
    ) -> JournalRequest:
        with self._lock:
            entry = JournalRequest(
                id=self._state.next_id, time=time, wall=_wall(), method=method, path=path, headers=redact(headers),
                body=body, status=status, dialect=dialect, stream=stream, scenario=scenario, case=case,
                faults=faults, start=time if start is None else start,
            )
            self._state.next_id += 1
            self._append(entry)
        return entry

    def record_write(self, request: int, data: bytes, time: float) -> None:
        with self._lock:
            self._append(JournalWrite(request, time, data))

    def record_end(self, request: int, outcome: Literal["completed", "aborted", "cancelled"], time: float) -> None:
        with self._lock:
            self._append(JournalEnd(request, time, outcome))

    def _append(self, record: Record) -> None:
        records = self._state.records
        records.append(record)
        if len(records) > self.max_records * 2:  # trim in batches: amortised O(1) per record
            excess = len(records) - self.max_records
            del records[:excess]
            self.dropped += excess
        if self._file is not None:
            self._file.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            self._file.flush()

    # -- reading --

    def records(self) -> list[Record]:
        with self._lock:
            return list(self._state.records[-self.max_records :])

    def requests(self, *, case: str | None = None, scenario: str | None = None) -> list[JournalRequest]:
        return [
            r for r in self.records()
            if isinstance(r, JournalRequest)
            and (case is None or r.case == case) and (scenario is None or r.scenario == scenario)
        ]

    def writes(self, request: int | None = None) -> list[JournalWrite]:
        return [r for r in self.records() if isinstance(r, JournalWrite) and (request is None or r.request == request)]

    def end(self, request: int) -> JournalEnd | None:
        ends = [r for r in self.records() if isinstance(r, JournalEnd) and r.request == request]
        return ends[-1] if ends else None

    def body_of(self, request: int) -> bytes:
        """Every byte written for `request`, joined."""
        return b"".join(w.data for w in self.writes(request))

    def to_jsonl(self, *, case: str | None = None) -> str:
        """The journal as JSON lines; `case` keeps the requests of that case and their writes and ends."""
        records = self.records()
        if case is not None:
            ids = {r.id for r in records if isinstance(r, JournalRequest) and r.case == case}
            records = [r for r in records if (r.id if isinstance(r, JournalRequest) else r.request) in ids]
        return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)

    def __len__(self) -> int:
        """The number of requests recorded."""
        return len(self.requests())

    def reset(self) -> None:
        """Forget every record (request ids keep counting up, so ids stay unique across resets)."""
        with self._lock:
            self._state.records = []

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _wall() -> float:
    return time.time()
