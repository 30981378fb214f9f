"""A client given a Chat stream whose later chunks repeat a call's `id` or `function.name` (a stream that breaks
CHAT-TC-003): the openai SDK's accumulator concatenates every repeated string (`'get_weatherget_weather'`), so a
client that does the same does what the official SDK does. That is the stream's bug, inherited, not the client's
(docs/spec/verdicts.md §4): an EXP-001 or CLI-004 finding is turned to `upstream` (shown, not failed) when every
call the client reported has the expected name, and the id the stream gave it, or that value repeated. A client
that de-duplicates passes as before; any other value (a lost call, another name or id) fails."""

from __future__ import annotations

from collections.abc import Sequence

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RuleResult
from callproof.harness.outcome import Result
from callproof.harness.scenario import Scenario

from ._upstream_fault import as_upstream

__all__ = ["INHERITED_NOTE", "attribute_inherited"]

#: The wire rule whose breach a client inherits.
_WIRE_RULE = "CHAT-TC-003"
#: Appended to each inherited violation.
INHERITED_NOTE = ("the stream repeated it on later chunks, breaking CHAT-TC-003, and the openai SDK's accumulator "
                  "concatenates it the same way: the stream's bug, not the client's (docs/spec/verdicts.md §4)")


def attribute_inherited(results: Sequence[RuleResult], scenario: Scenario, dialect: Dialect,
                        reported: Result | None, wire: Result | None) -> tuple[RuleResult, ...]:
    """`results` of a client case, with a failed EXP-001 (names) or CLI-004 (ids) turned to `upstream` when the
    scenario's stream breaks CHAT-TC-003 in the client's `dialect` and the `reported` calls differ from the
    expected names and the `wire`'s ids only by repetition."""
    if _WIRE_RULE not in scenario.breaks.get(dialect, ()) or reported is None:
        return tuple(results)
    names = [str(c.get("name", "")) for c in scenario.expect.tool_calls]
    explained = {
        "EXP-001": len(reported.calls) == len(names)
        and all(_repeated(n, c.name) for n, c in zip(names, reported.calls, strict=True)),
        "CLI-004": wire is not None and len(reported.calls) == len(wire.calls)
        and all(_repeated(w.call_id or "", c.call_id or "") for w, c in zip(wire.calls, reported.calls, strict=True)),
    }
    return tuple(_inherited(r) if explained.get(r.rule.id) and r.outcome == "failed" else r for r in results)


def _inherited(result: RuleResult) -> RuleResult:
    return as_upstream(result, [INHERITED_NOTE] * len(result.violations))


def _repeated(value: str, reported: str) -> bool:
    """`reported` is `value`, or `value` repeated two or more times (an empty value: only itself)."""
    if not value:
        return reported == value
    times, rest = divmod(len(reported), len(value))
    return rest == 0 and times >= 1 and reported == value * times
