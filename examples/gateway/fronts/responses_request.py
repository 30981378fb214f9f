"""The Responses front's requests: a body read into the neutral request (its input items, instructions, tools and
tool choice, text.format), and the conversation a `previous_response_id` continues (docs/spec/stateful.md §2)."""

from __future__ import annotations

from typing import Any

from ..model import Call, Json, Message, Opaque, OutputFormat, Part, Reasoning, Request, Result, Tool, ToolChoice
from ..state import ResponseStore, StatefulRefusal
from ..wire import text_of
from .base import Front, RequestShapeError, number, tool_name
from .responses_turn import Turn

__all__ = ["ResponsesRequests", "input_items"]


class ResponsesRequests(Front[Turn]):
    """The request side of the Responses front (`ResponsesFront` adds the stream and its endings)."""

    #: The responses this front answered, kept for `previous_response_id`.
    responses: ResponseStore

    def parse_request(self, body: Json) -> Request:
        body = self.continued(body)
        items = input_items(body)
        system = [body["instructions"]] if body.get("instructions") else []
        system += [text_of(item.get("content")) for item in items
                   if item.get("type", "message") == "message" and item.get("role") in ("system", "developer")]
        offered = list(enumerate(body.get("tools") or []))
        for index, tool in offered:  # a function or custom tool without a name: refused, never forwarded
            if tool.get("type", "function") in ("function", "custom"):
                tool_name(tool.get("name"), index)
        tools = [self.parse_tool(t) if t.get("type", "function") == "function" else self.parse_custom_tool(t, i)
                 for i, t in offered if t.get("type", "function") in ("function", "custom")]
        builtins = [t for _, t in offered if t.get("type", "function") not in ("function", "custom")]
        return Request(model=body.get("model"), system=system, history=self.parse_history(items), tools=tools,
                       builtin_tools=builtins,
                       tool_choice=self.parse_tool_choice(body.get("tool_choice")),
                       parallel_tool_calls=body.get("parallel_tool_calls"),
                       max_tokens=number(body.get("max_output_tokens")), stream=body.get("stream") is True,
                       front=body, store=body.get("store") if isinstance(body.get("store"), bool) else None,
                       include=[str(i) for i in body.get("include") or []],
                       output_format=self.parse_output_format((body.get("text") or {}).get("format")))

    def parse_output_format(self, format: Any) -> OutputFormat | None:
        """text.format: json_schema (name, schema, strict, description) or json_object; text (or none): None."""
        if not isinstance(format, dict) or format.get("type") in (None, "text"):
            return None
        if format.get("type") == "json_object":
            return OutputFormat("json_object")
        if format.get("type") != "json_schema" or not isinstance(format.get("schema"), dict):
            raise RequestShapeError(f"text.format must be text, json_object or json_schema with a schema: {format!r}")
        return OutputFormat("json_schema", format["schema"], format.get("name"), format.get("strict"),
                            format.get("description"))

    def parse_custom_tool(self, tool: Json, index: int) -> Tool:
        """A custom (freeform) tool: its calls carry raw text in `format` (text or a grammar)."""
        return Tool(tool_name(tool.get("name"), index), tool.get("description"), kind="custom",
                    format=tool.get("format"))

    def continued(self, body: Json) -> Json:
        """The body a `previous_response_id` continues: the kept conversation of that response, then this input
        (every upstream gets the whole conversation; the id is only echoed in the Response object). Raises
        `StatefulRefusal` for a response it does not hold (never kept: `store: false`, forgotten, or not its own)."""
        previous = body.get("previous_response_id")
        if previous is None:
            return body
        earlier = self.responses.get(str(previous))
        if earlier is None:
            raise StatefulRefusal(f"Previous response with id {str(previous)!r} not found: this gateway keeps only "
                                  "responses made without store: false, and not forever; send the whole "
                                  "conversation as input instead.", "previous_response_id",
                                  "previous_response_not_found")
        return {**body, "input": [*earlier, *input_items(body)]}  # the id stays, echoed in the Response object

    def parse_history(self, items: list[Json]) -> list[Part]:
        history: list[Part] = []
        for item in items:
            kind = item.get("type", "message")
            if kind == "message" and item.get("role", "user") in ("user", "assistant"):
                history.append(Message(item.get("role", "user"), text_of(item.get("content"))))
            elif kind == "function_call":
                history.append(Call(str(item.get("call_id") or ""), str(item.get("name") or ""),
                                    item.get("arguments") or "{}"))
            elif kind == "function_call_output":
                history.append(Result(str(item.get("call_id") or ""), text_of(item.get("output"))))
            elif kind == "custom_tool_call":
                history.append(Call(str(item.get("call_id") or ""), str(item.get("name") or ""),
                                    str(item.get("input") or ""), "custom"))
            elif kind == "custom_tool_call_output":
                history.append(Result(str(item.get("call_id") or ""), text_of(item.get("output")), kind="custom"))
            elif kind == "reasoning":  # passed on unchanged where the upstream can take it (stateful.md §3)
                history.append(Reasoning(dict(item)))
            elif kind not in ("message", "function_call", "function_call_output", "custom_tool_call",
                              "custom_tool_call_output"):  # mcp_call, shell_call, ...: to a Responses upstream
                history.append(Opaque(dict(item)))
        return history

    def parse_tool(self, tool: Json) -> Tool:
        return Tool(str(tool["name"]), tool.get("description"), tool.get("parameters"), tool.get("strict"))

    def parse_tool_choice(self, choice: Any) -> ToolChoice | None:
        if isinstance(choice, dict) and choice.get("type") == "function":
            return ToolChoice("required", str(choice["name"]))
        if isinstance(choice, dict) and choice.get("type") == "allowed_tools":  # no subset: the mode only
            choice = choice.get("mode", "auto")
        if choice in ("auto", "none", "required"):
            return ToolChoice(choice)
        if choice is not None:
            raise RequestShapeError(f"unknown tool_choice {choice!r}")
        return None


def input_items(front: Json) -> list[Json]:
    """The input items; a bare string input is one user message."""
    items = front.get("input") or []
    return [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else list(items)
