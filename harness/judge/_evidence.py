"""Evidence a report shows beside a failed case: the front stream as a timeline of events with arrival times, and
a short excerpt of the raw bytes around each failure: the event that failed, whole when it is short, else the part
around the field that failed (the Markdown shows an excerpt as it is, up to 1,500 characters)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import Evidence, RuleResult
from callproof.harness.check import SSEEvent

__all__ = ["TIMELINE_LIMIT", "excerpts", "timeline"]

#: Events kept in a case's timeline (a report stays small even for a 100k-event stream).
TIMELINE_LIMIT = 400
#: Bytes of the stream shown before the failing event and after it.
_RADIUS = 160
#: The most bytes an excerpt holds: the failing event whole when it fits with its context, else this many around
#: the failing field (under the Markdown's 1,500 characters, so nothing cuts it again).
_BUDGET = 1200
_KEY = re.compile(r"""\.([A-Za-z_][A-Za-z0-9_-]*)|\['([^']*)'\]|\["([^"]*)"\]""")
_SEPARATORS = (b"\r\n\r\n", b"\n\n", b"\r\r")


def timeline(events: Sequence[SSEEvent], sent: float, limit: int = TIMELINE_LIMIT) -> list[dict[str, Any]]:
    """Events as {index, type, t_ms (since the request was sent), offset}; the first `limit` of them."""
    return [{"index": i, "type": e.type, "t_ms": round((e.arrival - sent) * 1000, 2), "offset": e.offset}
            for i, e in enumerate(events[:limit])]


def excerpts(body: bytes | None, failed: Iterable[RuleResult],
             turns: Mapping[int, bytes] | None = None) -> dict[str, str]:
    """rule id -> the raw stream around its first violation that has a byte offset: the event there and what
    surrounds it, or, for an event too long to show whole, the part around the field that failed. A violation in
    another turn of a WebSocket socket (`evidence.turn`) is cut from that turn's stream (`turns`: turn -> bytes); one
    of the case's own answer from `body` (None: it has no stream to cut from)."""
    out: dict[str, str] = {}
    for result in failed:
        for violation in result.violations:
            evidence = violation.evidence
            source = body if evidence.turn is None else (turns or {}).get(evidence.turn)
            if evidence.offset is not None and source is not None:
                out[result.rule.id] = _excerpt(source, evidence.offset, evidence).decode("utf-8", "replace")
                break
    return out


def _excerpt(body: bytes, offset: int, evidence: Evidence) -> bytes:
    end = _event_end(body, offset)
    start, stop = max(0, offset - _RADIUS), min(len(body), end + _RADIUS)
    if stop - start <= _BUDGET:
        return body[start:stop]
    field = _field_at(body, offset, end, evidence)
    start = max(start, field - _BUDGET // 2)
    return body[start : min(len(body), start + _BUDGET)]


def _event_end(body: bytes, offset: int) -> int:
    """Where the event block starting at `offset` ends (after its blank line), or the body's end."""
    ends = [at + len(sep) for sep in _SEPARATORS if (at := body.find(sep, offset)) >= 0]
    return min(ends, default=len(body))


def _field_at(body: bytes, start: int, end: int, evidence: Evidence) -> int:
    """Where, in the event body[start:end], the field that failed is: the last key of the evidence's JSON path
    (`$.item.call_id`: "call_id"), the occurrence holding the actual value when there are several; else the event's
    start."""
    keys = [next(k for k in m.groups() if k is not None) for m in _KEY.finditer(evidence.path or "")]
    if not keys or not (evidence.path or "").startswith("$"):
        return start
    needle = json.dumps(keys[-1]).encode()
    found: list[int] = []
    at = body.find(needle, start, end)
    while at >= 0 and len(found) < 64:
        found.append(at)
        at = body.find(needle, at + 1, end)
    if not found:
        return start
    if evidence.actual is not None:
        value = json.dumps(evidence.actual, ensure_ascii=False, separators=(",", ":")).encode()[:64]
        for at in found:
            after = body[at + len(needle) : at + len(needle) + len(value) + 8].lstrip(b" \t:")
            if after.startswith(value):
                return at
    return found[0]

