"""The request the harness sends to an implementation under test for a scenario (docs/spec/contracts.md §3).

A scenario's `request` is dialect-neutral; the front request is a Responses API body with user input as explicit
message items, the form every gateway translates. The scenario marker and a per-case marker travel in the first
user message's text, so the mock can select the scenario and tie each upstream request to its front request.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["DEFAULT_MODEL", "front_request", "markers", "new_case_tag"]

DEFAULT_MODEL = "callproof-model"


def new_case_tag() -> str:
    """A fresh case tag: unique across processes, so pytest-xdist workers never share one."""
    return uuid.uuid4().hex


def markers(scenario: str, case: str) -> str:
    """The text that selects `scenario` in the mock and ties the upstream request to case `case`."""
    return f"[callproof:scenario={scenario}] [callproof:case={case}]"


def _message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def _tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", **tool}


def _tool_choice(choice: Any) -> Any:
    if isinstance(choice, Mapping):
        return {"type": "function", "name": choice["name"]}
    return choice


def front_request(
    scenario_id: str, request: Mapping[str, Any], *, case: str, model: str = DEFAULT_MODEL,
    stream: bool | None = None,
) -> dict[str, Any]:
    """The Responses request body for one case of a scenario; `stream` overrides the scenario's own choice."""
    items: list[dict[str, Any]] = []
    marked = False
    for item in request["input"]:
        if "role" in item:
            text = item["text"]
            if not marked and item["role"] == "user":
                text = f"{text} {markers(scenario_id, case)}" if text else markers(scenario_id, case)
                marked = True
            items.append(_message(item["role"], text))
        else:
            items.append(dict(item))
    if not marked:  # no user message: the markers ride on a user message of their own
        items.insert(0, _message("user", markers(scenario_id, case)))
    body: dict[str, Any] = {"model": model, "input": items}
    if "instructions" in request:
        body["instructions"] = request["instructions"]
    if "tools" in request:
        body["tools"] = [_tool(t) for t in request["tools"]]
    if "tool_choice" in request:
        body["tool_choice"] = _tool_choice(request["tool_choice"])
    for name in ("parallel_tool_calls", "max_output_tokens"):
        if name in request:
            body[name] = request[name]
    body["stream"] = request.get("stream", True) if stream is None else stream
    return body
