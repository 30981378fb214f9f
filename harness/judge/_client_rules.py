"""Family 9, client rules (CLI-*): the adapter kept the protocol, reported errors, never reported a cut call as
complete, kept call ids and gave id-less calls distinct ones. `wire` is what the mock actually streamed to the
client for the case (from its journal), read in the client's dialect: the calls done on the wire (Responses done
events, an Anthropic `content_block_stop`, a Chat finish_reason) are the only ones a client may report."""

from __future__ import annotations

from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.judge import AdapterRun
from callproof.harness.scenario import Call, Result

from ._arguments import has_malformed_arguments, is_malformed
from ._expected import call_value, expects_success
from ._findings import Findings
from ._usage import has_usage_rules

__all__ = ["check_client"]


def check_client(findings: Findings, scenario: Any, run: AdapterRun, result: Result | None, wire: Result) -> None:
    """CLI-001..009 for one adapter run; `result` is None when the adapter broke the protocol."""
    findings.check("CLI-001")
    if result is None:
        tail = run.stderr.strip().splitlines()[-12:]
        stderr = ("; stderr tail:\n" + "\n".join(tail)) if tail else "; stderr was empty"
        findings.fail("CLI-001", f"{run.problem}{stderr}", Evidence(path="adapter", actual=run.problem))
        return
    success = expects_success(scenario.expect.status)
    if scenario.expect.may_fail:
        pass  # reporting an error and completing are both right; CLI-008 judges what was handed on
    elif success:
        findings.check("CLI-006")
        if result.error is not None:
            findings.fail("CLI-006", f"the response completed on the wire ({wire.terminal}) but the adapter reported "
                          f"error {short(result.error)}", Evidence(path="$.error", expected=None, actual=result.error))
    else:
        findings.check("CLI-002")
        if result.error is None:
            ended = f"{wire.terminal}: {short(wire.error)}" if wire.error is not None else wire.terminal
            findings.fail("CLI-002", f"the response did not succeed (the scenario expects {scenario.expect.status}; "
                          f"the wire ended {ended}) but the adapter reported no error",
                          Evidence(path="$.error", expected="a string", actual=None))
    if scenario.expect.status == "incomplete":
        findings.check("CLI-005")
        if result.status != "incomplete":
            findings.fail("CLI-005", f"the response ended incomplete on the wire ({wire.terminal}, reason "
                          f"{wire.incomplete_reason}) but the adapter reported incomplete false",
                          Evidence(path="$.incomplete", expected=True, actual=False))
    if scenario.calls and scenario.expect.status != "completed":
        findings.check("CLI-003")
        complete = [(c.name, c.parsed()) for c in wire.calls]
        for index, call in enumerate(result.calls):
            if (call.name, call.parsed()) not in complete:
                findings.fail("CLI-003", f"the adapter reported call {index} ({call.name}, arguments "
                              f"{short(call.arguments)}) as complete, but its stream was cut before the call was done",
                              Evidence(path=f"$.tool_calls[{index}]", expected="only calls done on the wire",
                                       actual=call.to_json()))
    pairs = _pair(result.calls, wire.calls)
    if any(c.call_id for c in wire.calls) and result.calls:
        findings.check("CLI-004")
        for index, (call, match) in enumerate(zip(result.calls, pairs, strict=True)):
            wanted = match.call_id if match is not None else None
            if wanted and call.call_id != wanted:
                findings.fail("CLI-004", f"call {index} ({call.name}) is reported with call_id {call.call_id!r}; the "
                              f"stream gave it {wanted!r}", Evidence(path=f"$.tool_calls[{index}].call_id",
                                                                      expected=wanted, actual=call.call_id))
    _check_idless(findings, result.calls, pairs)
    if has_malformed_arguments(scenario):
        _check_malformed(findings, scenario, result)
    if has_usage_rules(scenario) and run.result is not None and run.result.get("usage") is not None:
        _check_usage(findings, scenario, run.result["usage"])


def _check_malformed(findings: Findings, scenario: Any, result: Result) -> None:
    """CLI-008: a call whose arguments are not JSON is reported as an error or left out, never handed on (as it
    came, or repaired into some JSON the model never produced)."""
    findings.check("CLI-008")
    if result.error is not None:
        return
    bad = {c.name for c in scenario.calls if is_malformed(c.arguments)}
    good = [(c.name, call_value(Call(c.call_id, c.name, c.arguments or "{}"))) for c in scenario.calls
            if not is_malformed(c.arguments)]
    for index, call in enumerate(result.calls):
        if call.name in bad and (call.name, call_value(call)) not in good:
            how = "as it came" if is_malformed(call.arguments) else "repaired into JSON the model never produced"
            findings.fail("CLI-008", f"the stream's call {call.name} has arguments that are not JSON; the adapter "
                          f"reported it as call {index} with arguments {short(call.arguments)} ({how}) and no error",
                          Evidence(path=f"$.tool_calls[{index}]", expected="an error, or the call left out",
                                   actual=call.to_json()))


#: The adapter's `usage` fields (docs/adapters.md): OpenAI's counting, input tokens including the cached ones.
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cached_tokens")


def _check_usage(findings: Findings, scenario: Any, usage: Any) -> None:
    """CLI-009: an adapter that reports `usage` reports the stream's: input (cached included), output, cached."""
    findings.check("CLI-009")
    wanted = {"input_tokens": scenario.usage.input_tokens, "output_tokens": scenario.usage.output_tokens,
              "cached_tokens": scenario.usage.cached_tokens}
    for key in _USAGE_FIELDS:
        got = usage.get(key, 0 if key == "cached_tokens" else None)
        if got != wanted[key]:
            findings.fail("CLI-009", f"the adapter reported usage.{key} {got!r}; the stream's usage makes it "
                          f"{wanted[key]} (input_tokens count the cached ones, as OpenAI counts them)",
                          Evidence(path=f"$.usage.{key}", expected=wanted[key], actual=got))


def _pair(reported: tuple[Call, ...], wire: tuple[Call, ...]) -> list[Call | None]:
    """The wire call each reported call stands for (same name and arguments; the one with its id first), or None.
    Each wire call pairs with one reported call, so identical calls stay apart."""
    unclaimed = list(wire)
    pairs: list[Call | None] = []
    for call in reported:
        same = [w for w in unclaimed if (w.name, w.parsed()) == (call.name, call.parsed())]
        match = next((w for w in same if w.call_id == call.call_id), same[0] if same else None)
        if match is not None:
            unclaimed.remove(match)
        pairs.append(match)
    return pairs


def _check_idless(findings: Findings, reported: tuple[Call, ...], pairs: list[Call | None]) -> None:
    """CLI-007: a reported call that the stream gave no id shares its call_id (none counts as `""`) with no other
    reported call. A lone call is not judged: with nothing to confuse it with, no id is what the wire gave."""
    idless = [i for i, match in enumerate(pairs) if match is not None and not match.call_id]
    if not idless or len(reported) < 2:
        return
    findings.check("CLI-007")
    for index in idless:
        call = reported[index]
        others = [i for i, other in enumerate(reported) if i != index and (other.call_id or "") == (call.call_id or "")]
        if not others:
            continue
        shown = repr(call.call_id) if call.call_id else "no call_id"
        findings.fail("CLI-007", f"call {index} ({call.name}) had no id on the wire and is reported with {shown}, as "
                      f"is call {others[0]} ({reported[others[0]].name}): their results cannot be told apart; give "
                      "each id-less call an id of its own", Evidence(path=f"$.tool_calls[{index}].call_id",
                                                                      expected="an id no other call has",
                                                                      actual=call.call_id))
