"""The request the harness sends for one case of a scenario, in the dialect of the front or client under test,
with the scenario's markers in its first user message (docs/spec/contracts.md §3)."""

from __future__ import annotations

from ._loop import LoopCall, ToolOutput, loop_items, loop_request, tool_output
from ._request import (
    ANTHROPIC_MAX_TOKENS,
    DEFAULT_MODEL,
    REQUEST_BUILDERS,
    front_request,
    marked_input,
    new_case_tag,
)

__all__ = [
    "ANTHROPIC_MAX_TOKENS", "DEFAULT_MODEL", "LoopCall", "REQUEST_BUILDERS", "ToolOutput", "front_request",
    "loop_items", "loop_request", "marked_input", "new_case_tag", "tool_output",
]
