"""Broken gateways for agent loops (scenarios/sequences.json, docs/spec/loops.md): the reference gateway with one
defect each in how a front reads the tool results of an earlier turn. `tests/fakes/gateways.py` lists them in its
`DEFECTS`; its `drops_tool_results` (a Responses front that forwards no function_call_output) is caught by
GW-LOOP-001 and GW-LOOP-003 too."""

from __future__ import annotations

from typing import Any

from examples.gateway import AnthropicFront, ChatFront, Front, Json
from examples.gateway.model import Part, Result

__all__ = ["LOOP_DEFECTS"]


class DuplicatesToolResults(ChatFront):
    """duplicates_tool_results: every role: tool message reaches the upstream twice (GW-LOOP-001)."""

    def parse_history(self, messages: list[Json]) -> list[Part]:
        history: list[Part] = []
        for part in super().parse_history(messages):
            history += [part, part] if isinstance(part, Result) else [part]
        return history


class LosesToolCallId(ChatFront):
    """loses_tool_call_id: a role: tool message's tool_call_id is not read, so its result reaches the upstream
    with an empty id, tied to no call (GW-LOOP-001)."""

    def parse_history(self, messages: list[Json]) -> list[Part]:
        return [Result("", p.output) if isinstance(p, Result) else p for p in super().parse_history(messages)]


class DropsIsError(AnthropicFront):
    """drops_is_error: a tool_result's is_error is not read, so a failed tool reaches an Anthropic upstream as a
    success (GW-LOOP-002)."""

    def parse_history(self, messages: list[Json]) -> list[Part]:
        return [Result(p.call_id, p.output) if isinstance(p, Result) else p for p in super().parse_history(messages)]


LOOP_DEFECTS: dict[str, type[Front[Any]]] = {
    "duplicates_tool_results": DuplicatesToolResults,
    "loses_tool_call_id": LosesToolCallId,
    "drops_is_error": DropsIsError,
}
