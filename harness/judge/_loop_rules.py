"""Judging played sequences (scenarios with `legs`, docs/spec/loops.md): the tool results of an agent loop in the
upstream requests of a gateway (GW-LOOP-001..003) or in a client's next requests (CLI-014), and a client's retries
(CLI-015). The harness gives the journal's upstream requests of the case, in order, each with the calls and
results it must carry (`expected`); the deterministic tool's outputs are computed by the harness (the request
floor's `tool_output`), so this module only compares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from callproof.harness._types import JSONData
from callproof.harness.catalogue import Evidence
from callproof.harness.dialects import DIALECTS, ToolEntry

from ._findings import Findings

__all__ = ["LOOP_RULES", "LoopCallResult", "SequenceRequest", "check_client_loop", "check_client_retries",
           "check_gateway_loop", "history_problems", "tool_entries"]

LOOP_RULES = ("GW-LOOP-001", "GW-LOOP-002", "GW-LOOP-003")


@dataclass(frozen=True, slots=True)
class LoopCallResult:
    """An earlier call and the result the loop sends back for it."""

    call_id: str
    name: str
    output: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class SequenceRequest:
    """One upstream request of a played sequence, as the mock journaled it: the leg that answered it (None when
    refused past the end), its HTTP status, its arrival time (monotonic), its body, and the earlier turns (each the
    calls of one answer with their results) it must carry. `retry_after`: the Retry-After the answer asked for."""

    leg: int | None
    status: int
    time: float
    body: JSONData
    expected: tuple[tuple[LoopCallResult, ...], ...] = ()
    retry_after: float | None = None


def tool_entries(dialect: str, body: JSONData) -> list[ToolEntry]:
    """The calls and tool results a request body carries, in its order, in its dialect's shape."""
    return list(DIALECTS[dialect].tool_entries(body)) if isinstance(body, Mapping) else []


def history_problems(
    dialect: str, body: JSONData, expected: Sequence[Sequence[LoopCallResult]],
) -> list[tuple[str, str]]:
    """What is wrong with the calls and results `body` carries against the `expected` turns, as (message, JSON
    path): a result or call dropped, duplicated or with an id never sent, out of order, or with another output."""
    entries = tool_entries(dialect, body)
    wanted = [c for turn in expected for c in turn]
    ids = {c.call_id for c in wanted}
    problems: list[tuple[str, str]] = []
    for kind in ("call", "result"):
        seen = [e for e in entries if e.kind == kind]
        for call in wanted:
            found = [e for e in seen if e.call_id == call.call_id]
            what = "call" if kind == "call" else f"tool result ({DIALECTS[dialect].tool_result_shape})"
            if not found:
                problems.append((f"the {what} for call id {call.call_id!r} ({call.name}) is missing: dropped, or its "
                                 f"id lost or rewritten", "$"))
            elif len(found) > 1:
                problems.append((f"the {what} for call id {call.call_id!r} appears {len(found)} times: it must "
                                 "appear exactly once", found[1].path))
        for entry in seen:
            if entry.call_id not in ids:
                problems.append((f"a {kind} with call id {entry.call_id!r}, which no earlier answer gave: an id lost "
                                 "or rewritten on the way", entry.path))
        order = [e.call_id for e in seen if e.call_id in ids]
        firsts = list(dict.fromkeys(order))
        if firsts != [c.call_id for c in wanted if c.call_id in firsts]:
            problems.append((f"the {kind}s are out of order: {firsts}, expected {[c.call_id for c in wanted]}",
                             seen[0].path if seen else "$"))
    position = {(e.kind, e.call_id): i for i, e in reversed(list(enumerate(entries)))}
    for call in wanted:
        at_call, at_result = position.get(("call", call.call_id)), position.get(("result", call.call_id))
        if at_call is not None and at_result is not None and at_result < at_call:
            problems.append((f"the tool result for {call.call_id!r} comes before the call it answers",
                             entries[at_result].path))
        result = next((e for e in entries if e.kind == "result" and e.call_id == call.call_id), None)
        if result is not None and result.output is not None and result.output != call.output:
            problems.append((f"the tool result for {call.call_id!r} carries {result.output!r}, not the output "
                             f"{call.output!r} that was sent", result.path))
    return problems


def _results(expected: Sequence[Sequence[LoopCallResult]]) -> int:
    return sum(len(turn) for turn in expected)


def check_gateway_loop(
    findings: Findings, upstream: str, front: str, requests: Sequence[SequenceRequest], *, legs: int,
    unplayed: Sequence[int], refusals: Sequence[str],
) -> None:
    """GW-LOOP-001: every upstream request made for a front request that carried tool results carries them (and
    the earlier calls) in the upstream's shape, ids kept, each once, in order, after its call. GW-LOOP-002: a
    failed tool's `is_error` reaches an upstream that can say it (Anthropic front and upstream). GW-LOOP-003: the
    sequence was played to its end (every leg requested, none refused)."""
    loop = [r for r in requests if r.expected]
    if loop:
        findings.check("GW-LOOP-001")
    for request in loop:
        for message, path in history_problems(upstream, request.body, request.expected):
            findings.fail("GW-LOOP-001", f"upstream request for leg {request.leg}: {message}",
                          Evidence(path=path, expected=f"{_results(request.expected)} tool result(s)"))
    failed_tool = any(c.is_error for r in loop for t in r.expected for c in t)
    if front == upstream and DIALECTS[front].tool_result_errors and failed_tool:
        findings.check("GW-LOOP-002")
        for request in loop:
            marks = {e.call_id: e for e in tool_entries(upstream, request.body) if e.kind == "result"}
            for call in (c for turn in request.expected for c in turn):
                entry = marks.get(call.call_id)
                if entry is not None and entry.is_error != call.is_error:
                    findings.fail("GW-LOOP-002", f"the tool_result for {call.call_id!r} has is_error "
                                  f"{str(entry.is_error).lower()}, the front sent {str(call.is_error).lower()}",
                                  Evidence(path=entry.path.replace("tool_use_id", "is_error"),
                                           expected=str(call.is_error).lower(), actual=str(entry.is_error).lower()))
    findings.check("GW-LOOP-003")
    for why in refusals:
        findings.fail("GW-LOOP-003", why, Evidence(path="the upstream requests"))
    if unplayed:
        findings.fail("GW-LOOP-003", f"leg(s) {', '.join(map(str, unplayed))} of {legs} never reached the upstream: "
                      "the sequence stopped before its end", Evidence(expected=f"{legs} legs played",
                                                                       actual=f"{legs - len(unplayed)} played"))


def check_client_loop(
    findings: Findings, dialect: str, requests: Sequence[SequenceRequest], *, legs: int, unplayed: Sequence[int],
) -> None:
    """CLI-014: each request after an answer with calls carries every call and its output (the deterministic
    tool's), with its call id, exactly once; no request past the sequence's end (a client looping on a call); no
    leg left unrequested (a client that stopped instead of sending the outputs)."""
    findings.check("CLI-014")
    for number, request in enumerate(requests):
        if request.leg is None or request.status == 409:
            findings.fail("CLI-014", f"request {number + 1} came after the sequence's last leg (the mock answered "
                          f"{request.status}): the client sent another request when the answer had no call, or "
                          "repeated a call it had already answered", Evidence(path=f"request {number + 1}"))
            continue
        for message, path in history_problems(dialect, request.body, request.expected):
            findings.fail("CLI-014", f"request {number + 1} (leg {request.leg}): {message}",
                          Evidence(path=path, expected=f"{_results(request.expected)} tool output(s)"))
    if unplayed:
        findings.fail("CLI-014", f"leg(s) {', '.join(map(str, unplayed))} of {legs} were never played: the client "
                      "stopped before sending every call's output back", Evidence(
                          expected=f"{legs} requests", actual=f"{legs - len(unplayed)} legs played"))


def check_client_retries(
    findings: Findings, requests: Sequence[SequenceRequest], *, legs: int, unplayed: Sequence[int], slack: float,
    final_error: str | None,
) -> None:
    """CLI-015: the client retried each retryable error (as many attempts as legs, no more), waited at least the
    Retry-After the answer asked for (less the run's slack) before the next attempt, and reported the final
    answer, not the errors before it."""
    findings.check("CLI-015")
    for number, (request, after) in enumerate(pairwise(requests)):
        wait = request.retry_after
        gap = after.time - request.time
        if request.status >= 400 and wait is not None and gap < wait - slack:
            findings.fail("CLI-015", f"attempt {number + 2} came {gap * 1000:.0f} ms after attempt {number + 1}'s "
                          f"HTTP {request.status}, which asked for Retry-After {wait * 1000:.0f} ms",
                          Evidence(path=f"attempt {number + 2}", expected=f">= {(wait - slack) * 1000:.0f} ms",
                                   actual=f"{gap * 1000:.0f} ms"))
    if len(requests) > legs:
        findings.fail("CLI-015", f"{len(requests)} attempts for a sequence of {legs} legs: the client went on "
                      "after its answer", Evidence(expected=f"{legs} attempts", actual=str(len(requests))))
    if unplayed:
        findings.fail("CLI-015", f"{legs - len(unplayed)} of {legs} attempts: the client gave up before the answer "
                      "(retries off, or Retry-After not honoured)",
                      Evidence(expected=f"{legs} attempts", actual=str(legs - len(unplayed))))
    elif final_error is not None:
        findings.fail("CLI-015", f"the client reported an error after the successful last attempt: {final_error}",
                      Evidence(path="the adapter result", actual=final_error[:200]))
