"""Agent loops: the deterministic tool the harness (gateway mode) and a client adapter (client mode) run for every
call, and the next request of a loop, carrying every earlier call and its result (docs/spec/loops.md §7).

The tool (`tool_output`) is a pure function of the call's name, arguments and id, so the judges know what every
result must be: `"<name> ok <call_id>"`, or `"<name> error <call_id>"` with `is_error` when the call's arguments
are a JSON object whose `fail` member is `true` (or are not a JSON object at all).

`loop_request(scenario_id, request, turns, ...)` is the request of the next turn, in any dialect: the scenario's
request with, after its input, each earlier turn's calls (`function_call` items, assistant `tool_calls`, `tool_use`
blocks) followed by their results (`function_call_output` items, `role: tool` messages, `tool_result` blocks with
`is_error` for a failed tool), ids kept. It is the one function every transport uses to build a leg's request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import Dialect

from ._request import DEFAULT_MODEL, front_request

__all__ = ["LoopCall", "ToolOutput", "loop_items", "loop_request", "tool_output"]


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What the deterministic tool returns for one call: its output text, and whether the tool failed."""

    output: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class LoopCall:
    """One call of an earlier turn, as the answer gave it (its call id, name and JSON arguments text)."""

    call_id: str
    name: str
    arguments: str

    @property
    def result(self) -> ToolOutput:
        return tool_output(self.name, self.arguments, self.call_id)


def tool_output(name: str, arguments: str, call_id: str) -> ToolOutput:
    """The deterministic tool: `"<name> ok <call_id>"`, or `"<name> error <call_id>"` (is_error) when `arguments`
    is not a JSON object or its `fail` member is `true`."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return ToolOutput(f"{name} {'error' if failed else 'ok'} {call_id}", failed)


def loop_items(turns: Sequence[Sequence[LoopCall]]) -> list[dict[str, Any]]:
    """The neutral input items of earlier turns: each turn's calls, then their results, in call order."""
    items: list[dict[str, Any]] = []
    for calls in turns:
        items += [{"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.arguments}
                  for c in calls]
        for call in calls:
            result = call.result
            item: dict[str, Any] = {"type": "function_call_output", "call_id": call.call_id, "output": result.output}
            if result.is_error:
                item["is_error"] = True
            items.append(item)
    return items


def loop_request(
    scenario_id: str, request: Mapping[str, Any], turns: Sequence[Sequence[LoopCall]], *, case: str,
    model: str = DEFAULT_MODEL, stream: bool | None = None, dialect: Dialect,
) -> dict[str, Any]:
    """The request of the turn after `turns` (each the calls one earlier turn answered), in `dialect`: the
    scenario's request, then every earlier call and its result. With no turns, the scenario's first request."""
    if not turns:
        return front_request(scenario_id, request, case=case, model=model, stream=stream, dialect=dialect)
    given = request["input"]
    first = [{"role": "user", "text": given}] if isinstance(given, str) else list(given)
    extended = {**request, "input": first + loop_items(turns)}
    return front_request(scenario_id, extended, case=case, model=model, stream=stream, dialect=dialect)
