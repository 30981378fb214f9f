"""A scripted turn's outputs read from a scenario file: each item (a function, custom, MCP, shell or code call, text,
reasoning, refusal, a shell call's output, a raw frame) with the fragments its chunk rule cuts it into, the order the
fragments stream in, and `$generate`d strings; errors name the file, the place and the fix."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, Literal

from callproof.harness._types import JSONData

from ._scenario import (
    Chunked,
    CodeInterpreterCall,
    CustomToolCall,
    FunctionCall,
    McpCall,
    Output,
    RawFrame,
    ScenarioError,
    ShellCall,
    ShellCallOutput,
    ShellOutput,
    Step,
)

__all__ = ["fail", "read_expected_call", "read_output", "read_raw_frame", "read_steps"]


def fail(source: str, where: str, message: str, fix: str) -> ScenarioError:
    return ScenarioError(f"{source}: {where}: {message}; {fix}")


def _chunk(
    source: str, where: str, value: str, rule: Mapping[str, Any] | None, default_size: int | None
) -> tuple[str, ...]:
    if rule is None:
        rule = {"size": default_size} if default_size else {"whole": True}
    if "fragments" in rule:
        fragments = tuple(rule["fragments"])
        if "".join(fragments) != value:
            raise fail(source, where, f"fragments join to {''.join(fragments)!r}, not {value!r}",
                       "make the fragments concatenate exactly to the string")
        return fragments
    if "size" in rule and value:
        size = int(rule["size"])
        return tuple(value[i : i + size] for i in range(0, len(value), size))
    return (value,) if value else ()


def read_steps(source: str, where: str, order: JSONData, output: tuple[Output, ...]) -> tuple[Step, ...]:
    counts = [len(o.fragments) for o in output]
    if order is None or order == "sequential":
        return tuple(Step(i, j) for i, n in enumerate(counts) for j in range(n))
    if order == "round-robin":
        steps: list[Step] = []
        calls = [i for i, o in enumerate(output) if isinstance(o, FunctionCall | CustomToolCall)]
        # Items before the first call stream first; the calls interleave; items after them follow.
        first, last = (calls[0], calls[-1]) if calls else (len(output), len(output) - 1)
        steps += [Step(i, j) for i in range(first) for j in range(counts[i])]
        for j in range(max((counts[i] for i in calls), default=0)):
            steps += [Step(i, j) for i in calls if j < counts[i]]
        between = [i for i in range(first, last + 1) if i not in calls]
        steps += [Step(i, j) for i in between for j in range(counts[i])]
        steps += [Step(i, j) for i in range(last + 1, len(output)) for j in range(counts[i])]
        return tuple(steps)
    explicit = tuple(Step(int(pair[0]), int(pair[1])) for pair in order)
    expected = {Step(i, j) for i, n in enumerate(counts) for j in range(n)}
    if set(explicit) != expected or len(explicit) != len(expected):
        missing = sorted((s.output, s.fragment) for s in expected - set(explicit))
        extra = sorted((s.output, s.fragment) for s in set(explicit) - expected)
        raise fail(source, f"{where}.order",
                   f"the explicit order misses {missing} and has unknown or repeated {extra}",
                   "list every [output index, fragment index] pair exactly once")
    for i in range(len(output)):
        mine = [s.fragment for s in explicit if s.output == i]
        if mine != sorted(mine):
            raise fail(source, f"{where}.order", f"fragments of output {i} are out of order: {mine}",
                       "an item's own fragments stream in order; only items interleave")
    return explicit


def _generated(value: JSONData) -> JSONData:
    """Expand a `{"$generate": {repeat, times, prefix?, suffix?}}` object to its string; other values as they are."""
    if isinstance(value, dict) and set(value) == {"$generate"}:
        spec = value["$generate"]
        return f"{spec.get('prefix', '')}{spec['repeat'] * spec['times']}{spec.get('suffix', '')}"
    return value


def read_expected_call(source: str, where: str, raw: Mapping[str, Any]) -> Mapping[str, Any]:
    if raw.get("type") == "custom":
        return raw
    generated = _generated(raw["arguments"])
    if generated is raw["arguments"]:
        return raw
    try:
        return {**raw, "arguments": json.loads(generated)}
    except ValueError as exc:
        raise fail(source, f"{where}.arguments", f"the generated text is not JSON ({exc})",
                   "make prefix + repeat * times + suffix one JSON value") from None


def _chunked(source: str, where: str, raw: Mapping[str, Any]) -> Chunked:
    summary = tuple(raw.get("summary", ()))
    return Chunked(
        raw["type"], raw["text"], _chunk(source, f"{where}.chunk", raw["text"], raw.get("chunk"), 8),
        summary=summary,
        summary_fragments=tuple(
            _chunk(source, f"{where}.summary[{i}]", part, _per_part(raw.get("chunk")), 8)
            for i, part in enumerate(summary)
        ),
        encrypted_content=raw.get("encrypted_content"),
        annotations=tuple(raw.get("annotations", ())),
    )


def _per_part(rule: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The chunk rule for each summary part or command: explicit fragments belong to the main string only."""
    return None if rule is not None and "fragments" in rule else rule


def _shell(source: str, where: str, raw: Mapping[str, Any], default_id: str) -> ShellCall:
    commands = tuple(raw["commands"])
    rule = raw.get("chunk")
    pieces: list[str] = []
    owners: list[int] = []
    if rule is not None and "fragments" in rule:
        fragments = _chunk(source, f"{where}.chunk", "".join(commands), rule, None)
        bounds = [sum(len(c) for c in commands[: k + 1]) for k in range(len(commands))]
        end = 0
        for piece in fragments:
            end += len(piece)
            owner = next(k for k, b in enumerate(bounds) if end <= b)
            if end - len(piece) < (bounds[owner - 1] if owner else 0):
                raise fail(source, f"{where}.chunk", f"fragment {piece!r} straddles two commands",
                           "split the fragments at each command's end")
            pieces.append(piece)
            owners.append(owner)
    else:
        for k, command in enumerate(commands):
            mine = _chunk(source, f"{where}.chunk", command, rule, 8)
            pieces += mine
            owners += [k] * len(mine)
    return ShellCall(commands, raw.get("call_id", default_id), tuple(pieces), tuple(owners))


def _shell_output(source: str, where: str, raw: Mapping[str, Any]) -> ShellCallOutput:
    outputs = tuple(ShellOutput(o.get("stdout", ""), o.get("stderr", ""), o.get("exit_code", 0))
                    for o in raw["outputs"])
    pieces: list[str] = []
    owners: list[tuple[int, Literal["stdout", "stderr"]]] = []
    streams: tuple[Literal["stdout", "stderr"], ...] = ("stdout", "stderr")
    for k, output in enumerate(outputs):
        for stream in streams:
            text = getattr(output, stream)
            if text:
                mine = _chunk(source, f"{where}.chunk", text, _per_part(raw.get("chunk")), 8)
                pieces += mine
                owners += [(k, stream)] * len(mine)
    return ShellCallOutput(raw["call_id"], outputs, tuple(pieces), tuple(owners))


def read_output(source: str, where: str, raw: Mapping[str, Any], default_id: str) -> Output:
    kind = raw["type"]
    if kind in ("text", "reasoning", "refusal"):
        return _chunked(source, where, raw)
    if kind == "custom_tool_call":
        return CustomToolCall(raw["name"], raw.get("call_id", default_id), raw["input"],
                              _chunk(source, f"{where}.chunk", raw["input"], raw.get("chunk"), 8))
    if kind == "mcp_call":
        return McpCall(raw["server_label"], raw["name"], raw["arguments"], raw.get("output"),
                       _chunk(source, f"{where}.chunk", raw["arguments"], raw.get("chunk"), 8))
    if kind == "shell_call":
        return _shell(source, where, raw, default_id)
    if kind == "shell_call_output":
        return _shell_output(source, where, raw)
    if kind == "code_interpreter_call":
        return CodeInterpreterCall(raw["code"], _chunk(source, f"{where}.chunk", raw["code"], raw.get("chunk"), 8))
    arguments = _generated(raw["arguments"])
    return FunctionCall(
        name=raw["name"],
        call_id=raw.get("call_id", default_id),  # absent: a stable id; null: the call has none
        arguments=arguments,
        fragments=_chunk(source, f"{where}.chunk", arguments, raw.get("chunk"), 8),
        name_fragments=_chunk(source, f"{where}.name_chunk", raw["name"], raw.get("name_chunk"), None),
        id_on=raw.get("id_on", "first"),
        name_on_later=raw.get("name_on_later", "omit"),
        arguments_before_name=bool(raw.get("arguments_before_name", False)),
        arguments_in_done_only=bool(raw.get("arguments_in_done_only", False)),
        name_never_sent=bool(raw.get("name_never_sent", False)),
    )


def read_raw_frame(item: JSONData) -> RawFrame:
    if isinstance(item, str):
        return RawFrame(item.encode("utf-8"))
    if "base64" in item:
        return RawFrame(base64.b64decode(item["base64"]), float(item.get("delay_ms", 0)))
    return RawFrame(item["text"].encode("utf-8"), float(item.get("delay_ms", 0)))
