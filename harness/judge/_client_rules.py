"""Family 9, client rules (CLI-*): the adapter kept the protocol, reported errors, never reported a cut call as
complete, kept call ids. `wire` is what the mock actually streamed to the client for the case (from its journal):
the calls completed on the wire are the only ones a client may report."""

from __future__ import annotations

from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.judge import AdapterRun
from callproof.harness.scenario import Result

from ._expected import expects_success
from ._findings import Findings

__all__ = ["check_client"]


def check_client(findings: Findings, scenario: Any, run: AdapterRun, result: Result | None, wire: Result) -> None:
    """CLI-001..006 for one adapter run; `result` is None when the adapter broke the protocol."""
    findings.check("CLI-001")
    if result is None:
        tail = run.stderr.strip().splitlines()[-12:]
        stderr = ("; stderr tail:\n" + "\n".join(tail)) if tail else "; stderr was empty"
        findings.fail("CLI-001", f"{run.problem}{stderr}", Evidence(path="adapter", actual=run.problem))
        return
    success = expects_success(scenario.expect.status)
    if success:
        findings.check("CLI-006")
        if result.error is not None:
            findings.fail("CLI-006", f"the response completed on the wire ({wire.terminal}) but the adapter reported "
                          f"error {short(result.error)}", Evidence(path="$.error", expected=None, actual=result.error))
    else:
        findings.check("CLI-002")
        if result.error is None:
            findings.fail("CLI-002", f"the response failed on the wire ({wire.terminal}: {short(wire.error)}) but "
                          "the adapter reported no error", Evidence(path="$.error", expected="a string", actual=None))
    if scenario.expect.status == "incomplete":
        findings.check("CLI-005")
        if result.status != "incomplete":
            findings.fail("CLI-005", "the response ended response.incomplete but the adapter reported incomplete "
                          "false", Evidence(path="$.incomplete", expected=True, actual=False))
    if scenario.calls and scenario.expect.status != "completed":
        findings.check("CLI-003")
        complete = [(c.name, c.parsed()) for c in wire.calls]
        for index, call in enumerate(result.calls):
            if (call.name, call.parsed()) not in complete:
                findings.fail("CLI-003", f"the adapter reported call {index} ({call.name}, arguments "
                              f"{short(call.arguments)}) as complete, but its stream was cut before the call was done",
                              Evidence(path=f"$.tool_calls[{index}]", expected="only calls done on the wire",
                                       actual=call.to_json()))
    if any(c.call_id for c in wire.calls) and result.calls:
        findings.check("CLI-004")
        unclaimed = list(wire.calls)  # each wire call pairs with one reported call: identical calls stay apart
        for index, call in enumerate(result.calls):
            same = [w for w in unclaimed if (w.name, w.parsed()) == (call.name, call.parsed())]
            match = next((w for w in same if w.call_id == call.call_id), same[0] if same else None)
            if match is None:
                continue
            unclaimed.remove(match)
            wanted = match.call_id
            if wanted and call.call_id != wanted:
                findings.fail("CLI-004", f"call {index} ({call.name}) is reported with call_id {call.call_id!r}; the "
                              f"stream gave it {wanted!r}", Evidence(path=f"$.tool_calls[{index}].call_id",
                                                                      expected=wanted, actual=call.call_id))
