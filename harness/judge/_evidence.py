"""Evidence a report shows beside a failed case: the front stream as a timeline of events with arrival times, and
a short excerpt of the raw bytes around each failure's byte offset."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from callproof.harness.catalogue import RuleResult
from callproof.harness.check import SSEEvent

__all__ = ["TIMELINE_LIMIT", "excerpts", "timeline"]

#: Events kept in a case's timeline (a report stays small even for a 100k-event stream).
TIMELINE_LIMIT = 400
_RADIUS = 160


def timeline(events: Sequence[SSEEvent], sent: float, limit: int = TIMELINE_LIMIT) -> list[dict[str, Any]]:
    """Events as {index, type, t_ms (since the request was sent), offset}; the first `limit` of them."""
    return [{"index": i, "type": e.type, "t_ms": round((e.arrival - sent) * 1000, 2), "offset": e.offset}
            for i, e in enumerate(events[:limit])]


def excerpts(body: bytes, failed: Iterable[RuleResult]) -> dict[str, str]:
    """rule id -> the raw stream around its first violation's byte offset (where the violation has one)."""
    out: dict[str, str] = {}
    for result in failed:
        offsets = [v.evidence.offset for v in result.violations if v.evidence.offset is not None]
        if offsets:
            start = max(0, offsets[0] - _RADIUS)
            out[result.rule.id] = body[start : offsets[0] + _RADIUS].decode("utf-8", "replace")
    return out

