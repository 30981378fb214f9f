"""The evidence a concurrency case needs (GW-ISO-001, CLI-012): its requests are held at the mock until all have
arrived (docs/mock.md#holds), and afterwards the journal shows how many of its cases' streams were in flight at
once. Isolation judged on streams that never overlapped would be a verdict without evidence."""

from __future__ import annotations

from collections.abc import Sequence

from callproof.mock_server import Journal, JournalEnd, JournalRequest

__all__ = ["hold_seconds", "in_flight", "not_overlapping"]


def hold_seconds(case_timeout: float) -> float:
    """How long the mock holds a concurrency case's requests for the last of them: a third of the case timeout, at
    most 10 s (nine adapter processes starting at once on a loaded machine take seconds)."""
    return min(10.0, case_timeout / 3)


def in_flight(journal: Journal, cases: Sequence[str]) -> int:
    """The most of `cases` whose answers were being played by the mock at the same instant (a case's span runs
    from the scheduled start of its first answer to the end of its last; an answer with no end yet is still
    open)."""
    wanted = set(cases)
    begin: dict[str, float] = {}
    end: dict[str, float] = {}
    case_of: dict[int, str] = {}
    for record in journal.records():
        if isinstance(record, JournalRequest) and record.case in wanted:
            case_of[record.id] = record.case
            begin[record.case] = min(begin.get(record.case, record.start), record.start)
        elif isinstance(record, JournalEnd) and record.request in case_of:
            case = case_of[record.request]
            end[case] = max(end.get(case, record.time), record.time)
    edges = sorted((t, step) for case, start in begin.items()
                   for t, step in ((start, 1), (end.get(case, float("inf")), -1)))
    most = now = 0
    for _, step in edges:  # an end and a start at the same instant: the end first (-1 sorts before 1)
        now += step
        most = max(most, now)
    return most


def not_overlapping(count: int, overlapped: int, held: float, what: str) -> str | None:
    """The error of a concurrency case whose `count` streams were at most `overlapped` at once (None: judgeable)."""
    if overlapped >= 2:
        return None
    return (f"the {count} concurrent cases' streams were never in flight at the mock together (at most {overlapped} "
            f"at once, after holding them {held:g} s for the rest): {what} seems to send one request at a time, so "
            "isolation was not exercised")
