"""Planning: `make_plan` turns a scenario, a dialect renderer and a request into a `Plan` (mock_server/_player.py),
applying the faults that fire by their injectors (mock_server/_inject.py), stage by stage.

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

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from callproof.harness.scenario import FAULTS, Fault, Scenario, fault_param

from ._inject import INJECTORS, Answer, BodyDraft, Injector, Item, Stage, StreamDraft
from ._player import JSON_MEDIA_TYPE, SSE_HEADERS, SSE_MEDIA_TYPE, Plan, Write, _json_bytes
from .dialects import Frame, RenderContext, Renderer

__all__ = ["make_plan"]


def make_plan(
    scenario: Scenario,
    renderer: Renderer,
    ctx: RenderContext,
    *,
    stream: bool,
    rng: random.Random,
    speed: float = 1.0,
    headers: Sequence[tuple[str, str]] = (),
    request_headers: Sequence[tuple[str, str]] = (),
    request_url: str = "",
) -> Plan:
    """Plan the answer to one request for `scenario` in `renderer`'s dialect (see the module docstring);
    `request_headers` and `request_url` are the request's, for an `http_error` that echoes them."""
    if speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    scale = 1.0 / speed
    faults = _active(scenario.faults, rng, renderer.dialect)
    answer = Answer(scenario, renderer, ctx, headers, tuple(kind for kind in FAULTS if kind in faults), scale,
                    first_byte=scenario.timing.first_byte_ms * scale / 1000.0, request_headers=request_headers,
                    request_url=request_url)
    for injector, fault in _due(faults, "answer"):
        if injector.answer is not None:
            injector.answer(answer, fault)
    if answer.error is not None:
        return answer.error
    return _stream_plan(answer, faults, rng) if stream else _body_plan(answer, faults)


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


def _due(faults: Mapping[str, Fault], stage: Stage) -> list[tuple[Injector, Fault]]:
    """The injectors of `stage` for the faults that fired, in the order they apply."""
    return [(injector, faults[kind]) for kind, injector in INJECTORS.items()
            if injector.stage == stage and kind in faults]


def _stream_plan(answer: Answer, faults: Mapping[str, Fault], rng: random.Random) -> Plan:
    draft = StreamDraft(answer)
    scenario, dialect = answer.scenario, answer.renderer.dialect
    raw = scenario.raw.get(dialect)
    if raw is not None:  # played as written: no fault changes what is rendered
        draft.frames = [Frame(f.data) for f in raw]
        explicit: list[float | None] = [f.delay_ms for f in raw]
    else:
        _apply_stream(draft, faults, "frames")
        if draft.frames is None:
            draft.frames = list(answer.renderer.stream(scenario, answer.ctx).frames)
        # delays_ms[i] belongs to the i-th content frame: the pauses land on the same output in every dialect,
        # whatever its framing puts before the first delta (Responses and Anthropic open with several events, Chat
        # with none).
        delays = iter(scenario.timing.delays_ms)
        explicit = [next(delays, None) if frame.content else None for frame in draft.frames]
    offsets = _schedule(draft.frames, explicit, scenario, raw is not None, answer.first_byte, answer.scale, rng)
    draft.items = [Item(at, f.data) for at, f in zip(offsets, draft.frames, strict=True)]
    draft.events = len(draft.items)
    draft.end_at = draft.items[-1].at if draft.items else answer.first_byte
    _apply_stream(draft, faults, "events")
    _apply_stream(draft, faults, "bytes")
    _end_by_bytes(draft)
    draft.writes = _coalesce(draft.items)
    _apply_stream(draft, faults, "writes")
    end_at = max(draft.end_at, draft.writes[-1].at) if draft.writes else draft.end_at
    return Plan(200, (*SSE_HEADERS, *answer.headers), SSE_MEDIA_TYPE, first_byte=answer.first_byte,
                writes=tuple(draft.writes), end_at=end_at, abort=draft.abort, faults=answer.applied,
                events=draft.events)


def _end_by_bytes(draft: StreamDraft) -> None:
    """The fault that ends the stream (disconnect, truncate) cuts it at its `after_bytes`, counted on the bytes as
    they go out (after keep-alive comments, reframing and CRLF rewriting)."""
    after = None if draft.end is None else fault_param(draft.end, "after_bytes")
    if after is None:
        return
    draft.items, cut_at = _cut_bytes(draft.items, int(after))
    if cut_at is not None:
        draft.end_at = cut_at


def _apply_stream(draft: StreamDraft, faults: Mapping[str, Fault], stage: Stage) -> None:
    for injector, fault in _due(faults, stage):
        if injector.stream is not None:
            injector.stream(draft, fault)


def _body_plan(answer: Answer, faults: Mapping[str, Fault]) -> Plan:
    """A non-stream answer; byte-level faults (disconnect, truncate, malformed, fragment) apply to the body."""
    draft = BodyDraft(answer)
    _apply_body(draft, faults, "frames")
    if draft.body is None:
        verbatim = answer.scenario.raw_body.get(answer.renderer.dialect)
        rendered = verbatim if verbatim is not None else answer.renderer.body(answer.scenario, answer.ctx)
        draft.body = _json_bytes(rendered)
    draft.data = draft.body
    _apply_body(draft, faults, "events")
    _apply_body(draft, faults, "bytes")
    draft.writes = [Write(answer.first_byte, draft.data)] if draft.data else []
    _apply_body(draft, faults, "writes")
    headers = tuple(answer.headers)
    if not draft.streamed:
        return Plan(200, headers, JSON_MEDIA_TYPE, first_byte=answer.first_byte, body=draft.body,
                    faults=answer.applied)
    return Plan(200, headers, JSON_MEDIA_TYPE, first_byte=answer.first_byte, writes=tuple(draft.writes),
                end_at=answer.first_byte, abort=draft.abort, faults=answer.applied, events=1)


def _apply_body(draft: BodyDraft, faults: Mapping[str, Fault], stage: Stage) -> None:
    for injector, fault in _due(faults, stage):
        if injector.body is not None:
            injector.body(draft, fault)


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


def _cut_bytes(items: list[Item], limit: int) -> tuple[list[Item], float | None]:
    """The items holding the first `limit` bytes, and the offset of the first byte cut off (None: nothing)."""
    kept: list[Item] = []
    size = 0
    for item in items:
        if size + len(item.data) > limit:
            piece = item.data[: limit - size]
            if piece:
                kept.append(Item(item.at, piece, item.event))
            return kept, item.at
        kept.append(item)
        size += len(item.data)
    return kept, None


def _coalesce(items: Sequence[Item]) -> list[Write]:
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
