"""A client given a Chat stream whose later chunks repeat a call's `id` or `function.name` (a stream that breaks
CHAT-TC-003): the openai SDK's accumulator concatenates every repeated string (`'get_weatherget_weather'`), so a
client that does the same does what the official SDK does. That is the stream's bug, inherited, not the client's
(docs/spec/verdicts.md §4): an EXP-001 or CLI-004 finding whose reported value is the stream's value repeated is
turned to `upstream` (shown, not failed). A client that de-duplicates passes as before; any other value fails."""

from __future__ import annotations

from collections.abc import Sequence

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.catalogue import RuleResult, Violation
from callproof.harness.scenario import Scenario

__all__ = ["INHERITED_NOTE", "attribute_inherited"]

#: The wire rule whose breach a client inherits, and the client findings it explains.
_WIRE_RULE = "CHAT-TC-003"
_EXPLAINED = ("EXP-001", "CLI-004")
#: Appended to each inherited violation.
INHERITED_NOTE = ("the stream repeated it on later chunks, breaking CHAT-TC-003, and the openai SDK's accumulator "
                  "concatenates it the same way: the stream's bug, not the client's (docs/spec/verdicts.md §4)")


def attribute_inherited(results: Sequence[RuleResult], scenario: Scenario, dialect: Dialect) -> tuple[RuleResult, ...]:
    """`results` of a client case, with EXP-001 and CLI-004 findings that are the concatenation of a repeated name
    or id turned to `upstream`, when the scenario's stream breaks CHAT-TC-003 in the client's `dialect`."""
    if _WIRE_RULE not in scenario.breaks.get(dialect, ()):
        return tuple(results)
    return tuple(_inherited(r) if r.rule.id in _EXPLAINED and r.outcome == "failed" else r for r in results)


def _inherited(result: RuleResult) -> RuleResult:
    """The result as `upstream` when every violation's reported value is its expected value repeated, else as is."""
    if not result.violations or result.count != len(result.violations):
        return result
    if not all(_repeated(v.evidence.expected, v.evidence.actual) for v in result.violations):
        return result
    violations = tuple(Violation(v.rule, f"{v.message}; {INHERITED_NOTE}", v.evidence) for v in result.violations)
    return RuleResult(result.rule, "upstream", violations, result.count)


def _repeated(expected: JSONValue, actual: JSONValue) -> bool:
    """`actual` is `expected`, or `expected` repeated two or more times; lists element by element."""
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(_repeated(e, a) for e, a in zip(expected, actual, strict=True))
    if not isinstance(expected, str) or not isinstance(actual, str) or not expected:
        return False
    times, rest = divmod(len(actual), len(expected))
    return rest == 0 and times >= 1 and actual == expected * times
