"""Findings attributed to the upstream (docs/spec/contracts.md §7.8, "Findings attributed to the upstream"): in
gateway mode, a stream rule the front fails only because the gateway relayed, byte for byte, what the scenario's
upstream played on purpose is the upstream's fault, not the gateway's. The rule's result becomes `upstream`:
reported with its evidence, counted apart, never a failure of the case.

Never a blanket exemption. One finding qualifies, and only when all of these hold:

- the rule is the front's "arguments are a JSON object" rule (`ATTRIBUTABLE`: RSP-ARGS-004, CHAT-TC-006,
  ANT-TOOL-002), the scenario declares that it breaks it at this front (`breaks`), and the scenario completes with
  a call whose arguments are not JSON (`has_malformed_arguments`: GW-ARGS-001 applies, and allows pass-through);
- every violation of the rule kept is one of those calls' exact text (its `actual`), and none was left uncounted;
- every call of the front's answer whose arguments are not JSON carries one of the upstream's non-JSON texts byte
  for byte (a repaired, cut or re-encoded text is the gateway's: GW-ARGS-001 and the stream rule both fail).

Empty arguments ('') are not among them: a gateway sends '{}' for those (RSP-ARGS-004's fix), whatever the upstream
sent. A cut stream is not either: the gateway knows the upstream died and has an error event to say so at every
front (§7.8, "A cut relayed as a cut").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RuleResult, Violation
from callproof.harness.check import RELAY_CAVEAT, short
from callproof.harness.dialects import Column
from callproof.harness.outcome import Result
from callproof.harness.scenario import Scenario

from ._arguments import has_malformed_arguments, is_malformed

__all__ = ["ATTRIBUTABLE", "UPSTREAM_SECTION", "as_upstream", "attribute_to_upstream", "upstream_note"]

#: The rule of each front that a relayed non-JSON argument text fails.
ATTRIBUTABLE: Mapping[str, str] = Column[str]("bad_arguments_rule")
#: Where the position is written down.
UPSTREAM_SECTION = "docs/spec/contracts.md §7.8"


def upstream_note(arguments: str) -> str:
    """What an attributed finding's message adds: whose fault it is, and why."""
    return (f"the upstream's own arguments {short(arguments)}, relayed byte for byte: the upstream's fault, not the "
            f"gateway's ({UPSTREAM_SECTION}: a gateway passes such arguments through or fails the response)")


def attribute_to_upstream(results: Sequence[RuleResult], scenario: Scenario, front: Dialect,
                          answer: Result | None) -> tuple[RuleResult, ...]:
    """`results` (a front stream's or body's), with the finding of `ATTRIBUTABLE[front]` turned to `upstream` when
    the front relayed the scenario's own non-JSON arguments unchanged (the module's conditions); others as given, but
    without the checker's capture caveat, which a run against the mock does not need."""
    rule = ATTRIBUTABLE[front]
    results = [_judged_by_run(r) if r.rule.id == rule else r for r in results]
    if answer is None or rule not in scenario.breaks.get(front, ()) or not has_malformed_arguments(scenario):
        return tuple(results)
    played = {c.arguments for c in scenario.calls if is_malformed(c.arguments)}
    if any(is_malformed(c.arguments) and c.arguments not in played for c in answer.calls if c.kind == "function"):
        return tuple(results)  # a non-JSON text the upstream never sent: the gateway's own
    return tuple(_attributed(r, played) if r.rule.id == rule and r.outcome == "failed" else r for r in results)


def _attributed(result: RuleResult, played: set[str]) -> RuleResult:
    """The result as `upstream` when each violation is one played text (its evidence's `actual`, as the checker cut
    it to 200 characters), else unchanged."""
    by_cut = {text[:200]: text for text in played}
    texts = [by_cut.get(v.evidence.actual) if isinstance(v.evidence.actual, str) else None
             for v in result.violations]
    if not texts or result.count != len(result.violations) or any(t is None for t in texts):
        return result
    return as_upstream(result, [upstream_note(t) for t in texts if t is not None])


def as_upstream(result: RuleResult, notes: Sequence[str]) -> RuleResult:
    """`result` with the outcome `upstream` (shown, never a failure), each violation's message followed by its note:
    whose fault it is and why (one note per violation)."""
    violations = tuple(Violation(v.rule, f"{v.message}; {note}", v.evidence)
                       for v, note in zip(result.violations, notes, strict=True))
    return RuleResult(result.rule, "upstream", violations, result.count)


def _judged_by_run(result: RuleResult) -> RuleResult:
    """The result without the checker's capture caveat (RELAY_CAVEAT: "a capture cannot tell whose fault it is"):
    a run against the mock can tell, and says so by attributing the finding or leaving it the gateway's."""
    if not any(v.message.endswith(RELAY_CAVEAT) for v in result.violations):
        return result
    violations = tuple(Violation(v.rule, v.message.removesuffix(RELAY_CAVEAT), v.evidence) for v in result.violations)
    return RuleResult(result.rule, result.outcome, violations, result.count)
