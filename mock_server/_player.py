"""Plans and playing them: a `Plan` is how the mock answers one request (HTTP status, headers and either a complete
JSON body or a schedule of writes at offsets from the stream's start); `play` releases its writes against a `Clock`.
`error_plan` is the plan of an HTTP error in a dialect. Plans are made by `make_plan` (mock_server/_planning.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from callproof.harness.dialects import DIALECTS

from ._clock import Clock
from .dialects import Renderer

__all__ = [
    "Plan",
    "Write",
    "error_plan",
    "play",
]

SSE_HEADERS: tuple[tuple[str, str], ...] = (("cache-control", "no-cache"), ("x-accel-buffering", "no"))
SSE_MEDIA_TYPE = "text/event-stream"
JSON_MEDIA_TYPE = "application/json"


@dataclass(frozen=True, slots=True)
class Write:
    """One write to the wire, `at` seconds after the stream start."""

    at: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Plan:
    """How to answer one request.

    `body` is a complete body (sent with a Content-Length) when `writes` is empty; otherwise the writes are
    streamed in order, each at its offset, the body ends at `end_at`, and `abort` ends it by dropping the
    connection instead (no terminal chunk). `first_byte` is the offset of the response headers."""

    status: int
    headers: tuple[tuple[str, str], ...]
    media_type: str
    first_byte: float = 0.0
    body: bytes | None = None
    writes: tuple[Write, ...] = ()
    end_at: float = 0.0
    abort: bool = False
    faults: tuple[str, ...] = ()
    events: int = 0
    #: `headers` as the ASGI server takes them (latin-1 bytes, a repeated name's last value), encoded once per plan.
    raw_headers: tuple[tuple[bytes, bytes], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        encoded = tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in dict(self.headers).items())
        object.__setattr__(self, "raw_headers", encoded)

    @property
    def streamed(self) -> bool:
        return bool(self.writes) or self.body is None

    @property
    def wire(self) -> bytes:
        """Every body byte this plan sends."""
        return self.body if self.body is not None else b"".join(w.data for w in self.writes)


async def play(plan: Plan, clock: Clock, start: float) -> AsyncIterator[bytes]:
    """The plan's writes, each released at `start + write.at`; returns at `start + end_at`."""
    for write in plan.writes:
        await clock.sleep_until(start + write.at)
        yield write.data
    await clock.sleep_until(start + plan.end_at)


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    return f"{seconds:g}s"


def error_plan(
    renderer: Renderer, status: int, message: str, *, retry_after: float | None = None, first_byte: float = 0.0,
    headers: Sequence[tuple[str, str]] = (), faults: tuple[str, ...] = (),
    error_fields: Mapping[str, str] | None = None,
) -> Plan:
    """An HTTP error in the renderer's dialect; 429 carries Retry-After and x-ratelimit-* headers. `error_fields` are
    set in the body's `error` object (OpenAI's `param` and `code`)."""
    extra = list(headers)
    if status == 429 and retry_after is None:
        retry_after = 1.0
    if retry_after is not None:
        extra += [("retry-after", str(math.ceil(retry_after))), ("retry-after-ms", str(round(retry_after * 1000)))]
    if status == 429:
        reset = _duration(retry_after or 0.0)
        extra += [
            ("x-ratelimit-limit-requests", "60"), ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", reset),
            ("x-ratelimit-limit-tokens", "150000"), ("x-ratelimit-remaining-tokens", "0"),
            ("x-ratelimit-reset-tokens", reset),
        ]
        extra += DIALECTS[renderer.dialect].ratelimit_headers
    error = renderer.error_body(status, message)
    if error_fields:
        error["error"] = {**error["error"], **error_fields}
    body = _json_bytes(error)
    return Plan(status, tuple(extra), JSON_MEDIA_TYPE, first_byte=first_byte, body=body, faults=faults)


def _json_bytes(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
