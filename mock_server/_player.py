"""The scenario player: turns a scenario, a dialect renderer and a request into a `Plan` (HTTP status, headers and
either a complete JSON body or a schedule of writes at offsets from the stream's start), and plays plans against
a `Clock`.

Planning is pure: the same scenario, context, flags and seeded `random.Random` give the same plan, byte for byte
and offset for offset, so a seeded chaos run is reproducible. Timing (scenario.timing, in milliseconds) and the
timed faults (stall, slow_first_byte) are scaled by 1/speed.

Timing model (offsets from the request's arrival, the "stream start"):
- the response headers go out at `first_byte_ms` (+ a slow_first_byte fault's `ms`);
- frame 0 goes out with the headers; frame i > 0 follows frame i-1 by `gap_ms`, plus `tokens / tokens_per_s` for
  a content frame, plus seeded uniform jitter in [0, jitter_ms]; `delays_ms[i]`, where given, replaces the delay
  computed for the i-th content frame (the i-th text, reasoning or argument delta, in every dialect);
- the first content frame never leaves before `ttft_ms` (time to first token, measured from the stream start);
- raw frames (scenario.raw) wait their own `delay_ms` each and nothing else.
Frames due at the same instant are written together (one write each instant is much cheaper than one write each
event); frames separated by a gap are separate writes, and the `fragment` fault splits every write further.

Event-level faults count `after_events` in frames of the stream (keep-alive comments are not events); their
default position is the middle of the stream (for `truncate`, the frames that end it: the terminal event, or in
Chat the finish chunk, the usage chunk and `[DONE]`). Byte-level cuts (`after_bytes`) count the bytes on the wire,
after keep-alive comments and CRLF rewriting. A fault parameter may be an object keyed by dialect (the dialects'
frames differ in size, so "mid-arguments" is a different byte count in each); a dialect it does not name gets the
fault's default for that parameter.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from callproof.harness.scenario import Fault, Scenario

from ._clock import Clock
from ._framing import reframe
from .dialects import Frame, RenderContext, Renderer

__all__ = [
    "FAULT_KINDS",
    "Plan",
    "Write",
    "error_plan",
    "make_plan",
    "play",
]

FAULT_KINDS = (
    "http_error", "stream_error", "disconnect", "truncate", "malformed", "stall", "keepalive", "fragment", "crlf",
    "framing", "slow_first_byte",
)

SSE_HEADERS: tuple[tuple[str, str], ...] = (("cache-control", "no-cache"), ("x-accel-buffering", "no"))
SSE_MEDIA_TYPE = "text/event-stream"
JSON_MEDIA_TYPE = "application/json"

_DEFAULT_MESSAGES = {
    400: "The request is invalid (injected by the callproof mock).",
    401: "Incorrect API key provided (injected by the callproof mock).",
    403: "You are not allowed to sample from this model (injected by the callproof mock).",
    404: "The model does not exist (injected by the callproof mock).",
    408: "Request timed out (injected by the callproof mock).",
    413: "Request too large (injected by the callproof mock).",
    429: "Rate limit reached for requests (injected by the callproof mock).",
    500: "The server had an error while processing your request (injected by the callproof mock).",
    502: "Bad gateway (injected by the callproof mock).",
    503: "The engine is currently overloaded, please try again later (injected by the callproof mock).",
    529: "Overloaded (injected by the callproof mock).",
}
_STREAM_ERROR = {"code": "server_error", "message": "The upstream failed mid-stream (injected by the callproof mock)."}
_SEQUENCE = re.compile(rb'"sequence_number":\s*\d+')


# -- plans -------------------------------------------------------------------------------------------------


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


# -- planning ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Item:
    at: float
    data: bytes
    event: bool = True


def _param(fault: Fault, key: str, default: Any = None) -> Any:
    return fault.params.get(key, default)


def _active(faults: Sequence[Fault], rng: random.Random, dialect: str) -> dict[str, Fault]:
    """The first fault of each kind that fires, its parameters resolved for `dialect`; every fault draws once, in
    order, whatever its probability."""
    chosen: dict[str, Fault] = {}
    for fault in faults:
        fires = rng.random() < fault.probability
        if fires and fault.kind not in chosen:
            chosen[fault.kind] = _for_dialect(fault, dialect)
    return chosen


def _for_dialect(fault: Fault, dialect: str) -> Fault:
    """`fault` with every per-dialect parameter (an object keyed by dialect) replaced by `dialect`'s value."""
    if not any(isinstance(v, Mapping) for v in fault.params.values()):
        return fault
    params = {k: v.get(dialect) if isinstance(v, Mapping) else v for k, v in fault.params.items()}
    return replace(fault, params={k: v for k, v in params.items() if v is not None})


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    return f"{seconds:g}s"


def error_plan(
    renderer: Renderer, status: int, message: str, *, retry_after: float | None = None, first_byte: float = 0.0,
    headers: Sequence[tuple[str, str]] = (), faults: tuple[str, ...] = (),
) -> Plan:
    """An HTTP error in the renderer's dialect; 429 carries Retry-After and x-ratelimit-* headers."""
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
        if renderer.dialect == "anthropic":
            extra += [("anthropic-ratelimit-requests-limit", "60"), ("anthropic-ratelimit-requests-remaining", "0")]
    body = _json_bytes(renderer.error_body(status, message))
    return Plan(status, tuple(extra), JSON_MEDIA_TYPE, first_byte=first_byte, body=body, faults=faults)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _failed(scenario: Scenario, fault: Fault) -> Scenario:
    error = dict(scenario.error or _STREAM_ERROR)
    for key in ("code", "message", "type"):
        if key in fault.params:
            error[key] = str(fault.params[key])
    return replace(scenario, ending="failed", error=error)


def _only_sent_items(tail: Frame, sent: Sequence[Frame]) -> Frame:
    """A Responses failure frame whose `response.output` keeps only the items done among the `sent` frames."""
    done: set[str] = set()
    for frame in sent:
        if b'"response.output_item.done"' in frame.data:
            item = json.loads(frame.data.split(b"data: ", 1)[1]).get("item", {})
            done.add(item.get("id"))
    head, data = tail.data.split(b"data: ", 1)
    payload = json.loads(data)
    response = payload.get("response")
    if isinstance(response, dict) and isinstance(response.get("output"), list):
        response["output"] = [o for o in response["output"] if isinstance(o, dict) and o.get("id") in done]
    encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return replace(tail, data=head + b"data: " + encoded + b"\n\n")


def _renumber(frame: Frame, sequence: int) -> Frame:
    return replace(frame, data=_SEQUENCE.sub(b'"sequence_number":%d' % sequence, frame.data, count=1))


def _frames(scenario: Scenario, renderer: Renderer, ctx: RenderContext, faults: Mapping[str, Fault]
            ) -> tuple[list[Frame], list[float | None]]:
    """The frames to play and each one's explicit delay in ms (None: computed from the timing)."""
    raw = scenario.raw.get(renderer.dialect)
    if raw is not None:
        return [Frame(f.data) for f in raw], [f.delay_ms for f in raw]
    error = faults.get("stream_error")
    if error is None:
        frames = list(renderer.stream(scenario, ctx).frames)
    else:
        frames = list(renderer.stream(_failed(scenario, error), ctx).frames)
        cut = _param(error, "after_events")
        if cut is not None and int(cut) < len(frames) - 1:
            # The first `cut` frames, then the dialect's failure frame (a Responses stream keeps its numbering).
            tail = frames[-1]
            if renderer.dialect == "responses":
                tail = _renumber(_only_sent_items(tail, frames[: int(cut)]), int(cut))
            frames = [*frames[: int(cut)], tail]
    # delays_ms[i] belongs to the i-th content frame: the pauses land on the same output in every dialect, whatever
    # its framing puts before the first delta (Responses and Anthropic open with several events, Chat with none).
    explicit = iter(scenario.timing.delays_ms)
    return frames, [next(explicit, None) if frame.content else None for frame in frames]


def _schedule(frames: Sequence[Frame], explicit: Sequence[float | None], scenario: Scenario, raw: bool,
              first_byte: float, scale: float, rng: random.Random) -> list[float]:
    timing = scenario.timing
    offsets: list[float] = []
    at = first_byte
    content_seen = False
    for i, frame in enumerate(frames):
        delay = explicit[i]
        if delay is None:
            delay = 0.0 if raw else (timing.gap_ms if i > 0 else 0.0)
            if frame.content and timing.tokens_per_s:
                delay += frame.tokens / timing.tokens_per_s * 1000.0
            if timing.jitter_ms and i > 0 and not raw:
                delay += rng.uniform(0.0, timing.jitter_ms)
        at += delay * scale / 1000.0
        if frame.content and not content_seen:
            content_seen = True
            at = max(at, timing.ttft_ms * scale / 1000.0)
        offsets.append(at)
    return offsets


def _malformed(data: bytes) -> bytes:
    """The frame with every `data:` value cut in half: invalid JSON, still framed as an event."""
    lines = data.split(b"\n")
    out = []
    for line in lines:
        if line.startswith(b"data:"):
            value = line[5:].decode("utf-8", "replace")
            half = value[: max(1, len(value) // 2)]
            line = b"data:" + (half.encode() if half.strip() else b' {"type":')
        out.append(line)
    return b"\n".join(out)


def _event_cut(fault: Fault, count: int, default: int) -> int | None:
    if _param(fault, "after_bytes") is not None:
        return None
    after = _param(fault, "after_events")
    return min(int(after), count) if after is not None else default


def _cut_bytes(items: list[_Item], limit: int) -> tuple[list[_Item], float | None]:
    """The items holding the first `limit` bytes, and the offset of the first byte cut off (None: nothing)."""
    kept: list[_Item] = []
    size = 0
    for item in items:
        if size + len(item.data) > limit:
            piece = item.data[: limit - size]
            if piece:
                kept.append(_Item(item.at, piece, item.event))
            return kept, item.at
        kept.append(item)
        size += len(item.data)
    return kept, None


def make_plan(
    scenario: Scenario,
    renderer: Renderer,
    ctx: RenderContext,
    *,
    stream: bool,
    rng: random.Random,
    speed: float = 1.0,
    headers: Sequence[tuple[str, str]] = (),
) -> Plan:
    """Plan the answer to one request for `scenario` in `renderer`'s dialect (see the module docstring)."""
    if speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    scale = 1.0 / speed
    faults = _active(scenario.faults, rng, renderer.dialect)
    applied = tuple(kind for kind in FAULT_KINDS if kind in faults)
    first_byte = scenario.timing.first_byte_ms * scale / 1000.0
    if "slow_first_byte" in faults:
        first_byte += float(_param(faults["slow_first_byte"], "ms", 0.0)) * scale / 1000.0

    http_error = faults.get("http_error")
    if http_error is not None:
        status = int(_param(http_error, "status", 500))
        message = str(_param(http_error, "message", _DEFAULT_MESSAGES.get(status, "Injected error.")))
        retry = _param(http_error, "retry_after")
        return error_plan(renderer, status, message, retry_after=None if retry is None else float(retry),
                          first_byte=first_byte, headers=headers, faults=applied)
    if not stream:
        return _body_plan(scenario, renderer, ctx, faults, applied, first_byte, headers)

    frames, explicit = _frames(scenario, renderer, ctx, faults)
    raw = renderer.dialect in scenario.raw
    offsets = _schedule(frames, explicit, scenario, raw, first_byte, scale, rng)
    items = [_Item(at, f.data) for at, f in zip(offsets, frames, strict=True)]
    count = len(items)
    middle = count // 2

    if "malformed" in faults and items:
        fault = faults["malformed"]
        index = min(int(_param(fault, "after_events", middle)), count - 1)
        if _param(fault, "after_bytes") is not None:
            index, size = count - 1, 0
            for i, item in enumerate(items):
                size += len(item.data)
                if size > int(_param(fault, "after_bytes")):
                    index = i
                    break
        items[index].data = _malformed(items[index].data)
    end_at = items[-1].at if items else first_byte
    if "stall" in faults:
        fault = faults["stall"]
        after = min(int(_param(fault, "after_events", middle)), count)
        pause = float(_param(fault, "ms", 0.0)) * scale / 1000.0
        for item in items[after:]:
            item.at += pause
        end_at += pause

    abort = False
    end_fault = faults.get("disconnect") or faults.get("truncate")
    if end_fault is not None:
        abort = "disconnect" in faults
        ending = next((i for i, frame in enumerate(frames) if frame.ending), max(count - 1, 0))
        cut = _event_cut(end_fault, count, middle if abort else ending)
        if cut is not None and cut < count:
            end_at = items[cut].at
            items = items[:cut]

    if "keepalive" in faults:
        fault = faults["keepalive"]
        every = max(1, int(_param(fault, "every_events", 1)))
        comment = f": {_param(fault, 'comment', 'keep-alive')}\n\n".encode()
        spaced: list[_Item] = []
        for i, item in enumerate(items):
            spaced.append(item)
            if (i + 1) % every == 0:
                spaced.append(_Item(item.at, comment, event=False))
        items = spaced
    if "framing" in faults:
        style = str(_param(faults["framing"], "style", "no_space"))
        for item, data in zip(items, reframe([i.data for i in items], style), strict=True):
            item.data = data
    if "crlf" in faults:
        for item in items:
            item.data = item.data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

    if end_fault is not None and _param(end_fault, "after_bytes") is not None:
        items, cut_at = _cut_bytes(items, int(_param(end_fault, "after_bytes")))
        if cut_at is not None:
            end_at = cut_at

    writes = _coalesce(items)
    if "fragment" in faults:
        writes = _fragment(writes, int(_param(faults["fragment"], "bytes", 1)))
    if writes:
        end_at = max(end_at, writes[-1].at)
    return Plan(200, (*SSE_HEADERS, *headers), SSE_MEDIA_TYPE, first_byte=first_byte, writes=tuple(writes),
                end_at=end_at, abort=abort, faults=applied, events=count)


def _coalesce(items: Sequence[_Item]) -> list[Write]:
    writes: list[Write] = []
    pending: list[bytes] = []
    at = 0.0
    for item in items:
        if pending and item.at != at:
            writes.append(Write(at, b"".join(pending)))
            pending = []
        if not pending:
            at = item.at
        pending.append(item.data)
    if pending:
        writes.append(Write(at, b"".join(pending)))
    return writes


def _fragment(writes: Sequence[Write], size: int) -> list[Write]:
    size = max(1, size)
    return [Write(w.at, w.data[i : i + size]) for w in writes for i in range(0, len(w.data), size)]


def _body_plan(
    scenario: Scenario, renderer: Renderer, ctx: RenderContext, faults: Mapping[str, Fault],
    applied: tuple[str, ...], first_byte: float, headers: Sequence[tuple[str, str]],
) -> Plan:
    """A non-stream answer; byte-level faults (disconnect, truncate, malformed, fragment) apply to the body."""
    error = faults.get("stream_error")
    played = _failed(scenario, error) if error is not None else scenario
    verbatim = scenario.raw_body.get(renderer.dialect) if error is None else None
    body = _json_bytes(verbatim if verbatim is not None else renderer.body(played, ctx))
    end_fault = faults.get("disconnect") or faults.get("truncate")
    malformed = "malformed" in faults
    if end_fault is None and not malformed and "fragment" not in faults:
        return Plan(200, tuple(headers), JSON_MEDIA_TYPE, first_byte=first_byte, body=body, faults=applied)
    data = body
    if malformed:
        data = data[: len(data) // 2]
    if end_fault is not None:
        data = data[: int(_param(end_fault, "after_bytes", len(body) // 2))]
    writes = [Write(first_byte, data)] if data else []
    if "fragment" in faults:
        writes = _fragment(writes, int(_param(faults["fragment"], "bytes", 1)))
    return Plan(200, tuple(headers), JSON_MEDIA_TYPE, first_byte=first_byte, writes=tuple(writes),
                end_at=first_byte, abort="disconnect" in faults, faults=applied, events=1)
