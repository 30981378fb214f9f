"""Read a captured response (raw SSE text or a JSON body) from a file or stdin and check it. The checks every
reader of a capture makes first (`callproof check` here, the capture import of `callproof.harness.capture`) are
here too: what a capture starts with once a byte order mark and whitespace are skipped, whether it is binary, and
whether it is a JSON body or an SSE stream."""

from __future__ import annotations

import json
from typing import BinaryIO, Literal

from callproof.harness._errors import InputError
from callproof.harness._types import Dialect
from callproof.harness.catalogue import Profile

from ._check import CheckReport, StreamChecker, check_body
from ._sse import parse_sse

__all__ = [
    "CHUNK", "MAX_BODY_BYTES", "capture_kind", "capture_text", "check_capture", "detect_front", "nul_offset",
    "payload_dialect",
]

CHUNK = 64 * 1024
#: A non-stream body is parsed whole; larger ones are refused rather than exhausting memory.
MAX_BODY_BYTES = 64 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_ANTHROPIC_TYPES = frozenset((
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop", "ping", "message",
))


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


def payload_dialect(payload: object) -> Dialect | None:
    """The dialect one event or body is positively written in (chat chunks and completions by `object`, Responses
    by `object: response` or a `response.*` type, Anthropic by its event and body types); None when it says
    nothing either way."""
    if not isinstance(payload, dict):
        return None
    obj, typ = payload.get("object"), payload.get("type")
    if isinstance(obj, str) and obj.startswith("chat.completion"):
        return "chat"
    if typ in _ANTHROPIC_TYPES:
        return "anthropic"
    if obj == "response" or (isinstance(typ, str) and typ.startswith("response.")):
        return "responses"
    return None


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


def check_capture(
    stream: BinaryIO, name: str, *, front: Dialect | Literal["auto"] = "auto", profile: Profile = "openai"
) -> CheckReport:
    """Check a capture read in chunks (bounded memory for SSE); raise InputError when it cannot be checked."""
    head = stream.read(CHUNK)
    if not head:
        raise InputError(f"{name} is empty (0 bytes): nothing to check; capture the response body, "
                         "e.g. `curl -sN URL -d @request.json > capture.sse`")
    nul = nul_offset(head)
    if nul is not None:
        raise InputError(f"{name} looks binary (NUL byte at offset {nul}); callproof check reads raw SSE text "
                         "or a JSON response body")
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
