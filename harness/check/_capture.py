"""Read a captured response (raw SSE text, a JSON body, or a WebSocket transcript of JSON lines) from a file or
stdin and check it. The checks every
reader of a capture makes first (`callproof check` here, the capture import of `callproof.harness.capture`) are
here too: what a capture starts with once a byte order mark and whitespace are skipped, whether it is binary, and
whether it is a JSON body or an SSE stream."""

from __future__ import annotations

import json
from typing import BinaryIO, Literal

from callproof.harness._errors import InputError
from callproof.harness._types import Dialect
from callproof.harness.catalogue import Profile
from callproof.harness.dialects import DIALECTS
from callproof.harness.transports import DEFAULT_TRANSPORT
from callproof.harness.transports import transport as spec_of

from ._check import CheckReport, StreamChecker, Transport, check_body
from ._sse import parse_sse
from ._transcript import TranscriptChecker

__all__ = [
    "CHUNK", "JSONL_SUFFIXES", "MAX_BODY_BYTES", "capture_kind", "capture_text", "check_capture", "detect_front",
    "is_transcript", "nul_offset", "payload_dialect",
]

CHUNK = 64 * 1024
#: A non-stream body is parsed whole; larger ones are refused rather than exhausting memory.
MAX_BODY_BYTES = 64 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
#: File names read as a WebSocket transcript whatever their content looks like.
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def capture_text(data: bytes) -> bytes:
    """`data` without a UTF-8 byte order mark and the whitespace before its content (empty: nothing captured)."""
    return data.removeprefix(_BOM).lstrip()


def nul_offset(data: bytes) -> int | None:
    """The offset of the first NUL byte in `data` (a binary file, not a capture), or None."""
    at = data.find(b"\x00")
    return None if at == -1 else at


def capture_kind(data: bytes) -> Literal["sse", "json"]:
    """A JSON body when the content (see `capture_text`) starts with `{` or `[`, else an SSE stream."""
    return "json" if capture_text(data)[:1] in (b"{", b"[") else "sse"


def _first_line(head: bytes) -> tuple[dict[str, object] | None, bytes]:
    """The content's first line as a JSON object (None when it is not one by itself), and the rest."""
    first, _, rest = capture_text(head).partition(b"\n")
    try:
        value = json.loads(first)
    except ValueError:
        return None, rest
    return (value if isinstance(value, dict) else None), rest


def is_transcript(head: bytes) -> bool:
    """Whether the content (see `capture_text`) is JSON lines rather than one JSON body: its first line is a whole
    JSON object by itself, and either more lines follow or the object is a Responses message (a `response.*` type)
    or a `direction` wrapper. A pretty-printed body's first line is `{` alone: not a transcript. A lone `error`
    line reads as a body (an Anthropic error body has the same shape): name the file .jsonl or give
    --transport websocket."""
    value, rest = _first_line(head)
    if value is None:
        return False
    if rest.strip():
        return True
    kind = value.get("type")
    return ("direction" in value and "message" in value) or (isinstance(kind, str) and kind.startswith("response."))


def payload_dialect(payload: object) -> Dialect | None:
    """The dialect one event or body is positively written in (chat chunks and completions by `object`, Responses
    by `object: response` or a `response.*` type, Anthropic by its event and body types); None when it says
    nothing either way."""
    if not isinstance(payload, dict):
        return None
    return next((row.name for row in DIALECTS.values() if row.speaks(payload)), None)


def detect_front(head: bytes, kind: Literal["sse", "json"]) -> Dialect:
    """Guess the front from the first bytes: chat chunks have `object`, Anthropic events their own types."""
    payload: object = None
    if kind == "json":
        try:
            payload = json.loads(head)
        except ValueError:
            return "responses"
    else:
        events, _ = parse_sse(head)
        for event in events:
            try:
                payload = json.loads(event.data)
            except ValueError:
                continue
            break
    found = payload_dialect(payload)
    if found is not None:
        return found
    if isinstance(payload, dict) and payload.get("type") == "error" and isinstance(payload.get("error"), dict) \
            and "sequence_number" not in payload and "param" not in payload["error"]:
        return "anthropic"
    return "responses"


def _through_first_line(stream: BinaryIO, head: bytes) -> bytes:
    """`head` read on until it holds the end of its first line (a transcript's first message may be longer than one
    chunk: a response.create with a long history), at most MAX_BODY_BYTES (a JSON body is read whole anyway)."""
    data = bytearray(head)
    searched = len(head) - len(capture_text(head))
    while data.find(b"\n", searched) < 0 and len(data) < MAX_BODY_BYTES:
        searched = len(data)
        more = stream.read(CHUNK)
        if not more:
            break
        data += more
    return bytes(data)


def _transport(head: bytes, name: str, transport: Transport | Literal["auto"]) -> Transport:
    """The transport of a capture: as given, else `websocket` for a .jsonl/.ndjson name or JSON-lines content."""
    if transport != "auto":
        return spec_of(transport).name
    if name.lower().endswith(JSONL_SUFFIXES):
        if capture_text(head)[:1] != b"{":
            raise InputError(f"{name} is named as a WebSocket transcript but does not start with a JSON object "
                             "(one JSON message a line); give --transport sse for an SSE capture")
        return "websocket"
    return "websocket" if is_transcript(head) else DEFAULT_TRANSPORT


def _check_transcript(stream: BinaryIO, head: bytes, name: str, front: Dialect | Literal["auto"],
                      profile: Profile) -> CheckReport:
    """A WebSocket transcript, read line by line (memory bounded by the longest line and the turn's state)."""
    if front != "auto" and not spec_of("websocket").carries(front):
        raise InputError(f"{name}: a WebSocket transcript is checked as the Responses API's WebSocket mode; "
                         f"--front {front} has no WebSocket transport (drop --front or give --transport sse)")
    first = capture_text(head)[:1]
    if first != b"{":
        shown = first.decode("utf-8", "replace") or "nothing"
        raise InputError(f"{name} is not a WebSocket transcript: it starts with {shown!r}, not a JSON object "
                         "(one JSON message a line); give --transport sse for an SSE capture")
    checker = TranscriptChecker(profile)
    pending = head.removeprefix(_BOM)
    offset = len(head) - len(pending)
    chunk = head
    while chunk:
        *lines, pending = pending.split(b"\n")
        for line in lines:
            checker.line(line + b"\n", offset)
            offset += len(line) + 1
        chunk = stream.read(CHUNK)
        pending += chunk
    if pending:
        checker.line(pending, offset)
    return checker.close()


def check_capture(
    stream: BinaryIO, name: str, *, front: Dialect | Literal["auto"] = "auto", profile: Profile = "openai",
    transport: Transport | Literal["auto"] = "auto",
) -> CheckReport:
    """Check a capture read in chunks (bounded memory for SSE and transcripts); raise InputError when it cannot be
    checked. `transport` auto: a WebSocket transcript when the name ends .jsonl/.ndjson or the content is JSON
    lines (`is_transcript`), else SSE text or a JSON body."""
    head = stream.read(CHUNK)
    if not head:
        raise InputError(f"{name} is empty (0 bytes): nothing to check; capture the response body, "
                         "e.g. `curl -sN URL -d @request.json > capture.sse`")
    nul = nul_offset(head)
    if nul is not None:
        raise InputError(f"{name} looks binary (NUL byte at offset {nul}); callproof check reads raw SSE text, "
                         "a JSON response body or a WebSocket transcript (JSON lines)")
    if transport == "auto" and capture_kind(head) == "json":
        head = _through_first_line(stream, head)
    if _transport(head, name, transport) == "websocket":
        return _check_transcript(stream, head, name, front, profile)
    kind = capture_kind(head)
    if kind == "json":
        rest = stream.read(MAX_BODY_BYTES + 1 - len(head))
        data = head + rest
        if len(data) > MAX_BODY_BYTES:
            raise InputError(f"{name} is a JSON body larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB; "
                             "check a streamed capture instead")
        chosen = detect_front(data, "json") if front == "auto" else front
        return check_body(data, front=chosen, profile=profile)
    chosen = detect_front(head, "sse") if front == "auto" else front
    checker = StreamChecker(chosen, profile)
    chunk = head
    while chunk:
        checker.feed(chunk)
        chunk = stream.read(CHUNK)
    return checker.close()
