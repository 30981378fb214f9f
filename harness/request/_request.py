"""The request the harness sends to an implementation under test for a scenario (docs/spec/contracts.md §3).

A scenario's `request` is dialect-neutral; `front_request` renders it in the dialect the IUT's front (gateway
mode) or client (client mode) speaks: a Responses body with user input as explicit message items, a Chat
Completions body with `messages`, or an Anthropic Messages body with `system` and content blocks. Earlier calls and
their results take each dialect's form (`function_call` / `function_call_output` items, assistant `tool_calls` /
`role: tool` messages, `tool_use` / `tool_result` blocks), call ids kept. The scenario marker and a per-case marker
travel in the first user message's text (`scenario.markers` writes them), so the mock can select the scenario and tie
each upstream request to its front request.

Input forms (docs/spec/contracts.md §7.12) take each dialect's nearest equivalent: a bare string `input` is a
Responses string input and a user message with string content in Chat and Anthropic; a message with `form: string`
has a plain string content (Chat's usual form); a tool output of text parts is a list of `input_text` parts, Chat
text parts or Anthropic text blocks. Built-in tools (`web_search`, `file_search`, `custom`) go as given to a
Responses front; a Chat front gets a `custom` tool as a Chat custom tool and `web_search` as `web_search_options`
(Chat has no file search); an Anthropic front gets `web_search` as its `web_search_20250305` server tool (it has no
file search, and its custom tools take a JSON schema, not free text). Anthropic's `system` is a string, or text
blocks, one a source, when instructions and system or developer messages come together. A Responses `text.format`
is Chat's `response_format` and Anthropic's `output_config.format` (json_schema only); a function tool's `strict`
goes to every dialect; a tool without a name goes without one (a defect the gateway must refuse, GW-REQ-013).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness._types import Dialect, JSONData, JSONValue
from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import markers

__all__ = ["ANTHROPIC_MAX_TOKENS", "DEFAULT_MODEL", "REQUEST_BUILDERS", "front_request", "marked_input", "new_case_tag"]

DEFAULT_MODEL = "callproof-model"
#: Anthropic requires `max_tokens`: the value sent when the scenario sets no `max_output_tokens`.
ANTHROPIC_MAX_TOKENS = 4096

Json = dict[str, Any]


def new_case_tag() -> str:
    """A fresh case tag: unique across processes, so pytest-xdist workers never share one."""
    return uuid.uuid4().hex


def marked_input(scenario_id: str, request: Mapping[str, Any], case: str) -> list[Mapping[str, Any]]:
    """The scenario's neutral input with the markers in the first user message (one of their own before the
    first item when there is none); a bare string input is one user message marked `bare`."""
    if isinstance(request["input"], str):
        text = request["input"]
        return [{"role": "user", "text": f"{text} {markers(scenario_id, case)}", "bare": True}]
    items: list[Mapping[str, Any]] = []
    marked = False
    for item in request["input"]:
        if not marked and item.get("role") == "user":
            text = item["text"]
            item = {**item, "text": f"{text} {markers(scenario_id, case)}" if text else markers(scenario_id, case)}
            marked = True
        items.append(item)
    if not marked:
        items.insert(0, {"role": "user", "text": markers(scenario_id, case)})
    return items


# -- Responses --

def _parts(output: JSONData, kind: str) -> JSONValue:
    """A tool output: a string as is, text parts as parts of type `kind`."""
    return output if isinstance(output, str) else [{"type": kind, "text": p["text"]} for p in output]


def _builtin(tool: Mapping[str, Any]) -> bool:
    return "type" in tool


def _responses_message(role: str, text: str, form: str | None = None) -> Json:
    """An input message; an earlier assistant turn as the SDK's EasyInputMessage (string content): the
    `output_text` part form is an output message, which needs an `id` and a `status` the harness does not have."""
    if role == "assistant" or form == "string":
        return {"type": "message", "role": role, "content": text}
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


def _responses_item(item: Mapping[str, Any]) -> Json:
    if "role" in item:
        return _responses_message(item["role"], item["text"], item.get("form"))
    if item["type"] == "function_call_output":  # Responses has no is_error: the output text says it
        return {**{k: v for k, v in item.items() if k != "is_error"}, "output": _parts(item["output"], "input_text")}
    return dict(item)


def _responses(request: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> Json:
    body: Json = {"input": items[0]["text"] if items[0].get("bare") else [_responses_item(i) for i in items]}
    if "instructions" in request:
        body["instructions"] = request["instructions"]
    if "tools" in request:
        body["tools"] = [dict(t) if _builtin(t) else {"type": "function", **t} for t in request["tools"]]
    if "tool_choice" in request:
        choice = request["tool_choice"]
        body["tool_choice"] = {"type": "function", "name": choice["name"]} if isinstance(choice, Mapping) else choice
    for name in ("parallel_tool_calls", "max_output_tokens", "store", "include", "text"):
        if name in request:
            body[name] = request[name]
    return body


# -- Chat Completions --

def _chat(request: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> Json:
    messages: list[Json] = []
    if "instructions" in request:
        messages.append({"role": "system", "content": request["instructions"]})
    for item in items:
        if "role" in item:
            messages.append({"role": item["role"], "content": item["text"]})
        elif item["type"] == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":  # calls of one turn share its message
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif item["type"] == "function_call_output":  # a reasoning item has no Chat form (docs/spec/stateful.md §3)
            messages.append({"role": "tool", "tool_call_id": item["call_id"],
                             "content": _parts(item["output"], "text")})
    body: Json = {"messages": messages}
    tools: list[Json] = []
    for tool in request.get("tools", ()):
        if not _builtin(tool):
            tools.append({"type": "function", "function": dict(tool)})
        elif tool["type"] == "custom":
            tools.append({"type": "custom", "custom": _chat_custom(tool)})
        elif tool["type"] == "web_search":
            body["web_search_options"] = {}
    if tools:
        body["tools"] = tools
    if "tool_choice" in request:
        choice = request["tool_choice"]
        body["tool_choice"] = ({"type": "function", "function": {"name": choice["name"]}}
                               if isinstance(choice, Mapping) else choice)
    if "parallel_tool_calls" in request:
        body["parallel_tool_calls"] = request["parallel_tool_calls"]
    if "max_output_tokens" in request:
        body["max_completion_tokens"] = request["max_output_tokens"]
    if "text" in request:
        body["response_format"] = _response_format(request["text"]["format"])
    return body


def _chat_custom(tool: Mapping[str, Any]) -> Json:
    """A Chat custom tool: a grammar format nests its syntax and definition under `grammar`."""
    custom = {k: v for k, v in tool.items() if k not in ("type", "format")}
    fmt = tool.get("format")
    if isinstance(fmt, Mapping):
        custom["format"] = ({"type": "grammar", "grammar": {k: v for k, v in fmt.items() if k != "type"}}
                            if fmt.get("type") == "grammar" else dict(fmt))
    return custom


def _response_format(fmt: Mapping[str, Any]) -> Json:
    """Chat's `response_format` for a Responses `text.format`: json_schema nests its name, schema and strict."""
    if fmt["type"] != "json_schema":
        return {"type": fmt["type"]}
    return {"type": "json_schema", "json_schema": {k: v for k, v in fmt.items() if k != "type"}}


# -- Anthropic Messages --

def _tool_input(arguments: str) -> JSONValue:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _anthropic(request: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> Json:
    system = [request["instructions"]] if "instructions" in request else []
    messages: list[Json] = []

    def block(role: str, content: Json) -> None:
        last = messages[-1] if messages else None
        if last is not None and last["role"] == role and isinstance(last["content"], list):  # one message
            last["content"].append(content)
        else:
            messages.append({"role": role, "content": [content]})

    for item in items:
        if item.get("role") in ("system", "developer"):
            system.append(item["text"])
        elif item.get("form") == "string" or item.get("bare"):  # a message of its own, content a plain string
            messages.append({"role": item["role"], "content": item["text"]})
        elif "role" in item:
            block(item["role"], {"type": "text", "text": item["text"]})
        elif item["type"] == "function_call":
            block("assistant", {"type": "tool_use", "id": item["call_id"], "name": item["name"],
                                "input": _tool_input(item["arguments"])})
        elif item["type"] == "function_call_output":  # a reasoning item has no Anthropic form
            result: Json = {"type": "tool_result", "tool_use_id": item["call_id"],
                            "content": _parts(item["output"], "text")}
            block("user", {**result, "is_error": True} if item.get("is_error") else result)
    body: Json = {"max_tokens": request.get("max_output_tokens", ANTHROPIC_MAX_TOKENS), "messages": messages}
    if len(system) == 1:
        body["system"] = system[0]
    elif system:  # instructions and system or developer messages: one text block each
        body["system"] = [{"type": "text", "text": text} for text in system]
    tools = [{**{k: t[k] for k in ("name", "description") if k in t}, "input_schema": t["parameters"],
              **({"strict": t["strict"]} if "strict" in t else {})}
             for t in request.get("tools", ()) if not _builtin(t)]
    tools += [{"type": "web_search_20250305", "name": "web_search"} for t in request.get("tools", ())
              if t.get("type") == "web_search"]
    if tools:
        body["tools"] = tools
    choice: Json | None = None
    if "tool_choice" in request:
        wanted = request["tool_choice"]
        choice = ({"type": "tool", "name": wanted["name"]} if isinstance(wanted, Mapping)
                  else {"type": {"auto": "auto", "none": "none", "required": "any"}[wanted]})
    if request.get("parallel_tool_calls") is False:
        choice = {**(choice or {"type": "auto"}), "disable_parallel_tool_use": True}
    if choice is not None:
        body["tool_choice"] = choice
    fmt = request["text"]["format"] if "text" in request else None
    if fmt is not None and fmt["type"] == "json_schema":  # Anthropic has no name, strict, nor json_object format
        body["output_config"] = {"format": {"type": "json_schema", "schema": fmt["schema"]}}
    return body


#: How each dialect's request is built from a scenario's (Responses-form) request: one row per row of the dialect
#: table (tests/harness/dialects/test_tables.py binds them).
REQUEST_BUILDERS: dict[str, Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], Json]] = {
    "responses": _responses, "chat": _chat, "anthropic": _anthropic,
}


def front_request(
    scenario_id: str, request: Mapping[str, Any], *, case: str, model: str = DEFAULT_MODEL,
    stream: bool | None = None, dialect: Dialect,
) -> dict[str, Any]:
    """The request body, in `dialect`, for one case of a scenario; `stream` overrides the scenario's own choice."""
    body = {"model": model, **REQUEST_BUILDERS[dialect](request, marked_input(scenario_id, request, case))}
    body["stream"] = request.get("stream", True) if stream is None else stream
    options = DIALECTS[dialect].stream_options
    if options is not None and body["stream"]:
        body["stream_options"] = dict(options)
    return body

