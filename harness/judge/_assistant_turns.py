"""GW-REQ-006 on an assistant turn that held text and calls (docs/spec/contracts.md §7.12): a Responses history
writes it as an assistant message item followed by `function_call` items; a Chat upstream takes it as one
assistant message with `content` and `tool_calls`, an Anthropic upstream as one assistant message with a text block
before its `tool_use` blocks. Split into two assistant messages, the call is paired with its result all the same,
but the turn is not the one the model produced: chat templates that require alternating roles refuse it or render
an empty turn, and the model sees itself speak twice. A Responses upstream takes the items as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS, text_of

from ._findings import Findings

__all__ = ["check_text_with_calls", "texts_before_calls"]


def texts_before_calls(front: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(text, call_id of the first call after it) for each front assistant message with text directly followed
    by a `function_call` item, in the Responses form of the front request."""
    items = front.get("input")
    if not isinstance(items, list):
        return []
    return [(text_of(item.get("content")), after["call_id"]) for item, after in pairwise(items)
            if item.get("role") == "assistant" and item.get("type", "message") == "message"
            and text_of(item.get("content")).strip() and after.get("type") == "function_call"]


def check_text_with_calls(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    """GW-REQ-006: each front assistant text directly followed by calls is in the upstream message carrying the
    first of those calls (Chat: its content; Anthropic: a text block before the tool_use). A missing call is
    GW-REQ-006's pairing check's to report, not this one's."""
    pairs = texts_before_calls(front)
    spec = DIALECTS[dialect]
    turn_of, shape = spec.assistant_turn, spec.assistant_turn_shape
    if turn_of is None or shape is None or not pairs:
        return
    findings.check("GW-REQ-006")
    for text, call_id in pairs:
        turn = turn_of(body, call_id)
        if turn is None or text in turn[1]:
            continue
        index, held = turn
        findings.fail("GW-REQ-006", f"the assistant text {short(text)} before call {call_id!r} is not in the "
                      f"upstream message carrying that call ($.messages[{index}], text {short(held)}): an assistant "
                      f"turn with text and calls reaches a {dialect} upstream as {shape}",
                      Evidence(path=f"upstream request $.messages[{index}]", expected=text, actual=held))
