"""Broken gateways for structured outputs, tool flags and the other output items (docs/spec/items.md): the reference
Responses front with one defect each, in the request it forwards (GW-REQ-010..013) or in the items it answers
(GW-ITEM-001..004); `forwards_nameless_tool` is correct (it passes the upstream's refusal on). `tests/fakes/gateways.py`
lists them in its `DEFECTS`.
"""

from __future__ import annotations

import json
from dataclasses import replace

from examples.gateway import Json, Request, ResponsesFront
from examples.gateway.custom_tools import CONVERTED_PARAMETERS
from examples.gateway.fronts.responses import Turn
from examples.gateway.model import OpaqueEvent, Tool

__all__ = ["ITEM_DEFECTS"]


class DropsTextFormat(ResponsesFront):
    """drops_text_format: `text.format` (a json_schema structured output) is not forwarded: the upstream answers
    free text the client parses as if it followed the schema (GW-REQ-010)."""

    def parse_request(self, body: Json) -> Request:
        return replace(super().parse_request(body), output_format=None)


class DropsStrict(ResponsesFront):
    """drops_strict: a function tool's `strict` flag is not forwarded, so the upstream no longer guarantees that
    the arguments match the schema (GW-REQ-011)."""

    def parse_request(self, body: Json) -> Request:
        request = super().parse_request(body)
        return replace(request, tools=[replace(t, strict=None) for t in request.tools])


#: The raw input so far of each custom call turned into a function call, by (turn, call key).
_HELD: dict[tuple[int, int], str] = {}


class CustomToolAsFunction(ResponsesFront):
    """custom_tool_as_function: a custom tool is offered upstream as a plain function tool with one string
    parameter, silently, even toward a Responses upstream or where the run declares `--policy custom-tools=refuse`
    (GW-REQ-012), and a custom call of the upstream reaches the front as a function call whose arguments wrap the
    raw input in JSON, `{"input": "..."}` (GW-ITEM-001)."""

    def parse_request(self, body: Json) -> Request:
        tools = [{"type": "function", "name": t.get("name"), "description": t.get("description"),
                  "parameters": CONVERTED_PARAMETERS} if t.get("type") == "custom" else t
                 for t in body.get("tools") or []]
        return super().parse_request({**body, "tools": tools} if "tools" in body else body)

    def on_custom_call_start(self, turn: Turn, key: int, upstream_id: str | None, name: str) -> None:
        self.on_call_start(turn, key, upstream_id, name)
        _HELD[id(turn), key] = ""

    def on_arguments(self, turn: Turn, key: int, fragment: str) -> None:
        if (id(turn), key) in _HELD:
            _HELD[id(turn), key] += fragment
            return
        super().on_arguments(turn, key, fragment)

    def on_call_done(self, turn: Turn, key: int) -> None:
        if (id(turn), key) in _HELD:
            super().on_arguments(turn, key, json.dumps({"input": _HELD.pop((id(turn), key))}))
        super().on_call_done(turn, key)


class DropsCustomTool(ResponsesFront):
    """drops_custom_tool: a custom tool is left out of the upstream request, silently: the model never sees it and
    the client never learns why it is not called (GW-REQ-012, under every policy)."""

    def parse_request(self, body: Json) -> Request:
        if "tools" not in body:
            return super().parse_request(body)
        return super().parse_request({**body, "tools": [t for t in body["tools"] if t.get("type") != "custom"]})


class CustomToolWithoutParameters(ResponsesFront):
    """custom_tool_without_parameters: a custom tool is offered upstream as a function tool without parameters
    (`{"type": "object", "properties": {}}`), so the model has nowhere to put the free-form input (GW-REQ-012, under
    the default policy too: a conversion needs one required string parameter)."""

    def parse_request(self, body: Json) -> Request:
        tools = [{"type": "function", "name": t.get("name"), "description": t.get("description"),
                  "parameters": {"type": "object", "properties": {}}} if t.get("type") == "custom" else t
                 for t in body.get("tools") or []]
        return super().parse_request({**body, "tools": tools} if "tools" in body else body)


def _nameless(body: Json) -> list[Json]:
    """The request's function tools without a name."""
    return [t for t in body.get("tools") or [] if t.get("type", "function") == "function" and not t.get("name")]


class ForwardsNamelessTool(ResponsesFront):
    """forwards_nameless_tool (correct, not a defect): a tool definition without a name is passed on as it is (with
    an empty name), as real gateways do; the upstream refuses the request with HTTP 400 and the front passes that
    refusal on in its own error shape (GW-REQ-013 passes: docs/spec/verdicts.md §16)."""

    def parse_request(self, body: Json) -> Request:
        nameless = _nameless(body)
        if not nameless:
            return super().parse_request(body)
        request = super().parse_request({**body, "tools": [t for t in body["tools"] if t not in nameless]})
        return replace(request, tools=[*request.tools, *(Tool("", t.get("description"), t.get("parameters"))
                                                         for t in nameless)])


class DropsNamelessTool(ResponsesFront):
    """drops_nameless_tool: a tool definition without a name is left out of the upstream request, silently: the
    upstream answers, and the caller never learns its tool is broken (GW-REQ-013; EXP-004: every upstream refuses
    the request)."""

    def parse_request(self, body: Json) -> Request:
        nameless = _nameless(body)
        return super().parse_request({**body, "tools": [t for t in body["tools"] if t not in nameless]}
                                     if nameless else body)


class NamesNamelessTool(ResponsesFront):
    """names_nameless_tool: a tool definition without a name is given one (`tool_1`, its index) on the way: the
    upstream answers, and a call to `tool_1` reaches a caller that never offered it (GW-REQ-013; EXP-004)."""

    def parse_request(self, body: Json) -> Request:
        tools = body.get("tools") or []
        named = [{**t, "name": f"tool_{i}"} if t in _nameless(body) else t for i, t in enumerate(tools)]
        return super().parse_request({**body, "tools": named} if tools else body)


class RefusalAsText(ResponsesFront):
    """refusal_as_text: the upstream's refusal is streamed as answer text (an output_text part), so the client
    shows it as the model's answer (GW-ITEM-002)."""

    def on_refusal(self, turn: Turn, text: str) -> None:
        self.on_text(turn, text)


class DropsEncryptedContent(ResponsesFront):
    """drops_encrypted_content: a reasoning item reaches the front without its encrypted_content, so the client
    cannot send it back on the next turn (GW-ITEM-003)."""

    def on_reasoning_done(self, turn: Turn, key: int, sealed: str | None) -> None:
        super().on_reasoning_done(turn, key, None)


def _respaced(arguments: object) -> object:
    try:
        return json.dumps(json.loads(str(arguments)), sort_keys=True, indent=1)
    except ValueError:
        return f"{arguments} "


class ManglesMcpArgs(ResponsesFront):
    """mangles_mcp_args: an MCP call's arguments are re-serialised (indented, keys sorted) in its done event and
    item, so the item that reaches the front is not the upstream's (GW-ITEM-004)."""

    def on_opaque(self, turn: Turn, event: OpaqueEvent) -> None:
        upstream = dict(event.event)
        item = upstream.get("item")
        if upstream.get("type") == "response.mcp_call_arguments.done":
            upstream["arguments"] = _respaced(upstream.get("arguments"))
        elif upstream.get("type") == "response.output_item.done" and isinstance(item, dict) \
                and item.get("type") == "mcp_call" and item.get("arguments"):
            upstream["item"] = {**item, "arguments": _respaced(item["arguments"])}
        super().on_opaque(turn, replace(event, event=upstream))


ITEM_DEFECTS: dict[str, type[ResponsesFront]] = {
    "drops_text_format": DropsTextFormat,
    "drops_strict": DropsStrict,
    "custom_tool_as_function": CustomToolAsFunction,
    "drops_custom_tool": DropsCustomTool,
    "custom_tool_without_parameters": CustomToolWithoutParameters,
    "forwards_nameless_tool": ForwardsNamelessTool,
    "drops_nameless_tool": DropsNamelessTool,
    "names_nameless_tool": NamesNamelessTool,
    "refusal_as_text": RefusalAsText,
    "drops_encrypted_content": DropsEncryptedContent,
    "mangles_mcp_args": ManglesMcpArgs,
}
