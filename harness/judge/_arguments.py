"""GW-ARGS-001 (docs/spec/contracts.md §7.8): a call whose final arguments are not JSON, in a turn that completes
normally, reaches the front byte for byte, or the front fails the response; a gateway never repairs such
arguments silently (a repaired call runs a tool with arguments the model never produced)."""

from __future__ import annotations

import json

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.outcome import Result
from callproof.harness.scenario import Scenario

from ._findings import Findings

__all__ = ["check_arguments", "has_malformed_arguments", "is_malformed"]


def is_malformed(arguments: str) -> bool:
    """Arguments text that is not JSON ('' is not malformed: it means no arguments)."""
    if arguments == "":
        return False
    try:
        json.loads(arguments)
    except ValueError:
        return True
    return False


def has_malformed_arguments(scenario: Scenario) -> bool:
    """Whether the scenario completes with a call whose arguments are not JSON (truncated calls of an incomplete
    turn are the fault rules' matter)."""
    return scenario.expect.status == "completed" and any(is_malformed(c.arguments) for c in scenario.calls)


def check_arguments(findings: Findings, scenario: Scenario, result: Result) -> None:
    """GW-ARGS-001 on the front's result: failed, or each malformed upstream call there with its exact text."""
    findings.check("GW-ARGS-001")
    if result.status in ("failed", "error"):
        return  # failing the response is a correct way to refuse arguments that are not JSON
    taken: set[int] = set()
    for index, call in enumerate(scenario.calls):
        if not is_malformed(call.arguments):
            continue
        match = _front_call(result, call.call_id, index, taken)
        path = f"the front's tool call {index} ({call.name}).arguments"
        if match is None:
            findings.fail("GW-ARGS-001", f"the upstream's call {index} ({call.name}) has arguments that are not JSON "
                          f"({short(call.arguments)}); the front completed ({result.terminal}) without the call: "
                          "it dropped it silently", Evidence(path=path, expected=call.arguments, actual=None))
            continue
        taken.add(match)
        got = result.calls[match].arguments
        if got != call.arguments:
            findings.fail("GW-ARGS-001", f"the upstream's call {index} ({call.name}) has arguments that are not JSON, "
                          f"{short(call.arguments)}; the front completed ({result.terminal}) with "
                          f"{short(got)}: arguments changed (repaired?) instead of passed through or failed",
                          Evidence(path=path, expected=call.arguments, actual=got))


def _front_call(result: Result, call_id: str | None, index: int, taken: set[int]) -> int | None:
    """The front call standing for upstream call `index`: the one with its id, else the one at its position."""
    for position, call in enumerate(result.calls):
        if call_id and call.call_id == call_id and position not in taken:
            return position
    return index if index < len(result.calls) and index not in taken else None
