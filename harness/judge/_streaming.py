"""Incremental forwarding (GW-STREAM-*): the content the mock wrote upstream, as running totals stamped with the
journal's clock, against what reached the front, stamped on arrival with the same clock. Content held back across
an upstream pause until more upstream data arrives is buffering; content merely late is latency, measured and
reported beside the verdict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from callproof.harness._types import JSONData
from callproof.harness.catalogue import Evidence
from callproof.harness.check import SSEEvent, SSEParser

from ._findings import Findings
from ._gateway import FrontAnswer, UpstreamView

__all__ = ["DEFAULT_SLACK", "GAP_MIN", "LOAD_SHARE", "STREAM_PLAYS", "check_streaming", "content_marks",
           "content_times", "forwarding_latency", "waited"]

#: Scripted upstream pauses at least this long are checked at the front (GW-STREAM-002) ...
GAP_MIN = 0.050
#: ... where the content written before the pause must reach the front before the upstream's next write, give or
#: take this slack for the race between that write and the forwarded event on the loopback (the run derives it
#: from its calibration: max(5 ms, 3 x the p95 of its own mock -> harness delay); this is the default without one).
DEFAULT_SLACK = 0.010
#: Lateness is no proof of buffering where the IUT and the harness waited for a CPU (machine load) for at least
#: this share of the stretch in question: a gateway that buffers sits idle there, one kept from running waits ...
LOAD_SHARE = 0.5
#: ... so such a violation is `loaded`, and the harness plays the case again, up to this many plays in all: a
#: streaming gateway kept from running is late now and then, a buffering one in every play.
STREAM_PLAYS = 4


def _is_content(payload: JSONData) -> bool:
    """Whether an upstream event carries output content: a Responses `*.delta`, a chat delta with content or
    tool calls, an Anthropic content_block_delta."""
    if not isinstance(payload, dict):
        return False
    kind = str(payload.get("type", ""))
    if kind.endswith(".delta") or kind == "content_block_delta":
        return True
    for choice in payload.get("choices") or ():
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if isinstance(delta, dict) and (delta.get("content") or delta.get("tool_calls")):
            return True
    return False


def _amount(payload: JSONData) -> int:
    """How many characters of output content (text, arguments, reasoning) an event carries, in any dialect."""
    if not isinstance(payload, dict):
        return 0
    kind = str(payload.get("type", ""))
    if kind.endswith(".delta"):
        delta = payload.get("delta")
        return len(delta) if isinstance(delta, str) else 0
    if kind == "content_block_delta":
        delta = payload.get("delta")
        if not isinstance(delta, dict):
            return 0
        return sum(len(delta[k]) for k in ("text", "partial_json", "thinking") if isinstance(delta.get(k), str))
    total = 0
    for choice in payload.get("choices") or ():
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if not isinstance(delta, dict):
            continue
        if isinstance(delta.get("content"), str):
            total += len(delta["content"])
        for call in delta.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                total += len(function["arguments"])
    return total


def content_marks(writes: Sequence[tuple[float, bytes]]) -> tuple[tuple[float, int], ...]:
    """(when, characters of content written so far) for each upstream write that completed a content event."""
    parser = SSEParser()
    marks: list[tuple[float, int]] = []
    total = 0
    for when, data in writes:
        for event in parser.feed(data, when):
            try:
                payload = json.loads(event.data)
            except ValueError:
                continue
            if _is_content(payload):
                total += _amount(payload)
                marks.append((event.arrival, total))
    parser.close()
    return tuple(marks)


def _front_marks(events: Sequence[SSEEvent]) -> list[tuple[float, int]]:
    """(arrival, characters of content delivered so far) for each front event that carried content."""
    marks: list[tuple[float, int]] = []
    total = 0
    for event in events:
        try:
            amount = _amount(json.loads(event.data))
        except ValueError:
            continue
        if amount:
            total += amount
            marks.append((event.arrival, total))
    return marks


def _delivered(front: Sequence[tuple[float, int]], by: float) -> int:
    """Characters of content the front had delivered by time `by`."""
    got = 0
    for when, total in front:
        if when > by:
            break
        got = total
    return got


def forwarding_latency(events: Sequence[SSEEvent], writes: Sequence[tuple[float, bytes]]) -> dict[str, Any]:
    """How long each piece of upstream content took to reach the front (the mock's write stamp to the harness's
    arrival stamp, one clock): p50 and max in ms over the content events the front delivered; {} without any."""
    front = _front_marks(events)
    if not front:
        return {}
    delays: list[float] = []
    previous = 0
    for when, total in content_marks(writes):
        if total <= previous or total > front[-1][1]:
            previous = max(previous, total)
            continue
        previous = total
        arrival = next(t for t, got in front if got >= total)
        delays.append(arrival - when)
    if not delays:
        return {}
    delays.sort()
    return {"forwarding_latency_ms": {"p50": round(delays[len(delays) // 2] * 1000, 1),
                                      "max": round(delays[-1] * 1000, 1), "events": len(delays)}}


def content_times(writes: Sequence[tuple[float, bytes]]) -> tuple[float, ...]:
    """When each upstream write that completed a content event left the mock (any of the three dialects)."""
    return tuple(when for when, _ in content_marks(writes))


def waited(waits: Sequence[tuple[float, float]], start: float, end: float) -> float:
    """Seconds of CPU waits (the IUT's threads and the harness's reader summed) that ended between `start` and
    `end`, from samples of (time, seconds waited so far): the last sample at or before `start` to the first at or
    after `end`. The kernel counts a wait when it ends, so a stall that began earlier counts in full. 0.0 without
    samples."""
    before = [total for when, total in waits if when <= start]
    after = [total for when, total in waits if when >= end]
    if not before or not after:
        return 0.0
    return max(0.0, after[0] - before[-1])


def _loaded(waits: Sequence[tuple[float, float]], start: float, end: float) -> bool:
    """Whether the machine's load can account for lateness over `start`..`end`: LOAD_SHARE of it spent waiting."""
    return end > start and waited(waits, start, end) >= LOAD_SHARE * (end - start)


def _stalled_across(waits: Sequence[tuple[float, float]], moment: float, end: float) -> bool:
    """Whether waits that ended between `moment` and `end` add up to LOAD_SHARE of the stretch from GAP_MIN before
    `moment` to `end`: a stall across `moment` (a wait that ends after a moment began before it)."""
    return end > moment and waited(waits, moment, end) >= LOAD_SHARE * (end - moment + GAP_MIN)


def _first_delta(events: Sequence[SSEEvent]) -> SSEEvent | None:
    for event in events:
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if _is_content(payload):
            return event
    return None


def _load_note(waits: Sequence[tuple[float, float]], start: float, end: float) -> str:
    return (f"; the IUT and the harness waited for a CPU for {waited(waits, start, end) * 1000:.0f} ms of those "
            f"{(end - start) * 1000:.0f} ms, which can make a streaming gateway as late in one play, not in every "
            f"play: the case is played again, up to {STREAM_PLAYS} plays")


def check_streaming(findings: Findings, answer: FrontAnswer, upstream: UpstreamView,
                    slack: float = DEFAULT_SLACK) -> None:
    """GW-STREAM-001/002: only where the upstream stream lasted long enough to tell streaming from buffering.
    Both judge causality (what the upstream had written against when the front delivered it), never the length
    of the front's pauses. Lateness over a stretch the IUT and the harness spent waiting for a CPU (LOAD_SHARE of
    it, `upstream.waits`), or across the deadline, may be the machine's load rather than buffering: such a
    violation is `loaded`, and the harness plays the case again (up to STREAM_PLAYS plays) rather than take one
    play's word either way. A buffering gateway is late in every play; one kept from running now and then."""
    if len(upstream.writes) < 2 or not answer.events:
        return
    _check_first_delta(findings, answer, upstream)
    _check_pauses(findings, answer, upstream, slack)


def _check_first_delta(findings: Findings, answer: FrontAnswer, upstream: UpstreamView) -> None:
    """GW-STREAM-001: the first delta before the upstream's last write, where its content lasted 2 x GAP_MIN."""
    writes = upstream.writes
    # Only a stream whose content kept coming for a while can tell streaming from buffering.
    span = writes[-1][0] - upstream.content_times[0] if upstream.content_times else 0.0
    if span < 2 * GAP_MIN:
        return
    findings.check("GW-STREAM-001")
    first = _first_delta(answer.events)
    if first is None or first.arrival < writes[-1][0]:
        return
    # Past the last write after the IUT or the harness waited for a CPU for much of the time since the first
    # content, or in a stall across the last write, may be the machine's load: `loaded`.
    late = first.arrival - writes[-1][0]
    loaded = (_loaded(upstream.waits, upstream.content_times[0], first.arrival)
              or _stalled_across(upstream.waits, writes[-1][0], first.arrival))
    note = _load_note(upstream.waits, upstream.content_times[0], first.arrival) if loaded else ""
    findings.fail("GW-STREAM-001", f"the first delta reached the client {late:.3f} s after the upstream's last byte, "
                  f"though the upstream streamed content for {span:.3f} s before it: the IUT buffers the stream{note}",
                  Evidence(event_index=answer.events.index(first), event_type=first.type,
                           expected="before the upstream's last write", actual=f"{late:.3f} s after it"),
                  loaded=loaded)


def _check_pauses(findings: Findings, answer: FrontAnswer, upstream: UpstreamView, slack: float) -> None:
    """GW-STREAM-002. Pauses between content writes: what the upstream had written before a pause must reach the
    front before the upstream's next write (plus a slack for the race of the two on the loopback). Held until more
    upstream data arrives is buffering; merely late (but before that write) is latency, reported in the case's
    details. Held while the IUT or the harness waited for a CPU for much of that time may be the machine's load
    (`loaded`): a buffering gateway sits idle through the pause (the upstream sends nothing then), a streaming one
    kept from running waits. A pause before any content (say between message_start and the first block) has nothing
    to forward."""
    marks = content_marks(upstream.writes)
    pauses = [(a, b, done) for (a, done), (b, _) in pairwise(marks) if b - a >= GAP_MIN and done > 0]
    front = _front_marks(answer.events)
    if not pauses or not front:
        return
    findings.check("GW-STREAM-002")
    doubtful: tuple[str, Evidence] | None = None  # the first pause held while loaded, failed if no other is
    for number, (before, after, done) in enumerate(pauses, 1):
        needed = min(done, front[-1][1])
        held = next(t for t, total in front if total >= needed)
        later = next((t for t, total in front if total > needed), None)
        # Buffering: it came after the upstream's next write, and together with (within the slack of) the content
        # written after the pause. Late but apart from that content is latency.
        if not (held > after and later is not None and later - held <= slack):
            continue
        got = _delivered(front, after)
        loaded = _loaded(upstream.waits, before, held)
        message = (f"the upstream wrote {done} characters of content, then paused {(after - before) * 1000:.0f} ms "
                   f"(pause {number}); the front had delivered {got} by its next write and the rest came "
                   f"{(held - after) * 1000:.0f} ms after that write, together with the content written after the "
                   f"pause (within {slack * 1000:.0f} ms): held back until more upstream data arrived"
                   + (_load_note(upstream.waits, before, held) if loaded else ""))
        evidence = Evidence(path=f"pause {number}", expected=f"{needed} characters before the next write",
                            actual=f"{got} characters")
        if not loaded:
            findings.fail("GW-STREAM-002", message, evidence)
            return
        doubtful = doubtful or (message, evidence)
    if doubtful is not None:
        findings.fail("GW-STREAM-002", *doubtful, loaded=True)
