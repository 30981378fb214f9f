"""Tracebacks pytest can report: a signal landing between two instructions can leave an entry without a line
number, on which pytest's report of the interruption would crash (the plugin's `pytest_keyboard_interrupt`)."""

from __future__ import annotations

from types import TracebackType

__all__ = ["numbered"]


def numbered(tb: TracebackType | None) -> TracebackType | None:
    """The traceback with a line number in every entry (a frame's first line where Python left none)."""
    entries: list[TracebackType] = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    out: TracebackType | None = None
    for entry in reversed(entries):
        line = entry.tb_lineno if entry.tb_lineno is not None else entry.tb_frame.f_code.co_firstlineno
        out = TracebackType(out, entry.tb_frame, entry.tb_lasti, line)
    return out
