"""What a client adapter gave back (the adapter protocol of docs/spec/contracts.md §5), as a value to judge."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from callproof.harness._types import JSONData

__all__ = ["LAYERS", "AdapterRun", "Layer", "adapter_layer", "protocol_problem"]

#: What an adapter reports (docs/adapters.md#layers): the calls as its library read them off the wire, arguments a
#: string nobody parsed (`raw`), the calls its library hands a caller ready to run (`parsed`, the default), or the
#: calls an agent runtime runs itself (`executing`).
Layer = Literal["raw", "parsed", "executing"]
LAYERS: Final[tuple[Layer, ...]] = ("raw", "parsed", "executing")


@dataclass(frozen=True, slots=True)
class AdapterRun:
    """One adapter run: `result` is the object it printed when it kept the protocol, else `problem` says why."""

    result: Mapping[str, Any] | None
    problem: str | None
    stderr: str
    seconds: float
    timed_out: bool = False


def protocol_problem(value: JSONData) -> str | None:
    """Why `value` is not a result object of the adapter protocol, or None."""
    if not isinstance(value, dict):
        return f"the result is a JSON {type(value).__name__}, not an object"
    calls = value.get("tool_calls", [])
    if not isinstance(calls, list):
        return "`tool_calls` is not a list"
    for index, call in enumerate(calls):
        problem = _call_problem(call, f"tool_calls[{index}]")
        if problem is not None:
            return problem
    for key in ("text", "refusal", "reasoning"):
        if value.get(key) is not None and not isinstance(value[key], str):
            return f"`{key}` is neither null nor a string"
    if value.get("error") is not None and not isinstance(value["error"], str):
        return "`error` is neither null nor a string"
    if not isinstance(value.get("incomplete", False), bool):
        return "`incomplete` is not a boolean"
    if "layer" in value and value["layer"] not in LAYERS:
        return (f"`layer` is {json.dumps(value['layer'])}; use \"raw\", \"parsed\" or \"executing\", or leave it out "
                "for \"parsed\" (docs/adapters.md#layers)")
    usage = value.get("usage")
    if usage is not None:
        if not isinstance(usage, dict):
            return "`usage` is neither null nor an object"
        for key in ("input_tokens", "output_tokens", "cached_tokens"):
            if key in usage and (not isinstance(usage[key], int) or isinstance(usage[key], bool)):
                return f"`usage.{key}` is not an integer"
    return None


def adapter_layer(result: Mapping[str, Any] | None) -> Layer:
    """The layer a valid result object declares: its `layer`, "parsed" when it has none."""
    layer = (result or {}).get("layer", "parsed")
    return cast(Layer, layer) if layer in LAYERS else "parsed"


def _call_problem(call: JSONData, where: str) -> str | None:
    """Why one `tool_calls` entry is not a function call (`name`, `arguments`) or a custom call (`type: "custom"`,
    `name`, `input`: the raw text), or None."""
    if not isinstance(call, dict):
        return f"`{where}` is not an object"
    kind = call.get("type", "function")
    if kind not in ("function", "custom"):
        return f"`{where}.type` is {kind!r}; use \"custom\" for a custom tool call, or leave it out for a function call"
    if not isinstance(call.get("name"), str):
        return f"`{where}.name` is missing or not a string"
    if kind == "custom" and not isinstance(call.get("input"), str):
        return (f"`{where}.input` is missing or not a string: a custom call's input is the raw text the model "
                "wrote, as a string")
    if kind == "function" and "arguments" not in call:
        return f"`{where}.arguments` is missing"
    if call.get("call_id") is not None and not isinstance(call["call_id"], str):
        return f"`{where}.call_id` is not a string"
    return None
