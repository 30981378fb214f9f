"""Family 7, the expected outcome: what a client ends up holding equals what the scenario demands."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.outcome import Call, Result, status_matches
from callproof.harness.scenario import Expect

from ._findings import Findings

__all__ = ["call_value", "expected_calls", "expected_outcome", "expects_success"]


def expects_success(status: str) -> bool:
    return status in ("completed", "incomplete")


def call_value(call: Call) -> JSONData:
    """A call's arguments as the scenario's expect writes them: parsed JSON, or {"$text": ...} for a text that is
    not JSON (which must then come through byte for byte); a custom call's raw input is always {"$text": input}."""
    if call.kind == "custom":
        return {"$text": call.arguments}
    try:
        return json.loads(call.arguments)
    except ValueError:
        return {"$text": call.arguments}


def expected_calls(expect_calls: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """(name, parsed arguments) of the scenario's expected calls; a custom call's input as {"$text": input}."""
    out: list[tuple[str, Any]] = []
    for call in expect_calls:
        if call.get("type") == "custom":
            out.append((str(call["name"]), {"$text": str(call["input"])}))
            continue
        arguments = call["arguments"]
        out.append((str(call["name"]), json.loads(arguments) if isinstance(arguments, str) else arguments))
    return out


def _kinds(expect_calls: Sequence[Mapping[str, Any]]) -> list[str]:
    return ["custom" if c.get("type") == "custom" else "function" for c in expect_calls]


def expected_outcome(findings: Findings, expect: Expect, result: Result, *, where: str = "the final result") -> None:
    """EXP-001..005 on `result` against a scenario's `Expect`."""
    findings.check("EXP-004")
    refused = expect.may_fail and result.status in ("failed", "error")
    if not status_matches(expect.status, result.status) and not refused:
        detail = f" ({result.error})" if result.error else ""
        also = " (or failed: its output cannot be delivered intact)" if expect.may_fail else ""
        findings.fail("EXP-004", f"the response ended {result.status} (by {result.terminal}){detail}; the scenario "
                      f"expects {expect.status}{also}", Evidence(path=where, expected=expect.status,
                                                                actual=result.status))
    if not expects_success(expect.status) or refused:
        return  # what a failed response held is judged by the fault rules, not by expected calls or text
    _calls(findings, expect, result, where)
    if expect.text is not None:
        findings.check("EXP-003")
        if result.text != expect.text:
            findings.fail("EXP-003", f"the text is {short(result.text)}, expected {short(expect.text)}",
                          Evidence(path=f"{where}.text", expected=expect.text, actual=result.text))
    if expect.refusal is not None:
        _refusal(findings, expect.refusal, result, where)


def _calls(findings: Findings, expect: Expect, result: Result, where: str) -> None:
    """EXP-001 (names and kinds, in order) and EXP-002 (arguments; a custom call's input byte for byte)."""
    wanted = list(zip(expected_calls(expect.tool_calls), _kinds(expect.tool_calls), strict=True))
    if expect.may_fail and [c.name for c in result.calls] != [name for (name, _), _ in wanted]:
        # a call whose arguments are not JSON may be skipped (a client) or kept; GW-ARGS-001 / CLI-008 judge which
        kept = [w for w in wanted if not _is_text(w[0][1]) or w[1] == "custom"]
        if [c.name for c in result.calls] == [name for (name, _), _ in kept]:
            wanted = kept
    findings.check("EXP-001", "EXP-002")
    names: list[JSONValue] = [c.name for c in result.calls]
    wanted_names: list[JSONValue] = [name for (name, _), _ in wanted]
    kinds: list[JSONValue] = [c.kind for c in result.calls]
    wanted_kinds: list[JSONValue] = [kind for _, kind in wanted]
    if names != wanted_names:
        got = [_seen(c.name, c.kind, c.arguments) for c in result.calls]
        demanded = [_seen(name, kind, arguments["$text"] if _is_text(arguments) else json.dumps(arguments))
                    for (name, arguments), kind in wanted]
        findings.fail("EXP-001", f"the completed tool calls are {_listed(got)}; expected {_listed(demanded)}",
                      Evidence(path=f"{where}.tool_calls", expected=list[JSONValue](demanded),
                               actual=list[JSONValue](got)))
    elif kinds != wanted_kinds:
        findings.fail("EXP-001", f"the completed tool calls {names} are of the kinds {kinds}, expected "
                      f"{wanted_kinds}: a custom tool's call must stay a custom call with its raw input, not become "
                      "a function call", Evidence(path=f"{where}.tool_calls[*].type", expected=wanted_kinds,
                                                  actual=kinds))
    for index, (call, ((name, arguments), kind)) in enumerate(zip(result.calls, wanted, strict=False)):
        if call.name != name or call.kind != kind:
            continue
        if kind == "custom" and call.arguments != arguments["$text"]:
            findings.fail("EXP-002", f"custom call {index} ({name}) has input {short(call.arguments)}, expected "
                          f"{short(arguments['$text'])} byte for byte", Evidence(
                              path=f"{where}.tool_calls[{index}].input", expected=arguments["$text"],
                              actual=call.arguments))
        elif kind == "function" and call_value(call) != arguments:
            shown = arguments["$text"] if _is_text(arguments) else json.dumps(arguments)
            findings.fail("EXP-002", f"call {index} ({name}) has arguments {short(call.arguments)}, expected "
                          f"{short(shown)}" + (" byte for byte (they are not JSON)" if _is_text(arguments) else ""),
                          Evidence(path=f"{where}.tool_calls[{index}].arguments", expected=shown,
                                   actual=call.arguments))


def _refusal(findings: Findings, refusal: str, result: Result, where: str) -> None:
    """EXP-005: the refusal arrives as a refusal, with its text, not as answer text."""
    findings.check("EXP-005")
    if result.refusal == refusal and refusal not in result.text:
        return
    if result.refusal == "" and refusal in result.text:
        message = (f"the refusal {short(refusal)} arrived as answer text {short(result.text)}, not as a refusal: "
                   "carry it in the front's refusal field (Responses refusal part, Chat refusal, Anthropic "
                   "stop_reason refusal)")
    elif result.refusal == refusal:
        message = f"the refusal {short(refusal)} arrived as a refusal and again in the answer text"
    else:
        message = f"the refusal is {short(result.refusal)}, expected {short(refusal)}"
    findings.fail("EXP-005", message, Evidence(path=f"{where}.refusal", expected=refusal, actual=result.refusal))


#: The most calls an EXP-001 message lists, and the characters it shows of each call's arguments.
_LISTED, _ARGUMENTS = 8, 60


def _seen(name: str, kind: str, arguments: str) -> str:
    """A call as EXP-001 lists it: `name(arguments)`, the arguments compact when they are JSON (a custom call:
    `name[custom](input)`), cut to a few dozen characters."""
    text = arguments
    if kind != "custom":
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(arguments), ensure_ascii=False, separators=(",", ":"))
    text = text if len(text) <= _ARGUMENTS else text[: _ARGUMENTS - 3] + "..."
    return f"{name}{'[custom]' if kind == 'custom' else ''}({text})"


def _listed(calls: Sequence[str]) -> str:
    """`N call(s): a(..), b(..)`: every call seen (up to `_LISTED`), so a name split into phantom calls shows."""
    shown_calls = ", ".join(calls[:_LISTED]) + (f", ... ({len(calls) - _LISTED} more)" if len(calls) > _LISTED else "")
    return f"{len(calls)} call{'' if len(calls) == 1 else 's'}" + (f": {shown_calls}" if calls else "")


def _is_text(arguments: JSONValue) -> bool:
    return isinstance(arguments, Mapping) and set(arguments) == {"$text"}
