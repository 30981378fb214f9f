"""Client rules on the calls an adapter reported against the calls done on the wire (CLI-004, CLI-011, CLI-013):
each reported call paired with the wire call it stands for, its id kept (or, id-less, given a distinct one; in
Responses, the item id), in output order."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.outcome import Call

from ._findings import Findings

__all__ = ["call_key", "call_value_key", "check_fallback", "check_ids", "check_idless", "check_order", "pair_calls"]


def pair_calls(reported: tuple[Call, ...], wire: tuple[Call, ...]) -> list[Call | None]:
    """The wire call each reported call stands for (same name and arguments; the one with its id first), or None.
    Each wire call pairs with one reported call, so identical calls stay apart."""
    unclaimed = list(wire)
    pairs: list[Call | None] = []
    for call in reported:
        same = [w for w in unclaimed if call_value_key(w) == call_value_key(call)]
        match = next((w for w in same if w.call_id == call.call_id), same[0] if same else None)
        if match is not None:
            unclaimed.remove(match)
        pairs.append(match)
    return pairs


def check_ids(findings: Findings, reported: tuple[Call, ...], wire: tuple[Call, ...],
              pairs: list[Call | None]) -> None:
    """CLI-004 (docs/spec/contracts.md §7.9, ids): a call the stream gave an id no other call had is reported with
    that id, unchanged. An id the stream gave several calls is the upstream's fault: the client may keep it, or
    give the call an id of its own (non-empty, no other reported call's); that the calls stay apart is EXP-001's."""
    if not any(c.call_id for c in wire) or not reported:
        return
    findings.check("CLI-004")
    sharing = Counter(c.call_id for c in wire if c.call_id)
    for index, (call, match) in enumerate(zip(reported, pairs, strict=True)):
        wanted = match.call_id if match is not None else None
        if not wanted or call.call_id == wanted:
            continue
        if sharing[wanted] == 1:
            findings.fail("CLI-004", f"call {index} ({call.name}) is reported with {_id_phrase(call.call_id)}; "
                          f"the stream gave it {wanted!r}", Evidence(path=f"$.tool_calls[{index}].call_id",
                                                                  expected=wanted, actual=call.call_id))
            continue
        others = [i for i, other in enumerate(reported) if i != index and other.call_id == call.call_id]
        if call.call_id and not others:
            continue  # an id of its own for a call whose id the upstream repeated
        also = f", as is call {others[0]} ({reported[others[0]].name})" if others else ""
        findings.fail("CLI-004", f"call {index} ({call.name}) had the id {wanted!r} that {sharing[wanted]} calls "
                      f"share on the wire, and is reported with {_id_phrase(call.call_id)}"
                      f"{also}: keep the stream's id, or give the call an id no other reported call has",
                      Evidence(path=f"$.tool_calls[{index}].call_id",
                               expected=f"{wanted!r}, or an id no other call has", actual=call.call_id))


def check_idless(findings: Findings, reported: tuple[Call, ...], pairs: list[Call | None]) -> None:
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


def check_order(findings: Findings, reported: tuple[Call, ...], wire: tuple[Call, ...],
                pairs: list[Call | None]) -> None:
    """CLI-011: the reported calls that stand for wire calls come in the wire's output order (calls equal in name
    and arguments may come in either order: nothing tells them apart but their ids, which CLI-004 judges)."""
    paired = [(index, match) for index, match in enumerate(pairs) if match is not None]
    if len(paired) < 2:
        return
    findings.check("CLI-011")
    claimed = {id(match) for _, match in paired}
    wanted = [call for call in wire if id(call) in claimed]
    for (index, match), expected in zip(paired, wanted, strict=True):
        if call_key(match) != call_key(expected):
            findings.fail("CLI-011", f"call {index} ({match.name}) is output call {_position(wire, match)} on the "
                          f"wire, but output call {_position(wire, expected)} ({expected.name}) belongs here: report "
                          "calls in output_index order, not in the order they finished",
                          Evidence(path=f"$.tool_calls[{index}]", expected=expected.to_json(), actual=match.to_json()))
            return


def _position(wire: tuple[Call, ...], match: Call) -> int:
    return next(i for i, call in enumerate(wire) if call is match)


def check_fallback(findings: Findings, reported: tuple[Call, ...], wire: tuple[Call, ...],
                   pairs: list[Call | None], item_ids: Sequence[str | None]) -> None:
    """CLI-013: a Responses call streamed without call_id is reported with its item id."""
    if len(item_ids) != len(wire):
        return
    for index, match in enumerate(pairs):
        if match is None or match.call_id:
            continue
        item_id = item_ids[_position(wire, match)]
        if not item_id:
            continue
        findings.check("CLI-013")
        if reported[index].call_id != item_id:
            got = "none" if reported[index].call_id is None else repr(reported[index].call_id)
            findings.fail("CLI-013", f"call {index} ({match.name}) had no call_id on the wire and is reported with "
                          f"{got}; its item id {item_id!r} is the id to fall back to",
                          Evidence(path=f"$.tool_calls[{index}].call_id", expected=item_id,
                                   actual=reported[index].call_id))


def _id_phrase(call_id: str | None) -> str:
    return "no call_id" if call_id is None else f"call_id {call_id!r}"


def call_value_key(call: Call) -> tuple[str, str, Any]:
    """What identifies a call's content: its kind, its name and its parsed arguments (a custom call's raw input,
    compared byte for byte; function arguments that are not JSON equal nothing)."""
    return call.kind, call.name, call.arguments if call.kind == "custom" else call.parsed()


def call_key(call: Call) -> tuple[str, str, str]:
    """A call's kind, name and arguments, function arguments as canonical JSON when they parse."""
    if call.kind == "custom":
        return call.kind, call.name, call.arguments
    try:
        return call.kind, call.name, json.dumps(json.loads(call.arguments), sort_keys=True)
    except ValueError:
        return call.kind, call.name, call.arguments
