"""Sequences: a scenario whose `legs` answer the successive requests of one case (retries, agent loops). Each leg
is loaded as a playable `Scenario` of its own (the scenario's id, request and tags; the leg's output, faults,
timing, ending and expect); `requires` says what the leg's request must carry (docs/mock.md#sequences)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from callproof.harness._types import JSONData, JSONValue

from ._faults import raw_http_error

if TYPE_CHECKING:
    from ._scenario import Scenario

__all__ = ["PLAYABLE", "Leg", "Requires", "leg_source", "requires_of"]

#: The parts of a scenario a leg carries instead (with `legs`, the scenario itself has none of them).
PLAYABLE = ("output", "order", "usage", "ending", "error", "timing", "faults")

_STATUS_OF_ENDING = {"completed": "completed", "length": "incomplete", "content_filter": "incomplete",
                     "failed": "failed"}


@dataclass(frozen=True, slots=True)
class Requires:
    """What a leg's request must carry: tool results for these call ids, and these strings in its text."""

    tool_results: tuple[str, ...] = ()
    text: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Leg:
    """Leg `index` of a sequence: `scenario` is what it plays (and its `expect`, what the client sees after it)."""

    index: int
    scenario: Scenario
    requires: Requires | None = None


def requires_of(raw: Mapping[str, Any]) -> Requires | None:
    """The `requires` block of a raw leg, or None."""
    block = raw.get("requires")
    if block is None:
        return None
    return Requires(tuple(block.get("tool_results", ())), tuple(block.get("text", ())))


def leg_source(scenario: Mapping[str, Any], leg: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The raw scenario that plays leg `index`: the scenario's own fields without `legs`, the leg's playable parts,
    and its expect (given, else: the scenario's for the last leg, else derived from the leg's fault or output)."""
    out = {k: v for k, v in scenario.items() if k != "legs"}
    out.update({k: leg[k] for k in PLAYABLE if k in leg})
    out.setdefault("output", [])
    if "description" in leg:
        out["description"] = leg["description"]
    last = index == len(scenario["legs"]) - 1
    out["expect"] = leg.get("expect") or (scenario["expect"] if last else _derived_expect(out))
    return out


def _derived_expect(leg: Mapping[str, Any]) -> dict[str, Any]:
    fault = raw_http_error(leg.get("faults", ()))  # the fault table's `http_error` kinds
    if fault is not None:
        expect: dict[str, Any] = {"status": "error", "http_status": fault["status"]}
        if "retry_after" in fault:
            expect["retry_after"] = fault["retry_after"]
        return expect
    expect = {"status": _STATUS_OF_ENDING[leg.get("ending", "completed")]}
    texts = [o["text"] for o in leg["output"] if o["type"] == "text"]
    if texts:
        expect["text"] = "".join(texts)
    calls = [o for o in leg["output"] if o["type"] == "function_call"]
    if calls:
        expect["tool_calls"] = [{"name": c["name"], "arguments": _parsed(c["arguments"])} for c in calls]
    return expect


def _parsed(arguments: JSONValue) -> JSONData:
    if not isinstance(arguments, str):
        return arguments  # a $generate object: the loader expands it as an expected value
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return arguments
