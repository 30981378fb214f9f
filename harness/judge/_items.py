"""Output items through a gateway (GW-ITEM-*, docs/spec/items.md §3): what the upstream sent (the mock's bytes for
the case) against what the front answered, for the items beyond function calls and text. GW-ITEM-001 a custom call
reaches a Responses front as a custom call, input byte for byte, and fails a front that cannot carry one (never a
function call with its input wrapped in JSON); GW-ITEM-002 a refusal reaches the front as the front's refusal;
GW-ITEM-003 reasoning summaries and their ciphertext (Responses to Responses), thinking and its signature
(Anthropic to Anthropic) byte for byte, and reasoning never as answer text; GW-ITEM-004 MCP, shell and code
interpreter items and text annotations unchanged Responses to Responses.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import Expect, Scenario

from ._findings import Findings
from ._gateway import FrontAnswer
from ._item_wire import ItemView, front_view, upstream_view

__all__ = ["ITEM_TYPES", "carried_expect", "check_items", "front_cannot_carry", "has_item_rules", "items_skipped"]

#: The scenario output types the GW-ITEM rules judge (besides reasoning with a summary or ciphertext and text with
#: annotations).
ITEM_TYPES = frozenset({"custom_tool_call", "refusal", "mcp_call", "shell_call", "code_interpreter_call"})
#: Responses items the model does not translate: carried unchanged Responses to Responses (GW-ITEM-004).
_OPAQUE = ("mcp_call", "shell_call", "shell_call_output", "code_interpreter_call", "mcp_list_tools",
           "mcp_approval_request", "web_search_call", "file_search_call", "image_generation_call", "local_shell_call")


def has_item_rules(scenario: Scenario) -> bool:
    """Whether the scenario plays an item the GW-ITEM rules judge."""
    return any(getattr(o, "type", "") in ITEM_TYPES or getattr(o, "annotations", ()) or getattr(o, "summary", ())
               or getattr(o, "encrypted_content", None) for o in scenario.output)


def items_skipped(scenario: Scenario, front: str) -> str:
    """Why an `items` case had nothing to judge: the front has no form for the scenario's items."""
    kinds = sorted({str(getattr(o, "type", "")) for o in scenario.output} & (ITEM_TYPES | {"text", "reasoning"}))
    return (f"the {front} front has no form for this scenario's {', '.join(kinds)} output and the upstream sent "
            "nothing else a GW-ITEM rule judges (provider-run items and annotations are judged Responses to "
            "Responses only: docs/spec/items.md §3.4)")


def front_cannot_carry(scenario: Scenario, front: str) -> bool:
    """Whether a gateway's `front` cannot carry an item the scenario plays (a custom tool call or a shell call, a
    call the client must run, at a Chat or Anthropic front): the answer must then fail clearly (GW-ITEM-001), so
    the expected outcome, the call ids, usage and the stream/non-stream comparison have nothing to judge there."""
    return not DIALECTS[front].carries_custom_calls and any(
        getattr(o, "type", "") in ("custom_tool_call", "shell_call") for o in scenario.output)


def carried_expect(expect: Expect, front: str, upstream: str, refused: bool) -> Expect:
    """The expectation through a gateway pair (docs/spec/items.md §3.2): an Anthropic upstream says "refusal" only
    at its end, after the text streamed, so at a Chat or Responses front the refusal may arrive as text in a
    response ended by the content filter (incomplete). A gateway that held the text back and answered a refusal
    (`refused`: the answer holds one) is judged on the scenario's own expectation."""
    if expect.refusal and DIALECTS[upstream].refusal_at_end and not DIALECTS[front].refusal_at_end and not refused:
        return dataclasses.replace(expect, status="incomplete", text=expect.refusal, refusal=None)
    return expect


def _first_difference(wanted: str, actual: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(wanted, actual, strict=False)) if a != b),
              min(len(wanted), len(actual)))
    return f"first difference at character {at}: expected {short(wanted[at:at + 12])}, got {short(actual[at:at + 12])}"


def _wrapped(arguments: JSONValue, raw: str) -> str | None:
    """The JSON-wrapped form of `raw` when `arguments` is one (an object holding it as a string value)."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return None
    if isinstance(value, dict):
        key = next((k for k, v in value.items() if v == raw), None)
        return None if key is None else f"{{{json.dumps(key)}: <the input>}}"
    return None


def _failed_clearly(answer: FrontAnswer) -> bool:
    return (answer.exchange.status or 0) >= 400 or answer.result.status in ("failed", "error")


def _custom_at_responses(findings: Findings, calls: list[dict[str, Any]], front: ItemView) -> None:
    got = [i for i in front.items if i.get("type") == "custom_tool_call"]
    for index, call in enumerate(calls):
        name, raw = call.get("name"), str(call.get("input", ""))
        path = f"$.response.output[?(@.type=='custom_tool_call')][{index}]"
        if index < len(got) and got[index].get("name") == name:
            actual = str(got[index].get("input", ""))
            if actual != raw:
                findings.fail("GW-ITEM-001", f"custom call {name!r} reached the front with input {short(actual)}, "
                              f"not the upstream's input byte for byte ({_first_difference(raw, actual)})",
                              Evidence(path=f"{path}.input", expected=raw, actual=actual))
            continue
        function = next((i for i in front.items if i.get("type") == "function_call" and i.get("name") == name), None)
        wrapped = _wrapped(function.get("arguments"), raw) if function is not None else None
        what = (f"a function call whose arguments wrap the input as {wrapped}" if wrapped else
                "a function call" if function is not None else "no custom call of that name")
        findings.fail("GW-ITEM-001", f"the upstream's custom call {name!r} reached the Responses front as {what}; "
                      "carry it as a custom_tool_call item with the raw input",
                      Evidence(path=path, expected=f"a custom_tool_call {name!r}",
                               actual=short(function) if function is not None else None))


def _custom_calls(findings: Findings, front: str, upstream: ItemView, answer: FrontAnswer, view: ItemView) -> None:
    """GW-ITEM-001."""
    calls = [i for i in upstream.items if i.get("type") == "custom_tool_call"]
    if not calls:
        return
    findings.check("GW-ITEM-001")
    if DIALECTS[front].carries_custom_calls:
        _custom_at_responses(findings, calls, view)
        return
    names = {c.get("name") for c in calls}
    for call in (c for c in answer.result.calls if c.name in names):
        raw = str(next(c.get("input", "") for c in calls if c.get("name") == call.name))
        wrapped = _wrapped(call.arguments, raw)
        findings.fail("GW-ITEM-001", f"the upstream's custom call {call.name!r} reached the {front} front as a "
                      f"function call{f' whose arguments wrap the input as {wrapped}' if wrapped else ''}; a "
                      f"{front} stream cannot carry a custom call: fail the response clearly instead",
                      Evidence(path="the final result.tool_calls", expected="no call", actual=short(call.arguments)))
    if not _failed_clearly(answer):
        findings.fail("GW-ITEM-001", f"the upstream sent custom call(s) {sorted(map(str, names))}, which a {front} "
                      f"answer cannot carry, yet the answer ended {answer.result.status} ({answer.result.terminal}); "
                      "fail it clearly (an HTTP error or the front's error event) rather than drop the call",
                      Evidence(path="the final result.status", expected="failed or error",
                               actual=answer.result.status))


def _refusal_text(dialect: str, upstream: ItemView) -> str:
    if DIALECTS[dialect].refusal_at_end:
        return upstream.text if upstream.ending == "refusal" else ""
    return upstream.refusal


def _refusal_problem(front: str, upstream_dialect: str, text: str, view: ItemView) -> str | None:
    """What is wrong with how the front carried the upstream's refusal `text`, or None."""
    spec = DIALECTS[front]
    if spec.refusal_at_end:
        if view.ending != "refusal" or view.text != text:
            return (f"the {spec.short} answer has stop_reason {short(view.ending)} and text {short(view.text)}, "
                    f"expected stop_reason \"refusal\" with the refusal text {short(text)}")
        return None
    if DIALECTS[upstream_dialect].refusal_at_end and view.ending == spec.content_filter_ending and text in view.text:
        return None  # Anthropic says refusal only at its end: text, then the front's content filter ending
    where = spec.refusal_where
    if view.refusal != text:
        shown = " (it arrived as answer text)" if text in view.text else ""
        return f"the front's {where} is {short(view.refusal)}, expected {short(text)}{shown}"
    if text in view.text:
        return f"the refusal {short(text)} also shows as answer text {short(view.text)}"
    return None


def _refusals(findings: Findings, front: str, upstream_dialect: str, upstream: ItemView, view: ItemView) -> None:
    """GW-ITEM-002."""
    text = _refusal_text(upstream_dialect, upstream)
    if not text:
        return
    findings.check("GW-ITEM-002")
    problem = _refusal_problem(front, upstream_dialect, text, view)
    if problem is not None:
        findings.fail("GW-ITEM-002", f"the upstream refused ({short(text)}), but {problem}; a refusal reaches the "
                      "front as the front's refusal (Responses refusal part, Chat delta.refusal, Anthropic "
                      "stop_reason refusal), never as answer text", Evidence(
                          path="the front's refusal", expected=text, actual=view.refusal or view.text))


def _reasoning(items: list[dict[str, Any]]) -> list[tuple[list[str], Any]]:
    return [([str(p.get("text", "")) for p in i.get("summary") or () if isinstance(p, Mapping)],
             i.get("encrypted_content")) for i in items if i.get("type") == "reasoning"]


def _thinking(blocks: list[dict[str, Any]]) -> list[tuple[list[str], Any]]:
    return [([str(b.get("thinking", ""))], b.get("signature")) for b in blocks if b.get("type") == "thinking"]


def _sent_reasoning(view: ItemView) -> list[tuple[list[str], Any]]:
    """The reasoning one side sent: Responses reasoning items, Anthropic thinking blocks (a view holds one kind)."""
    return _reasoning(view.items) + _thinking(view.blocks)


def _reasoning_carried(findings: Findings, front: str, upstream_dialect: str, upstream: ItemView,
                       view: ItemView) -> None:
    """GW-ITEM-003: reasoning never as answer text; byte for byte where both sides are the same dialect."""
    sent = _sent_reasoning(upstream)
    shown = [t for texts, _ in sent for t in texts if t]
    if not shown and not any(sealed for _, sealed in sent):
        return
    findings.check("GW-ITEM-003")
    leaked = next((t for t in shown if t in view.text), None)
    if leaked is not None:
        findings.fail("GW-ITEM-003", f"the upstream's reasoning {short(leaked)} shows in the front's answer text; "
                      "reasoning is never answer text", Evidence(path="the final result.text", actual=view.text))
    label = DIALECTS[front].reasoning
    if front != upstream_dialect or label is None:
        return
    got = _sent_reasoning(view)
    for index, (texts, sealed) in enumerate(sent):
        have = got[index] if index < len(got) else None
        if have is None or have[0] != texts:
            findings.fail("GW-ITEM-003", f"{label[0]} {index}'s {label[1]} is {short(have[0] if have else None)} at "
                          f"the front, expected the upstream's {short(texts)} byte for byte",
                          Evidence(path=f"{label[0]} {index}.{label[1]}", expected=short(texts),
                                   actual=short(have[0] if have else None)))
        elif sealed is not None and have[1] != sealed:
            findings.fail("GW-ITEM-003", f"{label[0]} {index}'s {label[2]} is {short(have[1])} at the front, expected "
                          f"the upstream's {short(sealed)} byte for byte: changed ciphertext fails the next turn",
                          Evidence(path=f"{label[0]} {index}.{label[2]}", expected=str(sealed),
                                   actual=short(have[1])))


def _annotations(items: list[dict[str, Any]]) -> list[Any]:
    return [p.get("annotations") or [] for i in items if i.get("type") == "message"
            for p in i.get("content") or () if isinstance(p, Mapping) and p.get("type") == "output_text"]


def _opaque_items(findings: Findings, upstream: ItemView, view: ItemView) -> None:
    """GW-ITEM-004 (Responses to Responses): provider-run items every field but `id`, annotations equal."""
    sent = [i for i in upstream.items if i.get("type") in _OPAQUE]
    notes = [a for a in _annotations(upstream.items) if a]
    if not sent and not notes:
        return
    findings.check("GW-ITEM-004")
    got = [i for i in view.items if i.get("type") in _OPAQUE]
    for index, item in enumerate(sent):
        want = {k: v for k, v in item.items() if k != "id"}
        have = {k: v for k, v in got[index].items() if k != "id"} if index < len(got) else None
        if have != want:
            changed = sorted(k for k in {*want, *(have or {})} if (have or {}).get(k) != want.get(k))
            findings.fail("GW-ITEM-004", f"the upstream's {item.get('type')} item (#{index} of its provider-run "
                          f"items) reached the front {'changed in ' + str(changed) if have else 'not at all'}; "
                          "carry it unchanged (its id may differ)", Evidence(
                              path=f"$.response.output[?(@.type=='{item.get('type')}')]", expected=short(want),
                              actual=short(have)))
    if notes and _annotations(view.items) != _annotations(upstream.items):
        findings.fail("GW-ITEM-004", f"the output_text annotations are {short(_annotations(view.items))} at the "
                      f"front, expected the upstream's {short(_annotations(upstream.items))}",
                      Evidence(path="$.response.output[*].content[*].annotations"))


def check_items(findings: Findings, front: str, upstream_dialect: str, answer: FrontAnswer, upstream: bytes) -> None:
    """GW-ITEM-001..004 on one case: `upstream` the bytes the mock wrote for its first request."""
    sent = upstream_view(upstream_dialect, upstream)
    view = front_view(front, answer.events, answer.exchange.json() if not answer.events else None)
    _custom_calls(findings, front, sent, answer, view)
    _refusals(findings, front, upstream_dialect, sent, view)
    _reasoning_carried(findings, front, upstream_dialect, sent, view)
    if front == upstream_dialect and DIALECTS[front].opaque_items:
        _opaque_items(findings, sent, view)
