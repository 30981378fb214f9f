"""Family 9, the client rules on the items beside function calls (docs/spec/contracts.md §5, §7.9): a custom tool call
is handed on as a custom call with its raw input byte for byte (CLI-018), and reasoning never shows in the answer
text and, when the adapter reports it, is the summary the stream carried (CLI-019). `wire` is what the mock streamed
to the client, read in the client's dialect; refusals are the scenario's expected outcome (EXP-005)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import Chunked, Scenario

from ._findings import Findings

__all__ = ["check_client_items", "reasoning_pieces"]


def check_client_items(findings: Findings, scenario: Scenario, reported: Mapping[str, Any] | None, result: Result,
                       wire: Result, dialect: str) -> None:
    """CLI-018 and CLI-019 for one adapter run: `reported` is the object the adapter printed, `result` its reading."""
    _check_custom(findings, result, wire)
    _check_reasoning_text(findings, scenario, result, wire, dialect)
    if reported is not None and reported.get("reasoning") is not None:
        _check_reasoning_reported(findings, str(reported["reasoning"]), wire)


def _match(reported: tuple[Call, ...], call: Call, claimed: set[int]) -> int | None:
    """The reported call that stands for the wire's custom `call`: the one with its call_id, else the first
    unclaimed one with its name (a custom one first)."""
    free = [i for i in range(len(reported)) if i not in claimed]
    by_id = [i for i in free if call.call_id and reported[i].call_id == call.call_id]
    named = [i for i in free if reported[i].name == call.name]
    custom = [i for i in named if reported[i].kind == "custom"]
    return next(iter(by_id or custom or named), None)


def _check_custom(findings: Findings, result: Result, wire: Result) -> None:
    """CLI-018: every custom call done on the wire is reported as a custom call (`type: "custom"`) whose `input`
    is the wire's input byte for byte: not dropped, not a function call, not parsed as JSON, not wrapped."""
    custom = [c for c in wire.calls if c.kind == "custom"]
    if not custom or result.error is not None:  # an error instead of the answer: CLI-006 judges that
        return
    findings.check("CLI-018")
    claimed: set[int] = set()
    for call in custom:
        index = _match(result.calls, call, claimed)
        what = f"the stream's custom tool call {call.name} ({_id(call)})"
        if index is None:
            findings.fail("CLI-018", f"{what} is not in the adapter's tool_calls: a custom call is handed on as "
                          '{"type": "custom", "call_id", "name", "input"}, never dropped (its input is raw text, '
                          "not JSON arguments)", Evidence(path="$.tool_calls", expected=_shown(call), actual=None))
            continue
        claimed.add(index)
        got = result.calls[index]
        problem = _custom_problem(got, call)
        if problem is not None:
            findings.fail("CLI-018", f"{what} is reported as call {index} {problem}",
                          Evidence(path=f"$.tool_calls[{index}]", expected=_shown(call), actual=_shown(got)))


def _custom_problem(got: Call, call: Call) -> str | None:
    """What is wrong with `got` as the report of the wire's custom `call`, or None."""
    if got.kind != "custom":
        parsed = got.parsed()
        keys = [k for k, v in parsed.items() if v == call.arguments] if isinstance(parsed, dict) else []
        wrapped = len(keys) == 1 and len(parsed) == 1 if isinstance(parsed, dict) else False
        how = (f"its input wrapped as {{{json.dumps(keys[0])}: ...}}" if wrapped
               else f"arguments {short(got.arguments)}")
        return (f"a function call with {how}: report it with type \"custom\" and the raw input, as the tool "
                "receives it")
    if got.arguments == call.arguments:
        return None
    offset = next((k for k, (a, b) in enumerate(zip(got.arguments, call.arguments, strict=False)) if a != b),
                  min(len(got.arguments), len(call.arguments)))
    how = ""
    try:
        if json.loads(got.arguments) == json.loads(call.arguments):
            how = " (the same JSON written differently: the input was parsed and re-serialised)"
    except ValueError:
        pass
    return (f"with input {short(got.arguments)}, which differs from the streamed input {short(call.arguments)} "
            f"at character {offset}{how}: hand the input on byte for byte, the joined "
            "custom_tool_call_input deltas (equal to its done event's input)")


def reasoning_pieces(scenario: Scenario) -> list[str]:
    """The reasoning the scenario streams: each reasoning item's text and summary parts (the non-empty ones)."""
    pieces: list[str] = []
    for output in scenario.output:
        if isinstance(output, Chunked) and output.type == "reasoning":
            pieces += [p for p in (output.text, *output.summary) if p]
    return pieces


def _check_reasoning_text(findings: Findings, scenario: Scenario, result: Result, wire: Result, dialect: str) -> None:
    """CLI-019: no reasoning text or summary part the stream carried shows in the answer text (unless the answer
    itself carries those words). Chat streams carry no reasoning, so there is nothing to mix."""
    pieces = [p for p in reasoning_pieces(scenario) if p not in wire.text]
    if DIALECTS[dialect].reasoning is None or not pieces or result.error is not None:
        return
    findings.check("CLI-019")
    for piece in pieces:
        if piece in result.text:
            findings.fail("CLI-019", f"the adapter's text {short(result.text)} holds the stream's reasoning "
                          f"{short(piece)}: reasoning (reasoning_text, reasoning_summary_text, thinking) is not the "
                          "answer; keep it out of the text (report it in `reasoning`)",
                          Evidence(path="$.text", expected=wire.text, actual=result.text))
            return


def _check_reasoning_reported(findings: Findings, reasoning: str, wire: Result) -> None:
    """CLI-019: a reported `reasoning` is the summary the stream carried, its parts joined by a blank line."""
    findings.check("CLI-019")
    if reasoning != wire.reasoning:
        findings.fail("CLI-019", f"the adapter reported reasoning {short(reasoning)}; the stream's reasoning summary "
                      f"is {short(wire.reasoning)} (summary parts joined with \"\\n\\n\"; \"\" when none)",
                      Evidence(path="$.reasoning", expected=wire.reasoning, actual=reasoning))


def _id(call: Call) -> str:
    return f"call_id {call.call_id!r}" if call.call_id else "no call_id"


def _shown(call: Call) -> dict[str, Any]:
    if call.kind == "custom":
        return {"type": "custom", "call_id": call.call_id, "name": call.name, "input": call.arguments}
    return call.to_json()

