"""A response that ended incomplete (a length or content-filter cut) which a client reported as an error: one
behaviour, owned by CLI-005 alone (docs/spec/verdicts.md §3). The text and the calls done before the cut that such a
client loses are part of that one finding, so the expected group judges nothing of the case (EXP-001, EXP-003 and
EXP-004 would count it again) and CLI-006 (a completed response) does not apply to it."""

from __future__ import annotations

from callproof.harness.check import short, shown
from callproof.harness.outcome import Result

__all__ = ["incomplete_as_error", "reported_incomplete_as_error"]


def reported_incomplete_as_error(expected_status: str, result: Result | None) -> bool:
    """Whether a client's result reports, as an error, a response the scenario ends incomplete."""
    return expected_status == "incomplete" and result is not None and result.status == "error"


def incomplete_as_error(wire: Result, result: Result, *, flagged: bool = False) -> str:
    """CLI-005's message for such a result: what the wire held, what the adapter reported (`flagged`: it set
    `incomplete: true` beside the error, which still makes the result an error), what it lost."""
    calls = len(wire.calls)
    held = [f"text {short(wire.text)}"] if wire.text else []
    if calls:
        held.append(f"{calls} call{'' if calls == 1 else 's'} done before the cut")
    lost = ("; the stream held " + " and ".join(held) + ", part of an incomplete result") if held else ""
    return (f"the response ended incomplete on the wire ({wire.terminal}, reason {shown(wire.incomplete_reason)}) "
            + (f"and the adapter reported incomplete: true, but together with error {short(result.error)}, which "
               f"makes the result an error{lost}: report incomplete: true with what arrived, and error null"
               if flagged else f"but the adapter reported it as error {short(result.error)}{lost}: report "
               "incomplete: true with what arrived, not an error")
            + " (this finding stands for the lost text and calls too: docs/spec/verdicts.md §3)")
