"""Gateway mode (docs/spec/contracts.md §7.8): one scenario sent through the IUT's front, with the mock as its
upstream, and the sandwich rules that compare what the mock sent and received (its journal) with what the front
emitted: id mapping, fault propagation, incremental forwarding, stream vs non-stream equivalence, isolation.
Request translation lives in `_translation`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from callproof.harness.catalogue import Evidence, Profile
from callproof.harness.check import CheckReport, SSEEvent, SSEParser, StreamChecker, check_body, short
from callproof.harness.scenario import Exchange, Result, result_of_body, result_of_events, status_matches

from ._expected import expected_calls, expects_success
from ._findings import Findings

__all__ = [
    "FrontAnswer",
    "UpstreamView",
    "check_equivalence",
    "check_faults",
    "check_ids",
    "check_isolation",
    "check_streaming",
    "content_marks",
    "content_times",
    "forwarding_latency",
    "read_answer",
]

#: Scripted upstream pauses at least this long are checked at the front (GW-STREAM-002) ...
GAP_MIN = 0.050
#: ... where the content written before the pause must reach the front before the upstream's next write, give or
#: take this slack for the race between that write and the forwarded event on the loopback (the run derives it
#: from its calibration: max(5 ms, 3 x the p95 of its own mock -> harness delay); this is the default without one).
DEFAULT_SLACK = 0.010
_CUT_FAULTS = frozenset(("disconnect", "truncate", "malformed", "stream_error"))
_INCOMPLETE_REASON = {"length": "max_output_tokens", "content_filter": "content_filter"}


@dataclass(frozen=True, slots=True)
class FrontAnswer:
    """What came back from the front: the exchange, its events with arrival times, the single-stream check
    (None for an HTTP error, which has no stream to check) and the result a client would hold."""

    exchange: Exchange
    events: tuple[SSEEvent, ...]
    report: CheckReport | None
    result: Result


@dataclass(frozen=True, slots=True)
class UpstreamView:
    """The mock's journal for one case: request bodies, for the first request its writes (time, bytes), and the
    times of the writes that carried output content (text or argument deltas), in the upstream's dialect."""

    bodies: tuple[Any, ...]
    writes: tuple[tuple[float, bytes], ...]
    content_times: tuple[float, ...] = ()


def _is_content(payload: Any) -> bool:
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


def _amount(payload: Any) -> int:
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
    parser = SSEParser()
    times: list[float] = []
    for when, data in writes:
        for event in parser.feed(data, when):
            try:
                payload = json.loads(event.data)
            except ValueError:
                continue
            if _is_content(payload):
                times.append(event.arrival)
    parser.close()
    return tuple(times)


def read_answer(exchange: Exchange, profile: Profile) -> FrontAnswer:
    """Parse and check what the front answered (SSE stream, JSON body or HTTP error)."""
    status = exchange.status or 0
    if status >= 400 or exchange.status is None:
        answer = result_of_body(exchange.json(), status) if status else None
        result = answer or Result("error", "", (), "no answer", error=exchange.error)
        return FrontAnswer(exchange, (), None, result)
    if not exchange.is_sse:
        return FrontAnswer(exchange, (), check_body(exchange.body, profile=profile),
                           result_of_body(exchange.json(), status))
    checker = StreamChecker("responses", profile)
    parser = SSEParser()
    events: list[SSEEvent] = []
    for chunk in exchange.chunks:
        checker.feed(chunk.data, chunk.time)
        events.extend(parser.feed(chunk.data, chunk.time))
    parser.close()
    return FrontAnswer(exchange, tuple(events), checker.close(), result_of_events(events))


def _first_delta(events: Sequence[SSEEvent]) -> SSEEvent | None:
    for event in events:
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(payload, dict) and str(payload.get("type", "")).endswith(".delta"):
            return event
    return None


def check_streaming(findings: Findings, answer: FrontAnswer, upstream: UpstreamView,
                    slack: float = DEFAULT_SLACK) -> None:
    """GW-STREAM-001/002: only where the upstream stream lasted long enough to tell streaming from buffering.
    Both judge causality (what the upstream had written against when the front delivered it), never the length
    of the front's pauses."""
    writes = upstream.writes
    if len(writes) < 2 or not answer.events:
        return
    # Only a stream whose content kept coming for a while can tell streaming from buffering.
    span = writes[-1][0] - upstream.content_times[0] if upstream.content_times else 0.0
    if span >= 2 * GAP_MIN:
        findings.check("GW-STREAM-001")
        first = _first_delta(answer.events)
        if first is not None and first.arrival >= writes[-1][0]:
            late = first.arrival - writes[-1][0]
            findings.fail("GW-STREAM-001", f"the first delta reached the client {late:.3f} s after the upstream's "
                          f"last byte, though the upstream streamed content for {span:.3f} s before it: the IUT "
                          "buffers the stream",
                          Evidence(event_index=answer.events.index(first), event_type=first.type,
                                   expected="before the upstream's last write", actual=f"{late:.3f} s after it"))
    # Pauses between content writes: what the upstream had written before a pause must reach the front before
    # the upstream's next write (plus a slack for the race of the two on the loopback). Held until more upstream
    # data arrives is buffering; merely late (but before that write) is latency, reported in the case's details.
    # A pause before any content (say between message_start and the first block) has nothing to forward.
    marks = content_marks(writes)
    pauses = [(a, b, done) for (a, done), (b, _) in pairwise(marks) if b - a >= GAP_MIN and done > 0]
    front = _front_marks(answer.events)
    if not pauses or not front:
        return
    findings.check("GW-STREAM-002")
    for number, (before, after, done) in enumerate(pauses, 1):
        needed = min(done, front[-1][1])
        held = next(t for t, total in front if total >= needed)
        later = next((t for t, total in front if total > needed), None)
        # Buffering: it came after the upstream's next write, and together with (within the slack of) the content
        # written after the pause. Late but apart from that content is latency.
        if held > after and later is not None and later - held <= slack:
            got = _delivered(front, after)
            findings.fail("GW-STREAM-002", f"the upstream wrote {done} characters of content, then paused "
                          f"{(after - before) * 1000:.0f} ms (pause {number}); the front had delivered {got} by its "
                          f"next write and the rest came {(held - after) * 1000:.0f} ms after that write, together "
                          f"with the content written after the pause (within {slack * 1000:.0f} ms): held back "
                          "until more upstream data arrived",
                          Evidence(path=f"pause {number}", expected=f"{needed} characters before the next write",
                                   actual=f"{got} characters"))
            break


def check_ids(findings: Findings, scenario: Any, result: Result) -> None:
    """GW-ID-001: the upstream's ids come through as call_ids; missing or repeated ones become unique ids."""
    wanted = expected_calls(scenario.expect.tool_calls)
    if not wanted or not expects_success(scenario.expect.status) or not result.calls:
        return
    findings.check("GW-ID-001")
    upstream_ids = [c.call_id for c in scenario.calls]
    seen: set[str] = set()
    for index, call in enumerate(result.calls[: len(upstream_ids)]):
        upstream = upstream_ids[index]
        repeated = upstream is not None and upstream in upstream_ids[:index]
        evidence = Evidence(path=f"$.response.output[?(@.type=='function_call')][{index}].call_id",
                            expected=upstream if upstream and not repeated else "a unique non-empty id",
                            actual=call.call_id)
        if upstream and not repeated and call.call_id != upstream:
            findings.fail("GW-ID-001", f"call {index} ({call.name}) has call_id {call.call_id!r}; the upstream sent "
                          f"id {upstream!r}", evidence)
        elif not call.call_id or call.call_id in seen:
            why = "empty" if not call.call_id else "already used by an earlier call"
            findings.fail("GW-ID-001", f"call {index} ({call.name}) has call_id {call.call_id!r}, {why}; the "
                          f"upstream sent {'no id' if upstream is None else f'the repeated id {upstream!r}'}",
                          evidence)
        if call.call_id:
            seen.add(call.call_id)


def _http_fault(scenario: Any) -> Mapping[str, Any] | None:
    for fault in scenario.faults:
        if fault.kind == "http_error" and fault.probability >= 1:
            return dict(fault.params)
    return None


def fault_kinds(scenario: Any) -> frozenset[str]:
    return frozenset(f.kind for f in scenario.faults if f.probability >= 1)


def has_fault_rules(scenario: Any) -> bool:
    return bool(_http_fault(scenario) or fault_kinds(scenario) & _CUT_FAULTS
                or scenario.ending in ("failed", "length", "content_filter"))


def check_faults(findings: Findings, scenario: Any, answer: FrontAnswer) -> None:
    """GW-FAULT-001..004."""
    http = _http_fault(scenario)
    status = answer.exchange.status
    if http is not None:
        findings.check("GW-FAULT-001")
        if status is not None and status < 400:
            findings.fail("GW-FAULT-001", f"the upstream answered HTTP {http['status']} before streaming; the front "
                          f"answered HTTP {status} ({answer.result.terminal})",
                          Evidence(path="HTTP status", expected=f">= 400 (upstream {http['status']})", actual=status))
        if http["status"] == 429:
            findings.check("GW-FAULT-002")
            retry = answer.exchange.headers.get("retry-after")
            wanted = http.get("retry_after")
            if status != 429:
                findings.fail("GW-FAULT-002", f"the upstream's 429 became HTTP {status}",
                              Evidence(path="HTTP status", expected=429, actual=status))
            elif wanted is not None and (retry is None or not _same_seconds(retry, float(wanted))):
                findings.fail("GW-FAULT-002", f"Retry-After is {retry!r} at the front; the upstream sent {wanted:g}",
                              Evidence(path="header retry-after", expected=f"{wanted:g}", actual=retry))
    if fault_kinds(scenario) & _CUT_FAULTS or scenario.ending == "failed":
        findings.check("GW-FAULT-003")
        if answer.result.status == "completed":
            what = sorted(fault_kinds(scenario) & _CUT_FAULTS) or ["a failed ending"]
            findings.fail("GW-FAULT-003", f"the upstream failed mid-stream ({', '.join(what)}) and the front still "
                          f"ended with {answer.result.terminal}",
                          Evidence(event_type=answer.result.terminal, expected="response.failed or an error event",
                                   actual=answer.result.terminal))
    reason = _INCOMPLETE_REASON.get(scenario.ending)
    if reason is not None:
        findings.check("GW-FAULT-004")
        result = answer.result
        if result.status != "incomplete" or result.incomplete_reason != reason:
            findings.fail("GW-FAULT-004", f"the upstream finished with {scenario.ending}; the front ended "
                          f"{result.status} (reason {result.incomplete_reason!r}), expected incomplete with reason "
                          f"{reason!r}", Evidence(path="$.response.incomplete_details.reason", expected=reason,
                                                   actual=result.incomplete_reason))


def _same_seconds(header: str, seconds: float) -> bool:
    try:
        return abs(float(header) - seconds) < 1e-9
    except ValueError:
        return False


def check_equivalence(findings: Findings, streamed: Result, plain: FrontAnswer, expect: Any = None) -> None:
    """GW-EQ-001: the non-stream answer holds what the stream held. With the scenario's `expect`, the message says
    which half differs from the expected outcome (the broken one)."""
    findings.check("GW-EQ-001")
    result = plain.result
    mine = (result.status, result.text, [(c.name, c.parsed()) for c in result.calls])
    theirs = (streamed.status, streamed.text, [(c.name, c.parsed()) for c in streamed.calls])
    if mine == theirs:
        return
    labels = ("status", "text", "tool calls")
    differ = [label for label, a, b in zip(labels, mine, theirs, strict=True) if a != b]
    message = (f"the non-stream response differs from the stream in {', '.join(differ)}: stream {short(theirs)}, "
               f"non-stream {short(mine)}")
    evidence = Evidence(path="non-stream response", expected=short(theirs), actual=short(mine))
    if expect is not None:
        wrong = [half for half, got in (("stream", streamed), ("non-stream response", result))
                 if not _as_expected(expect, got)]
        if len(wrong) == 1:
            right = "non-stream response" if wrong == ["stream"] else "stream"
            message += f"; the {wrong[0]} differs from the scenario's expected outcome, the {right} matches it"
            wanted = (expect.status, expect.text, expected_calls(expect.tool_calls))
            evidence = Evidence(path=wrong[0], expected=short(wanted), actual=short(theirs if wrong == ["stream"]
                                                                                   else mine))
        elif wrong:
            message += "; both differ from the scenario's expected outcome"
    findings.fail("GW-EQ-001", message, evidence)


def _as_expected(expect: Any, result: Result) -> bool:
    """Whether a result ended as the scenario expects: status, and for a success its calls and text."""
    if not status_matches(expect.status, result.status):
        return False
    if not expects_success(expect.status):
        return True
    calls = [(c.name, c.parsed()) for c in result.calls]
    return calls == expected_calls(expect.tool_calls) and (expect.text is None or result.text == expect.text)


def check_isolation(findings: Findings, runs: Sequence[tuple[Any, Result]]) -> None:
    """GW-ISO-001: each of several concurrent cases holds its own scenario's calls and text."""
    findings.check("GW-ISO-001")
    for scenario, result in runs:
        wanted = expected_calls(scenario.expect.tool_calls)
        got = [(c.name, c.parsed()) for c in result.calls]
        text_ok = scenario.expect.text is None or result.text == scenario.expect.text
        if got != wanted or not text_ok:
            findings.fail("GW-ISO-001", f"concurrent case {scenario.id} got calls {short(got)} and text "
                          f"{short(result.text)}; alone it expects {short(wanted)}"
                          + ("" if scenario.expect.text is None else f" and {short(scenario.expect.text)}"),
                          Evidence(path=scenario.id, expected=short(wanted), actual=short(got)))
