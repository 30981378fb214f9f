"""Cancellation (GW-CANCEL-*, docs/spec/cancellation.md): the client closes its connection to the gateway, after
some events or before the first byte, and the gateway must close the upstream request it had open for that client
within a bound, and must not send it again. The evidence is the mock's journal: each upstream request of the case
with its arrival stamp and how its answer ended (`cancelled`: the gateway went away first) and when, on the same
monotonic clock as the instant the harness (or any other front driver: HTTP, WebSocket) closed the connection.

Pure: the caller reads the journal and the clock; this judges the figures. The bound comes from the run's
calibration (the caller's `bound`), stretched by the seconds the IUT and the harness waited for a CPU over the
stretch in question (`waits`, as for the timing rules): a gateway kept from running by a loaded machine is slow,
not wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from callproof.harness.catalogue import Evidence

from ._findings import Findings
from ._streaming import waited

__all__ = ["CANCEL_RULES", "UpstreamAttempt", "check_cancellation"]

#: The rules a cancellation case judges: the open upstream request closed within the bound, and no retry after.
CANCEL_RULES = ("GW-CANCEL-001", "GW-CANCEL-002")


@dataclass(frozen=True, slots=True)
class UpstreamAttempt:
    """One upstream request of a cancellation case, from the mock's journal: its journal `id`, its arrival `time`,
    how its answer `ended` (`completed`, `aborted`, `cancelled`; None: still open when read) and at what time
    (`end_time`, None while open). Times are the journal's clock (monotonic seconds)."""

    id: int
    time: float
    ended: str | None = None
    end_time: float | None = None

    def open_at(self, moment: float) -> bool:
        """Whether this request had arrived and its answer had not ended at `moment`."""
        return self.time <= moment and (self.end_time is None or self.end_time > moment)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _check_no_retry(findings: Findings, closed: float, attempts: Sequence[UpstreamAttempt]) -> None:
    """GW-CANCEL-002: no upstream request of the case arrives after the client's close."""
    findings.check("GW-CANCEL-002")
    for attempt in attempts:
        if attempt.time > closed:
            findings.fail("GW-CANCEL-002", f"upstream request #{attempt.id} reached the upstream "
                          f"{_ms(attempt.time - closed)} after the client closed its connection: the gateway sent "
                          "the request again though nobody waits for its answer",
                          Evidence(path=f"journal request #{attempt.id}", expected="no upstream request after the "
                                   "client's close", actual=f"sent {_ms(attempt.time - closed)} after it"))


def check_cancellation(findings: Findings, closed: float, attempts: Sequence[UpstreamAttempt], bound: float,
                       watched_until: float, waits: Sequence[tuple[float, float]] = ()) -> str | None:
    """Judge one cancellation case. `closed`: when the client closed its connection; `attempts`: every upstream
    request of the case, read from the journal at `watched_until` (the end of the harness's watch: the bound and
    the grace window for retries after the close); `bound`: seconds the gateway has, from the close, to close its
    upstream request (the mock journals it `cancelled`); `waits`: (time, seconds waited for a CPU so far) samples
    of the IUT and the harness, which stretch the bound by what they waited over it.

    GW-CANCEL-001: every upstream request open at the close ends `cancelled` within the bound; one read to its end
    (`completed`: the gateway drained it), still open at `watched_until`, or cancelled later fails.
    GW-CANCEL-002: no upstream request of the case arrives after the close (a retry nobody waits for).

    Returns why the case gives no evidence for GW-CANCEL-001 (no upstream request open at the close: the client's
    close could cancel nothing), else None. GW-CANCEL-002 is judged either way: a request after the close is a
    violation whatever came before."""
    _check_no_retry(findings, closed, attempts)
    in_flight = [a for a in attempts if a.open_at(closed)]
    if not in_flight:
        before = [a for a in attempts if a.time <= closed]
        if not before:
            return ("no upstream request of this case had reached the mock when the client closed its connection: "
                    "the close could cancel nothing, so GW-CANCEL-001 has no evidence")
        last = before[-1]
        return (f"upstream request #{last.id} had already ended ({last.ended}) "
                f"{_ms(closed - (last.end_time or closed))} before the client closed its connection: there was "
                "nothing left to cancel, so GW-CANCEL-001 has no evidence (a gateway that buffers the whole upstream "
                "answer before sending shows this; GW-STREAM-001 judges that)")
    findings.check("GW-CANCEL-001")
    for attempt in in_flight:
        end = attempt.end_time if attempt.end_time is not None else watched_until
        allowed = bound + waited(waits, closed, end)
        where = f"journal request #{attempt.id}"
        expected = f"cancelled within {_ms(allowed)} of the client's close"
        if attempt.ended is None:
            findings.fail("GW-CANCEL-001", f"upstream request #{attempt.id} was still open "
                          f"{_ms(watched_until - closed)} after the client closed its connection (bound "
                          f"{_ms(allowed)}): the gateway keeps the upstream request running for nobody",
                          Evidence(path=where, expected=expected,
                                   actual=f"open {_ms(watched_until - closed)} after the close"))
        elif attempt.ended == "completed":
            findings.fail("GW-CANCEL-001", f"upstream request #{attempt.id} was read to its end "
                          f"{_ms(end - closed)} after the client closed its connection: the gateway drains the "
                          "upstream answer instead of closing the upstream request",
                          Evidence(path=where, expected=expected,
                                   actual=f"completed {_ms(end - closed)} after the close"))
        elif attempt.ended != "cancelled":
            findings.fail("GW-CANCEL-001", f"upstream request #{attempt.id} ended {attempt.ended} "
                          f"{_ms(end - closed)} after the client closed its connection, not closed by the gateway",
                          Evidence(path=where, expected=expected, actual=f"{attempt.ended} after {_ms(end - closed)}"))
        elif end - closed > allowed:
            findings.fail("GW-CANCEL-001", f"upstream request #{attempt.id} was closed {_ms(end - closed)} after "
                          f"the client closed its connection, beyond the bound of {_ms(allowed)} (calibrated; CPU "
                          "waits included): the gateway notices the client's close late",
                          Evidence(path=where, expected=expected, actual=f"cancelled after {_ms(end - closed)}"))
    return None
