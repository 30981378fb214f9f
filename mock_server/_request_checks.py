"""What the mock refuses in a request as the real upstream of its dialect does, before any scenario plays
(docs/mock-deviations.md): a function or custom tool without a name. Every real upstream answers it with HTTP 400
(OpenAI: `Missing required parameter: 'tools[0].name'.`, `param` the field's path, `code`
`missing_required_parameter`; Anthropic: `invalid_request_error` `tools.0.custom.name: Field required`), so a gateway
that passes such a tool on gets the refusal a real upstream gives, and its front is judged on relaying it
(GW-REQ-013, docs/spec/verdicts.md §16). The first offending tool is named, as the APIs do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness.dialects import DIALECTS

from ._player import Plan, error_plan
from .dialects import Renderer

__all__ = ["NamelessTool", "nameless_tool", "request_refusal"]


@dataclass(frozen=True, slots=True)
class NamelessTool:
    """The first tool of a request whose name is missing, empty or not a string: its index, where its name belongs
    (Chat's `function.name` / `custom.name`, the others' `name`), and what is wrong (`missing`, `empty`, `type`)."""

    index: int
    field: str
    problem: str


def nameless_tool(dialect: str, body: Mapping[str, Any]) -> NamelessTool | None:
    """The first function or custom tool of `body` (a `dialect` request) without a usable name; None if none.
    Built-in tools (web_search, file_search, Anthropic's server tools) have no name to check."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return None
    for index, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            continue
        kind = tool.get("type", DIALECTS[dialect].default_tool_type)
        if kind not in ("function", "custom"):
            continue
        holder, field = (tool.get(kind), f"{kind}.name") if DIALECTS[dialect].nested_tools else (tool, "name")
        if not isinstance(holder, Mapping):
            continue
        name = holder.get("name")
        if isinstance(name, str) and name:
            continue
        problem = "missing" if name is None else "empty" if name == "" else "type"
        return NamelessTool(index, field, problem)
    return None


def request_refusal(renderer: Renderer, body: Mapping[str, Any]) -> Plan | None:
    """The HTTP 400 the real upstream of the renderer's dialect answers to `body`, or None when it takes it."""
    found = nameless_tool(renderer.dialect, body)
    if found is None:
        return None
    message, fields = renderer.tool_name_error(found.index, found.field, found.problem)
    return error_plan(renderer, 400, message, error_fields=fields or None)
