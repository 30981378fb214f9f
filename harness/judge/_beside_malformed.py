"""CLI-020 (docs/spec/contracts.md §7.9): one call whose arguments are not JSON does not cost the calls beside it.
A client reports the bad call as an error or leaves it out (CLI-008), and still hands on every call of the same
completed turn whose arguments are JSON, whether or not it set `error`: dropping the whole turn for one bad call
loses work the model did right."""

from __future__ import annotations

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import Scenario

from ._arguments import has_malformed_arguments, is_malformed
from ._findings import Findings

__all__ = ["check_beside_malformed", "has_calls_beside_malformed"]


def has_calls_beside_malformed(scenario: Scenario) -> bool:
    """Whether the scenario completes with a call whose arguments are not JSON and, beside it, one whose are."""
    return has_malformed_arguments(scenario) and any(not is_malformed(c.arguments) for c in scenario.calls)


def check_beside_malformed(findings: Findings, scenario: Scenario, result: Result | None) -> None:
    """CLI-020 on the adapter's result (None: the adapter broke the protocol, CLI-001's matter): every scenario
    call with JSON arguments is among the reported calls (same name, same parsed arguments; `""` counts as `{}`)."""
    if result is None or not has_calls_beside_malformed(scenario):
        return
    findings.check("CLI-020")
    bad = ", ".join(c.name for c in scenario.calls if is_malformed(c.arguments))
    unclaimed = [(c.name, c.parsed()) for c in result.calls]
    for call in (c for c in scenario.calls if not is_malformed(c.arguments)):
        wanted = (call.name, Call(call.call_id, call.name, call.arguments or "{}").parsed())
        if wanted in unclaimed:
            unclaimed.remove(wanted)
            continue
        error = f" and error {short(result.error)}" if result.error is not None else " and no error"
        findings.fail("CLI-020", f"the stream's call {call.name} has JSON arguments {short(call.arguments)}, beside "
                      f"{bad} whose arguments are not JSON; the adapter reported calls "
                      f"{short([c.to_json() for c in result.calls])}{error}: hand on every call that parses and "
                      "report only the bad one as an error (or leave it out)",
                      Evidence(path="$.tool_calls", expected=f"{call.name} with {call.arguments}",
                               actual=[c.to_json() for c in result.calls]))
