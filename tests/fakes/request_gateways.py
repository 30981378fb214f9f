"""Broken gateways for the request shapes a gateway translates (scenarios/request_shapes.json,
docs/spec/contracts.md §7.12): the reference Responses front with one defect each in how it reads the front
request. `tests/fakes/gateways.py` lists them in its `DEFECTS`.
"""

from __future__ import annotations

import json

from starlette.responses import JSONResponse, Response

from examples.gateway import Json, Request, ResponsesFront
from examples.gateway.model import Message, Part, Result, Tool

__all__ = ["REQUEST_DEFECTS"]


class DropsBareStringInput(ResponsesFront):
    """drops_bare_string_input: an `input` that is a bare string, not a list of items, is read as no input at all,
    so the user's text never reaches the upstream (GW-REQ-001)."""

    def parse_request(self, body: Json) -> Request:
        return super().parse_request({**body, "input": []} if isinstance(body.get("input"), str) else body)


class DropsStringContent(ResponsesFront):
    """drops_string_content: a message whose content is a plain string is read as a list of parts, which yields no
    text, so the user's text never reaches the upstream (GW-REQ-001; without the markers the mock cannot tie what
    arrives to the case, so the later turns cannot be judged)."""

    def parse_history(self, items: list[Json]) -> list[Part]:
        history = super().parse_history(items)
        texts = [i for i in items
                 if i.get("type", "message") == "message" and i.get("role", "user") in ("user", "assistant")]
        blanked = iter(isinstance(i.get("content"), str) for i in texts)
        return [Message(p.role, "") if isinstance(p, Message) and next(blanked) else p for p in history]


class DropsAssistantText(ResponsesFront):
    """drops_assistant_text: earlier assistant text turns are not forwarded, as if assistant history only came as
    function calls: the upstream sees the user turns without the answers between them (GW-REQ-009)."""

    def parse_history(self, items: list[Json]) -> list[Part]:
        return [p for p in super().parse_history(items) if not (isinstance(p, Message) and p.role == "assistant")]


class DropsDeveloperMessages(ResponsesFront):
    """drops_developer_messages: only `instructions` reach the upstream's system prompt; system and developer
    input messages are dropped (GW-REQ-005)."""

    def parse_request(self, body: Json) -> Request:
        items = body.get("input")
        if isinstance(items, list):
            body = {**body, "input": [i for i in items if i.get("role") not in ("system", "developer")]}
        return super().parse_request(body)


class SerialisesToolOutputParts(ResponsesFront):
    """serialises_tool_output_parts: a function_call_output whose output is a list of content parts reaches the
    upstream as the JSON text of that list instead of its texts (GW-REQ-006)."""

    def parse_history(self, items: list[Json]) -> list[Part]:
        outputs = {str(i.get("call_id")): i["output"] for i in items
                   if i.get("type") == "function_call_output" and isinstance(i.get("output"), list)}
        return [Result(p.call_id, json.dumps(outputs[p.call_id])) if isinstance(p, Result) and p.call_id in outputs
                else p for p in super().parse_history(items)]


class BuiltinToolsAsFunctions(ResponsesFront):
    """builtin_tools_as_functions: built-in tools (web_search, file_search, custom) are forwarded as function tools
    named after their type or name, with no parameters, which the upstream never declared (GW-REQ-008)."""

    def parse_request(self, body: Json) -> Request:
        request = super().parse_request(body)
        builtins = [t for t in body.get("tools") or [] if t.get("type", "function") != "function"]
        functions = [tool for tool in request.tools if tool.kind == "function"]  # the custom tool: a function too
        request.tools = [Tool(str(t.get("name") or t["type"])) for t in builtins] + functions
        return request


def _builtin_types(body: Json) -> list[str]:
    return [str(t.get("type")) for t in body.get("tools") or [] if t.get("type", "function") != "function"]


class RejectsBuiltinTools(ResponsesFront):
    """rejects_builtin_tools (correct, not a defect): a request with built-in tools is refused before any upstream
    call, with HTTP 400 in the front's error shape naming their types (GW-REQ-008 passes on the rejection)."""

    def parse_request(self, body: Json) -> Request:
        types = _builtin_types(body)
        if types:
            raise ValueError(f"built-in tools {', '.join(types)} are not supported by this gateway's upstream")
        return super().parse_request(body)


class RejectsBuiltinToolsVaguely(ResponsesFront):
    """rejects_builtin_tools_vaguely: a request with built-in tools is refused with HTTP 400 whose message names
    none of them, so the caller cannot tell what to remove (GW-REQ-008)."""

    def parse_request(self, body: Json) -> Request:
        if _builtin_types(body):
            raise ValueError("unsupported request")
        return super().parse_request(body)


class RejectsBuiltinToolsAs500(RejectsBuiltinTools):
    """rejects_builtin_tools_as_500: a request with built-in tools is refused with HTTP 500, a server error for
    the caller's request, though its message names them (GW-REQ-008)."""

    def invalid_request(self, message: str) -> Response:
        return JSONResponse({"error": {"message": message, "type": "server_error"}}, status_code=500)


REQUEST_DEFECTS: dict[str, type[ResponsesFront]] = {
    "drops_bare_string_input": DropsBareStringInput,
    "drops_string_content": DropsStringContent,
    "drops_assistant_text": DropsAssistantText,
    "drops_developer_messages": DropsDeveloperMessages,
    "serialises_tool_output_parts": SerialisesToolOutputParts,
    "builtin_tools_as_functions": BuiltinToolsAsFunctions,
    "rejects_builtin_tools": RejectsBuiltinTools,
    "rejects_builtin_tools_vaguely": RejectsBuiltinToolsVaguely,
    "rejects_builtin_tools_as_500": RejectsBuiltinToolsAs500,
}
