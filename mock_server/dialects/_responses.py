"""The Responses renderer (dialect "responses"): a scenario as the OpenAI Responses API streams it
(docs/spec/responses.md §2; mirrors examples/captures/responses/openai/ok/*.sse), as the non-stream Response body, and
as OpenAI's HTTP error body."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness.scenario import FunctionCall, Scenario, Usage

from ._render import Dialect, Frame, RenderContext, Rendered, openai_error_body, sse

__all__ = ["ResponsesRenderer"]

_DEFAULT_ERROR = {
    "code": "server_error",
    "message": "The server had an error processing your request. Sorry about that! You can retry your request.",
}
_INCOMPLETE_REASON = {"length": "max_output_tokens", "content_filter": "content_filter"}
_TERMINAL = {"completed": "response.completed", "length": "response.incomplete",
             "content_filter": "response.incomplete", "failed": "response.failed"}
_STATUS = {"completed": "completed", "length": "incomplete", "content_filter": "incomplete", "failed": "failed"}
_ITEM_PREFIX = {"text": "msg", "reasoning": "rs", "function_call": "fc"}
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

_Action = tuple[Literal["add", "fragment", "close"], int, int]


# -- the order of events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Plan:
    """What happens on the wire, in order: items added, fragments sent, items closed.

    `actions` are ("add", output, 0), ("fragment", output, fragment index) and ("close", output, 0); `cut` are
    the items still open when the model stopped (the last group): with a length or content_filter ending they
    close with status "incomplete", with a failed ending they are never closed."""

    actions: tuple[_Action, ...]
    cut: frozenset[int]


def _plan(scenario: Scenario) -> _Plan:
    """Group items whose fragments interleave; each group's items are added right before their first fragment
    (in output order: an item is never added after a later one) and all close, in output order, right after the
    group's last fragment. Items without fragments are added and closed on their own, in output order."""
    steps = scenario.steps
    count = len(scenario.output)
    first = [len(steps)] * count
    last = [-1] * count
    for position, step in enumerate(steps):
        first[step.output] = min(first[step.output], position)
        last[step.output] = position
    # An item is added before any later item is: its start is the earliest first fragment from it on.
    start = [0] * count
    earliest = len(steps)
    for index in reversed(range(count)):
        earliest = min(earliest, first[index])
        start[index] = earliest
    # An item without fragments ends right where it starts, before the fragment at its start position.
    end = [last[i] + 0.0 if last[i] >= 0 else start[i] - 0.5 for i in range(count)]
    groups: list[list[int]] = []
    group_end = float("-inf")
    for index in range(count):
        if groups and start[index] <= group_end:
            groups[-1].append(index)
            group_end = max(group_end, end[index])
        else:
            groups.append([index])
            group_end = end[index]
    actions: list[_Action] = []
    for group in groups:
        high = max(end[i] for i in group)
        pending = list(group)
        for position in range(start[group[0]], math.floor(high) + 1):
            while pending and start[pending[0]] <= position:
                actions.append(("add", pending.pop(0), 0))
            step = steps[position]
            actions.append(("fragment", step.output, step.fragment))
        actions += [("add", index, 0) for index in pending]
        actions += [("close", index, 0) for index in group]
    return _Plan(tuple(actions), frozenset(groups[-1]) if groups else frozenset())


# -- the Response object -------------------------------------------------------------------------------------


def _tool(raw: object) -> dict[str, Any] | None:
    """A request tool in the Responses shape: function tools flat {type, name, description, parameters, strict}
    (Chat's nested `function` and Anthropic's `input_schema` are flattened too); other typed tools as sent."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type", "function")
    nested = raw.get("function")
    function = nested if isinstance(nested, dict) else raw
    if kind not in ("function", "custom") or (kind == "custom" and "input_schema" not in raw):
        return copy.deepcopy(raw) if isinstance(kind, str) else None
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    description = function.get("description")
    parameters = function.get("parameters", function.get("input_schema"))
    strict = function.get("strict")
    return {
        "type": "function",
        "name": name,
        "description": description if isinstance(description, str) else None,
        "parameters": copy.deepcopy(parameters) if isinstance(parameters, dict) else None,
        # The Responses API defaults function tools to strict mode and echoes it.
        "strict": strict if isinstance(strict, bool) else True,
    }


def _tool_choice(raw: object) -> Any:
    if raw in ("none", "auto", "required"):
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("type"), str):
        function = raw.get("function")
        if raw["type"] == "function" and isinstance(function, dict) and isinstance(function.get("name"), str):
            return {"type": "function", "name": function["name"]}  # Chat's nested form, flattened
        return copy.deepcopy(raw)
    return "auto"


def _number(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _echo(request: dict[str, Any]) -> dict[str, Any]:
    """The request parameters a Response echoes, with OpenAI's defaults for what the request leaves out."""
    tools = request.get("tools")
    reasoning = request.get("reasoning")
    text = request.get("text")
    text_format = text.get("format") if isinstance(text, dict) else None
    tier = request.get("service_tier")
    instructions = request.get("instructions")
    truncation = request.get("truncation")
    metadata = request.get("metadata")
    return {
        "instructions": copy.deepcopy(instructions) if isinstance(instructions, str | list) else None,
        "max_output_tokens": _count(request.get("max_output_tokens")),
        "max_tool_calls": _count(request.get("max_tool_calls")),
        "parallel_tool_calls": request.get("parallel_tool_calls") is not False,
        "presence_penalty": _number(request.get("presence_penalty"), 0.0),
        "frequency_penalty": _number(request.get("frequency_penalty"), 0.0),
        "previous_response_id": _string(request.get("previous_response_id")),
        "prompt_cache_key": _string(request.get("prompt_cache_key")),
        "reasoning": {
            "effort": _string(reasoning.get("effort")) if isinstance(reasoning, dict) else None,
            "summary": _string(reasoning.get("summary")) if isinstance(reasoning, dict) else None,
        },
        "safety_identifier": _string(request.get("safety_identifier")),
        "service_tier": tier if isinstance(tier, str) and tier not in ("auto", "default") else "default",
        "store": request.get("store") is not False,
        "temperature": _number(request.get("temperature"), 1.0),
        "text": {
            "format": copy.deepcopy(text_format)
            if isinstance(text_format, dict) and isinstance(text_format.get("type"), str) else {"type": "text"},
            "verbosity": (_string(text.get("verbosity")) or "medium") if isinstance(text, dict) else "medium",
        },
        "tool_choice": _tool_choice(request.get("tool_choice")),
        "tools": [t for t in (_tool(raw) for raw in tools) if t is not None] if isinstance(tools, list) else [],
        "top_logprobs": _count(request.get("top_logprobs")) or 0,
        "top_p": _number(request.get("top_p"), 1.0),
        "truncation": truncation if truncation in ("auto", "disabled") else "disabled",
        "user": _string(request.get("user")),
        "metadata": copy.deepcopy(metadata) if isinstance(metadata, dict) else {},
        "background": request.get("background") is True,
    }


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": usage.cached_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _stream_error(scenario: Scenario) -> dict[str, str]:
    error = scenario.error or {}
    return {"code": error.get("code", _DEFAULT_ERROR["code"]),
            "message": error.get("message", _DEFAULT_ERROR["message"])}


# -- rendering -----------------------------------------------------------------------------------------------


class _Stream:
    """Builds one rendering: numbered frames and the done items, in the plan's order."""

    def __init__(self, scenario: Scenario, ctx: RenderContext) -> None:
        self.scenario = scenario
        self.ctx = ctx
        self.echo = _echo(ctx.request)
        self.response_id = "resp_" + ctx.ident(scenario, "resp", 0, 48)
        options = ctx.request.get("stream_options")
        self.obfuscate = not (isinstance(options, dict) and options.get("include_obfuscation") is False)
        include = ctx.request.get("include")
        self.encrypted = isinstance(include, list) and "reasoning.encrypted_content" in include
        self.frames: list[Frame] = []
        self.done: dict[int, dict[str, Any]] = {}

    # ids and pieces
    def item_id(self, index: int) -> str:
        prefix = _ITEM_PREFIX[self.scenario.output[index].type]
        return f"{prefix}_" + self.ctx.ident(self.scenario, prefix, index, 48)

    def obfuscation(self) -> str:
        """OpenAI pads each delta with a random-length string (stream_options.include_obfuscation, on by
        default); here its length and value derive from the event's position, so renders stay identical."""
        digest = self.ctx.ident(self.scenario, "obfuscation", len(self.frames), 64)
        size = 2 + int(digest[:2], 16) % 14
        return "".join(_B62[int(digest[2 + 2 * i : 4 + 2 * i], 16) % 62] for i in range(size))

    def emit(self, type_: str, fields: dict[str, Any], *, content: str | None = None, delta: bool = False) -> None:
        payload: dict[str, Any] = {"type": type_, "sequence_number": len(self.frames), **fields}
        if delta and self.obfuscate:
            payload["obfuscation"] = self.obfuscation()
        data = sse(payload, event=type_)
        if content:
            self.frames.append(Frame(data, content=True, tokens=len(content) / 4))
        else:
            self.frames.append(Frame(data))

    def response(self, status: str) -> dict[str, Any]:
        """The Response object in `status` (in_progress while streaming, then the ending's status)."""
        final = status != "in_progress"
        ending = self.scenario.ending
        echo = self.echo
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": self.ctx.created,
            "status": status,
            "background": echo["background"],
            "completed_at": self.ctx.created + 1 if status == "completed" else None,
            "error": _stream_error(self.scenario) if status == "failed" else None,
            "incomplete_details": {"reason": _INCOMPLETE_REASON[ending]} if status == "incomplete" else None,
            "instructions": echo["instructions"],
            "max_output_tokens": echo["max_output_tokens"],
            "max_tool_calls": echo["max_tool_calls"],
            "model": self.ctx.model,
            "output": [copy.deepcopy(self.done[i]) for i in sorted(self.done)] if final else [],
            "parallel_tool_calls": echo["parallel_tool_calls"],
            "presence_penalty": echo["presence_penalty"],
            "frequency_penalty": echo["frequency_penalty"],
            "previous_response_id": echo["previous_response_id"],
            "prompt_cache_key": echo["prompt_cache_key"],
            "reasoning": copy.deepcopy(echo["reasoning"]),
            "safety_identifier": echo["safety_identifier"],
            "service_tier": echo["service_tier"],
            "store": echo["store"],
            "temperature": echo["temperature"],
            "text": copy.deepcopy(echo["text"]),
            "tool_choice": copy.deepcopy(echo["tool_choice"]),
            "tools": copy.deepcopy(echo["tools"]),
            "top_logprobs": echo["top_logprobs"],
            "top_p": echo["top_p"],
            "truncation": echo["truncation"],
            "usage": _usage(self.scenario.usage) if status in ("completed", "incomplete") else None,
            "user": echo["user"],
            "metadata": copy.deepcopy(echo["metadata"]),
        }

    # the items
    def add(self, index: int) -> None:
        item = self.scenario.output[index]
        item_id = self.item_id(index)
        if isinstance(item, FunctionCall):
            added: dict[str, Any] = {"id": item_id, "type": "function_call", "status": "in_progress",
                                     "arguments": ""}
            if item.call_id is not None:
                added["call_id"] = item.call_id
            added["name"] = item.name
            self.emit("response.output_item.added", {"output_index": index, "item": added})
        elif item.type == "text":
            self.emit("response.output_item.added", {"output_index": index, "item": {
                "id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})
            self.emit("response.content_part.added", {**self.where(index), "content_index": 0,
                                                      "part": _text_part("")})
        else:
            self.emit("response.output_item.added", {"output_index": index, "item": {
                "id": item_id, "type": "reasoning", "summary": []}})
            if item.fragments:
                self.emit("response.reasoning_summary_part.added", {**self.where(index), "summary_index": 0,
                                                                    "part": _summary_part("")})

    def where(self, index: int) -> dict[str, Any]:
        return {"item_id": self.item_id(index), "output_index": index}

    def fragment(self, index: int, fragment: int) -> None:
        item = self.scenario.output[index]
        piece = item.fragments[fragment]
        if isinstance(item, FunctionCall):
            if not item.arguments_in_done_only:
                self.emit("response.function_call_arguments.delta", {**self.where(index), "delta": piece},
                          content=piece, delta=True)
        elif item.type == "text":
            self.emit("response.output_text.delta",
                      {**self.where(index), "content_index": 0, "delta": piece, "logprobs": []},
                      content=piece, delta=True)
        else:
            self.emit("response.reasoning_summary_text.delta",
                      {**self.where(index), "summary_index": 0, "delta": piece}, content=piece, delta=True)

    def close(self, index: int, status: str) -> None:
        item = self.scenario.output[index]
        where = self.where(index)
        done: dict[str, Any]
        if isinstance(item, FunctionCall):
            # Without argument deltas the done event is the one that carries the arguments.
            carried = item.arguments if item.arguments_in_done_only else None
            self.emit("response.function_call_arguments.done",
                      {"item_id": where["item_id"], "name": item.name, "output_index": index,
                       "arguments": item.arguments}, content=carried)
            done = {"id": where["item_id"], "type": "function_call", "status": status, "arguments": item.arguments}
            if item.call_id is not None:
                done["call_id"] = item.call_id
            done["name"] = item.name
        elif item.type == "text":
            self.emit("response.output_text.done",
                      {**where, "content_index": 0, "text": item.text, "logprobs": []})
            self.emit("response.content_part.done", {**where, "content_index": 0, "part": _text_part(item.text)})
            done = {"id": where["item_id"], "type": "message", "status": status, "content": [_text_part(item.text)],
                    "role": "assistant"}
        else:
            summary = []
            if item.fragments:
                self.emit("response.reasoning_summary_text.done", {**where, "summary_index": 0, "text": item.text})
                self.emit("response.reasoning_summary_part.done",
                          {**where, "summary_index": 0, "part": _summary_part(item.text)})
                summary = [_summary_part(item.text)]
            done = {"id": where["item_id"], "type": "reasoning", "summary": summary}
            if self.encrypted:
                done["encrypted_content"] = "gAAAAA" + self.ctx.ident(self.scenario, "encrypted_content", index, 64)
            if status == "incomplete":
                done["status"] = status
        self.emit("response.output_item.done", {"output_index": index, "item": done})
        self.done[index] = done


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def _summary_part(text: str) -> dict[str, Any]:
    return {"type": "summary_text", "text": text}


def _render(scenario: Scenario, ctx: RenderContext) -> _Stream:
    out = _Stream(scenario, ctx)
    status = _STATUS[scenario.ending]
    plan = _plan(scenario)
    out.emit("response.created", {"response": out.response("in_progress")})
    out.emit("response.in_progress", {"response": out.response("in_progress")})
    for kind, index, fragment in plan.actions:
        if kind == "add":
            out.add(index)
        elif kind == "fragment":
            out.fragment(index, fragment)
        elif status == "completed" or index not in plan.cut:
            out.close(index, "completed")
        elif status == "incomplete":
            out.close(index, "incomplete")
        # a failed ending leaves the items it cut open
    out.emit(_TERMINAL[scenario.ending], {"response": out.response(status)})
    return out


class ResponsesRenderer:
    """Renders scenarios as the OpenAI Responses API.

    Stream: `event: <type>` + one `data:` line per event, `sequence_number` from 0, no `[DONE]`.
    response.created and response.in_progress carry the full Response (status in_progress, output [], usage
    null) echoing the model and the request's tools (flat function tools), tool_choice, parallel_tool_calls,
    instructions, max_output_tokens, temperature, text, reasoning ... (OpenAI's defaults where the request is
    silent). Per output item:
    - text: output_item.added (message, content [], status in_progress), content_part.added (output_text ""),
      one output_text.delta per fragment (logprobs [], obfuscation), output_text.done, content_part.done,
      output_item.done;
    - function_call: output_item.added (arguments "", status in_progress, call_id, name), one
      function_call_arguments.delta per fragment (none when `arguments_in_done_only`), function_call_arguments.done
      (with name), output_item.done; a call without call_id has no call_id key anywhere (breaks RSP-ID-004);
    - reasoning: output_item.added (summary []), reasoning_summary_part.added, one reasoning_summary_text.delta
      per fragment, reasoning_summary_text.done, reasoning_summary_part.done, output_item.done (summary
      [summary_text]); an empty reasoning item streams no summary part, as when no summary was requested.
    Items are added right before their first fragment and, in output order, closed right after their last one;
    items whose fragments interleave (scenario.steps) are open together and close together after the last
    fragment of the group. Item ids are msg_/fc_/rs_ + 48 hex from ctx.ident; the response id resp_ + 48 hex.
    Chat/Anthropic-only quirks (name_chunk, id_on, name_on_later, arguments_before_name) cannot be expressed
    in this dialect and are ignored: the name goes whole on the item.

    Endings: completed -> response.completed (usage, completed_at); length / content_filter -> the items still
    open at the end (the last group) close with status "incomplete", then response.incomplete with
    incomplete_details.reason max_output_tokens / content_filter; failed -> the items still open at the end
    are left open and response.failed follows with response.error {code, message} (scenario.error or OpenAI's
    server_error) and usage null. The terminal Response's output holds the done items in output order.

    Body: the terminal event's Response. Error body: {"error": {message, type, param: null, code}} with the
    type and code OpenAI uses for the status.
    """

    dialect: Dialect = "responses"

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        return Rendered(self.dialect, tuple(_render(scenario, ctx).frames))

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        out = _render(scenario, ctx)
        return out.response(_STATUS[scenario.ending])

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error shape {"error": {message, type, param, code}} (429: type "requests", code
        "rate_limit_exceeded"; 401: code "invalid_api_key"; 404: code "model_not_found"; 5xx: server_error)."""
        return openai_error_body(status, message)
