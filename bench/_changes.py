"""The changes made for speed, each with the figure it moved: before (the row as results.md last showed it before
the change, with its date) beside after (the same row of this run). bench/run.py renders them into results.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CHANGES", "Change", "changes_markdown"]


@dataclass(frozen=True, slots=True)
class Change:
    change: str
    figure: str  # the prefix of the row's figure in this run
    before: str  # the row's callproof value and ratio before the change
    measured: str  # when `before` was measured


CHANGES: tuple[Change, ...] = (
    Change("Mock: httptools parses HTTP (was h11); upstream requests are plain ASGI (no Starlette routing, Request "
           "or StreamingResponse); the last write of a stream carries the body's end (issue #15)",
           "Peer: short tool-call stream", "1,757 req/s; 0.55x aimock", "2026-11-23"),
    Change("(same change)", "Mock: short streams", "2,439 req/s; 0.94x the bare Starlette ceiling (the ceiling is "
           "now a bare ASGI app on the same httptools server)", "2026-11-23"),
    Change("(same change)", "Mock: long stream", "5,584,962 events/s; 0.94x the ceiling", "2026-11-23"),
    Change("(same change); the peer benchmark's long stream is a new row", "Peer: long text stream",
           "not measured", "-"),
    Change("Mock: the request path trimmed (orjson for the body, the case tag read once, each plan's headers "
           "encoded once: 17 -> 12 us of work a request in process)", "Mock: short streams",
           "13,747 req/s; 0.59x the bare ASGI ceiling (after the change above)", "2026-11-27"),
    Change("Mock: the real clock yields to the event loop for the last 1.5 ms of a wait instead of sleeping through "
           "it (epoll rounds timeouts up to the millisecond). With httptools and a plain sleep these rows read p95 "
           "0.73-0.76 ms and 1.2-2.3x the bare server's on 2026-11-27: the parser changed nothing in timing",
           "Mock: 600 scripted 5 ms gaps", "p95 0.76 ms (h11, plain sleep)", "2026-11-23"),
    Change("(same change); target now <= 1.1x the bare asyncio server's p95 (was <= 2 ms)", "Timing: ",
           "p95 2.83 ms vs the bare server's 2.57 ms = 1.10x (h11, plain sleep)", "2026-11-23"),
    Change("Checker: orjson decodes event data; a terminal Response snapshot's output is validated on the done "
           "events only when its items equal theirs; reports share immutable `passed` results (issue #15)",
           "Checker: full check", "51,696 events/s; 0.40x the floor", "2026-11-23"),
)


def _after(rows: list[dict[str, Any]], prefix: str) -> str:
    for row in rows:
        figure = str(row["figure"])
        if figure.startswith(prefix) and not figure.startswith("Timing: a "):
            return f"{row['callproof']}; {row['ratio']}"
    return "not measured in this run"


def changes_markdown(rows: list[dict[str, Any]]) -> list[str]:
    """The changes table: change, figure, before, after (this run's row)."""
    lines = ["", "## Changes for speed: before and after", "",
             "| change | figure | before (measured) | now (this run, every change above) |", "|---|---|---|---|"]
    for c in CHANGES:
        cells = (c.change, c.figure.rstrip(": "), f"{c.before} ({c.measured})", _after(rows, c.figure))
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return lines
