"""Family 9, client rules (CLI-*): the adapter kept the protocol, reported errors, never reported a cut call as
complete, kept call ids and gave id-less calls distinct ones (in Responses, the item id), survived every SSE framing
the standard allows, reported calls in output order, and kept concurrent runs apart. `wire` is what the mock
actually streamed to the client for the case (from its journal), read in the client's dialect: the calls done on
the wire (Responses done events, an Anthropic `content_block_stop`, a Chat finish_reason) are the only ones a client
may report. The checks of the reported calls against the wire's (ids, order, fallback ids) are in `_client_calls`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short, shown
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import Scenario, framing_variant, is_framing

from ._adapter import AdapterRun, Layer, adapter_layer
from ._arguments import has_malformed_arguments, is_malformed
from ._client_calls import (
    call_key,
    call_value_key,
    check_fallback,
    check_idless,
    check_ids,
    check_order,
    pair_calls,
)
from ._client_items import check_client_items
from ._expected import call_value, expects_success
from ._findings import Findings
from ._incomplete_error import incomplete_as_error
from ._usage import has_usage_rules

__all__ = [
    "check_client", "check_client_isolation", "framing_variants", "responses_call_item_ids",
]


def check_client(findings: Findings, scenario: Scenario, run: AdapterRun, result: Result | None, wire: Result,
                 item_ids: Sequence[str | None] = (), applied: Sequence[str] = (), dialect: str = "responses") -> None:
    """CLI-001..011, CLI-013, CLI-018 and CLI-019 for one adapter run; `result` is None when the adapter broke the
    protocol. `item_ids` are the Responses item ids of the wire's calls (empty in other dialects); `applied` the
    fault kinds the mock applied to the answer (a chaos fault, whose probability is below 1, counts when applied);
    `dialect` the client's."""
    findings.check("CLI-001")
    if result is None:
        tail = run.stderr.strip().splitlines()[-12:]
        stderr = ("; stderr tail:\n" + "\n".join(tail)) if tail else "; stderr was empty"
        findings.fail("CLI-001", f"{run.problem}{stderr}", Evidence(path="adapter", actual=run.problem))
        return
    success = expects_success(scenario.expect.status)
    _check_ending(findings, scenario, result, wire, run.result is not None and run.result.get("incomplete") is True)
    if scenario.calls and scenario.expect.status != "completed":
        findings.check("CLI-003")
        complete = [call_value_key(c) for c in wire.calls]
        for index, call in enumerate(result.calls):
            if call_value_key(call) not in complete:
                findings.fail("CLI-003", f"the adapter reported call {index} ({call.name}, arguments "
                              f"{short(call.arguments)}) as complete, but its stream was cut before the call was done",
                              Evidence(path=f"$.tool_calls[{index}]", expected="only calls done on the wire",
                                       actual=call.to_json()))
    pairs = pair_calls(result.calls, wire.calls)
    check_ids(findings, result.calls, wire.calls, pairs)
    check_idless(findings, result.calls, pairs)
    check_fallback(findings, result.calls, wire.calls, pairs, item_ids)
    check_order(findings, result.calls, wire.calls, pairs)
    variants = framing_variants(scenario, applied)
    if variants and success:
        _check_framing(findings, variants, result, wire, pairs)
    if has_malformed_arguments(scenario):
        _check_malformed(findings, scenario, result, adapter_layer(run.result))
    if has_usage_rules(scenario) and run.result is not None and run.result.get("usage") is not None:
        _check_usage(findings, scenario, run.result["usage"])
    check_client_items(findings, scenario, run.result, result, wire, dialect)


def _check_ending(findings: Findings, scenario: Scenario, result: Result, wire: Result, flagged: bool = False) -> None:
    """CLI-006, CLI-002 and CLI-005: how the adapter reported the way the response ended (`flagged`: the adapter's
    result said `incomplete: true`, whatever else it said)."""
    if scenario.expect.may_fail:
        pass  # reporting an error and completing are both right; CLI-008 judges what was handed on
    elif scenario.expect.status == "incomplete":
        pass  # reported as an error, it is CLI-005's, below (docs/spec/verdicts.md §3)
    elif expects_success(scenario.expect.status):
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
        if result.status == "error":
            if not scenario.expect.may_fail:  # with may_fail an error is right too (docs/spec/verdicts.md §1)
                findings.fail("CLI-005", incomplete_as_error(wire, result, flagged=flagged),
                              Evidence(path="$.error", expected=None, actual=result.error))
        elif result.status != "incomplete":
            findings.fail("CLI-005", f"the response ended incomplete on the wire ({wire.terminal}, reason "
                          f"{shown(wire.incomplete_reason)}) but the adapter reported incomplete false",
                          Evidence(path="$.incomplete", expected=True, actual=False))


def _check_malformed(findings: Findings, scenario: Scenario, result: Result, layer: Layer) -> None:
    """CLI-008: a call whose arguments are not JSON is reported as an error or left out, never handed on as a call
    to run: repaired into some JSON the model never produced, or (by a `parsed` or `executing` adapter) as it came.
    A `raw` adapter reports its library's wire reading, arguments as strings it never parsed: it may hand the call
    on as it came, byte for byte (docs/adapters.md#layers)."""
    findings.check("CLI-008")
    if result.error is not None:
        return
    bad = {c.name: c.arguments for c in scenario.calls if is_malformed(c.arguments)}
    good = [(c.name, call_value(Call(c.call_id, c.name, c.arguments or "{}"))) for c in scenario.calls
            if not is_malformed(c.arguments)]
    for index, call in enumerate(result.calls):
        if call.name not in bad or (call.name, call_value(call)) in good:
            continue
        came = [c.arguments for c in scenario.calls if c.name == call.name and is_malformed(c.arguments)]
        if layer == "raw" and call.arguments in came:
            continue
        what = (f"adapter layer {layer!r} handed on call {index} ({call.name}) with arguments {short(call.arguments)}")
        if not is_malformed(call.arguments) or layer == "raw":
            rest = (f", not the stream's {short(bad[call.name])} (not JSON): "
                    + ("repaired into JSON the model never produced" if not is_malformed(call.arguments)
                       else "changed") + ", and no error")
        else:
            rest = " that are not JSON, and no error"
        findings.fail("CLI-008", f"{what}{rest}: {_LAYER_DUTY[layer]} (docs/adapters.md#layers)",
                      Evidence(path=f"$.tool_calls[{index}]", expected="an error, or the call left out"
                               + (", or its arguments as they came" if layer == "raw" else ""),
                               actual=call.to_json()))


#: What CLI-008 asks of each adapter layer (docs/adapters.md#layers).
_LAYER_DUTY: dict[Layer, str] = {
    "raw": "a raw layer hands such a call on as it came, byte for byte, or reports an error or leaves it out",
    "parsed": "a parsed call must be reported as an error or left out; a raw layer may hand it on as it came",
    "executing": "an executing layer must not run it: report an error or leave it out",
}


#: The adapter's `usage` fields (docs/adapters.md): OpenAI's counting, input tokens including the cached ones.
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cached_tokens")


def _check_usage(findings: Findings, scenario: Scenario, usage: Mapping[str, Any]) -> None:
    """CLI-009: an adapter that reports `usage` reports the stream's: input (cached included), output, cached."""
    findings.check("CLI-009")
    wanted = {"input_tokens": scenario.usage.input_tokens, "output_tokens": scenario.usage.output_tokens,
              "cached_tokens": scenario.usage.cached_tokens}
    for key in _USAGE_FIELDS:
        got = usage.get(key, 0 if key == "cached_tokens" else None)
        if got != wanted[key]:
            findings.fail("CLI-009", f"the adapter reported usage.{key} {shown(got)}; the stream's usage makes it "
                          f"{wanted[key]} (input_tokens count the cached ones, as OpenAI counts them)",
                          Evidence(path=f"$.usage.{key}", expected=wanted[key], actual=got))


def framing_variants(scenario: Scenario, applied: Sequence[str] = ()) -> list[str]:
    """The SSE framings a scenario's faults played (certain ones, and chaos ones the mock `applied`), each named
    with what it does on the wire (the fault table's framing kinds: valid SSE, the same events, so a client must
    report the same result)."""
    names: list[str] = []
    seen: set[str] = set()
    for fault in scenario.faults:
        if not is_framing(fault.kind) or fault.kind in seen:
            continue
        if fault.probability < 1 and fault.kind not in applied:
            continue
        seen.add(fault.kind)
        names.append(framing_variant(fault))
    return names


def _check_framing(findings: Findings, variants: list[str], result: Result, wire: Result,
                   pairs: list[Call | None]) -> None:
    """CLI-010: under a framing that changes no event, the adapter reports what the wire held, and no error."""
    findings.check("CLI-010")
    framing = " + ".join(variants)
    problems: list[str] = []
    if result.error is not None:
        problems.append(f"reported error {short(result.error)}")
    if _shape(result) != _shape(wire):
        problems.append(f"reported calls {short([c.to_json() for c in result.calls])}, the wire held "
                        f"{short([c.to_json() for c in wire.calls])}")
    if wire.text and result.text != wire.text:
        problems.append(f"reported text {short(result.text)}, the wire held {short(wire.text)}")
    if problems:
        findings.fail("CLI-010", f"under SSE framing {framing} (valid per docs/spec/sse.md §5) the adapter "
                      + "; ".join(problems), Evidence(path="adapter", expected=f"the same result under {framing}",
                                                      actual="; ".join(problems)))


def responses_call_item_ids(events: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """The item ids of a Responses stream's completed calls, in the order the wire result lists them (the terminal
    response's output, else the output_item.done events): the ids CLI-013 falls back to."""
    done: list[Any] = []
    for payload in events:
        kind = payload.get("type")
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            response = payload.get("response")
            if isinstance(response, Mapping) and isinstance(response.get("output"), list):
                done = list(response["output"])
            break
        if kind == "response.output_item.done":
            done.append(payload.get("item"))
    return [item.get("id") if isinstance(item.get("id"), str) else None for item in done
            if isinstance(item, Mapping) and item.get("type") in ("function_call", "custom_tool_call")
            and item.get("status", "completed") == "completed"]


def check_client_isolation(findings: Findings, runs: Sequence[tuple[Scenario, Result, Result, Result]]) -> None:
    """CLI-012: each of several concurrent adapter runs (scenario, its result, its own wire, the client's result
    for the scenario alone) reports what the client reports alone (calls by kind, name and parsed arguments, never
    by id; text; completed, incomplete or error), and no call or text of another run's stream. Comparing with the
    run alone keeps a client's own bugs (the same alone) out of this rule."""
    findings.check("CLI-012")
    for scenario, result, wire, alone in runs:
        strays = sorted({other.id for other, _, other_wire, _ in runs if other is not scenario
                         and _holds_output_of(result, wire, other_wire)})
        same = (_shape(result) == _shape(alone) and result.text == alone.text and result.status == alone.status
                and (result.error is None) == (alone.error is None))
        if same and not strays:
            continue
        leaked = f"; it holds output of concurrent case(s) {', '.join(strays)}" if strays else ""
        reported = short([c.to_json() for c in result.calls])
        findings.fail("CLI-012", f"concurrent case {scenario.id} reported calls {reported}, text {short(result.text)}"
                      f" and error {short(result.error)}; alone the client reported "
                      f"{short([c.to_json() for c in alone.calls])}, {short(alone.text)} and {short(alone.error)}"
                      f"{leaked}", Evidence(path=scenario.id, expected=short(_shape(alone)),
                                            actual=short(_shape(result))))


def _shape(result: Result) -> list[tuple[str, str, Any]]:
    return [call_value_key(c) for c in result.calls]


def _holds_output_of(result: Result, own: Result, other: Result) -> bool:
    """Whether `result` holds a call or text that another concurrent run's stream carried and its own did not."""
    mine = {call_key(c) for c in own.calls}
    theirs = {call_key(c) for c in other.calls} - mine
    own_ids = {c.call_id for c in own.calls if c.call_id}
    their_ids = {c.call_id for c in other.calls if c.call_id} - own_ids
    for call in result.calls:
        if call.call_id in their_ids or call_key(call) in theirs:
            return True
    return bool(other.text) and other.text not in own.text and other.text in result.text
