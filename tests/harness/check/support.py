"""Helpers of the checker tests: the bundled example captures (examples/captures/) and a report's violations in a
comparable form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from callproof.harness import CheckReport, Dialect, StreamChecker, parse_sse
from callproof.harness.catalogue import Profile

CAPTURES = Path(__file__).resolve().parents[3] / "examples" / "captures"


def captures(front: Dialect, kind: str, suffix: str = ".sse", profile: Profile = "openai") -> list[Path]:
    """The `kind` (ok or broken) captures of one front and profile, sorted by name."""
    return sorted((CAPTURES / front / profile / kind).glob(f"*{suffix}"))


def violations(report: CheckReport) -> list[tuple[str, str, object]]:
    """(rule id, message, evidence) of every violation kept in `report`."""
    return [(r.rule.id, v.message, v.evidence) for r in report.results for v in r.violations]


def fed_byte_by_byte(data: bytes, front: Dialect, profile: Profile = "openai") -> CheckReport:
    """The report of a StreamChecker fed `data` one byte at a time."""
    checker = StreamChecker(front, profile)
    for i in range(len(data)):
        checker.feed(data[i : i + 1])
    return checker.close()


def decoded(data: bytes) -> list[Any]:
    """The JSON payload of every event of an SSE capture, without a `[DONE]` sentinel."""
    return [json.loads(e.data) for e in parse_sse(data)[0] if e.data != "[DONE]"]
