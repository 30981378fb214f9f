"""The verdict of a cancellation case (GW-CANCEL-*, docs/spec/cancellation.md): the client's close
(`_cancel_exchange`), the journal watched after it, `check_cancellation` on the figures, and the case's details
(the bound, when the client closed, each upstream request with when it ended)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from callproof.harness.judge import CaseResult, CaseSpec, Findings, check_cancellation
from callproof.harness.scenario import Scenario

from ._calibrate import Calibration
from ._cancel_exchange import CANCEL_AFTER, Closer, cancel_bound, close_front, watch_upstream
from ._verdict import summary

if TYPE_CHECKING:
    from callproof.mock_server import Journal

__all__ = ["judge_cancellation"]


def judge_cancellation(spec: CaseSpec, scenario: Scenario, url: str, request: Mapping[str, Any],
                       headers: Mapping[str, str], journal: Journal, case: str, *, timeout: float,
                       calibration: Calibration, waits: Callable[[float, float], Sequence[tuple[float, float]]],
                       details: Mapping[str, Any], closer: Closer | None = None) -> CaseResult:
    """One cancellation case: close the front as the scenario asks (before the first byte where its upstream
    headers come late, `timing.first_byte_ms`, else after CANCEL_AFTER events), watch the journal, judge.
    `waits(start, end)`: the IUT's CPU-wait samples over that stretch. `closer`: how the client sends and walks
    away (default `close_front`, HTTP; the front's own over another transport: `Front.closer`)."""
    before_first_byte = scenario.timing.first_byte_ms > 0
    called = (lambda: bool(journal.requests(case=case))) if before_first_byte else None
    client = (closer or close_front)(url, request, headers, timeout=timeout, after_events=CANCEL_AFTER,
                                     upstream_called=called)
    bound = cancel_bound(calibration)
    facts: dict[str, Any] = {"variant": "before_first_byte" if before_first_byte else "after_events",
                             "bound_ms": round(bound * 1000, 1), "events_read": client.events,
                             "bytes_read": client.bytes}
    if client.status is not None:
        facts["http_status"] = client.status
    out = {**details, "cancel": facts, "calibration": calibration.to_json()}
    if client.closed is None:
        seconds = time.monotonic() - client.sent
        return CaseResult(spec, "error", message=client.problem or "the client never closed", seconds=seconds,
                          details=out)
    found, watched = watch_upstream(journal, case, client.closed, bound)
    facts["closed_after_ms"] = round((client.closed - client.sent) * 1000, 1)
    facts["upstream"] = [{"request": a.id, "sent_ms": round((a.time - client.closed) * 1000, 1), "ended": a.ended,
                          **({"ended_ms": round((a.end_time - client.closed) * 1000, 1)}
                             if a.end_time is not None else {})} for a in found]
    samples = waits(client.closed, watched)
    findings = Findings()
    problem = check_cancellation(findings, client.closed, found, bound, watched, samples)
    results = findings.results()
    failed = [r for r in results if r.outcome == "failed"]
    seconds = time.monotonic() - client.sent
    if problem is not None and not any(r.rule.level == "MUST" for r in failed):
        return CaseResult(spec, "error", tuple(failed), problem, seconds, out)
    message = "\n".join(m for m in (summary(failed) if failed else "", problem or "") if m)
    return CaseResult(spec, "failed" if failed else "passed", results, message, seconds, out)
