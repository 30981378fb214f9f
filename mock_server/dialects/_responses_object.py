"""The Response object of the Responses dialect: the request parameters it echoes (with OpenAI's defaults for
what the request leaves out), its usage and its error, and the object itself in each status."""

from __future__ import annotations

import copy
from typing import Any

from callproof.harness import JSONData
from callproof.harness.scenario import Scenario, Usage

from ._render import RenderContext

__all__ = ["INCOMPLETE_REASON", "echo_request", "response_object", "stream_error", "usage_object"]

_DEFAULT_ERROR = {
    "code": "server_error",
    "message": "The server had an error processing your request. Sorry about that! You can retry your request.",
}
#: A scenario ending -> the Response's incomplete_details.reason.
INCOMPLETE_REASON = {"length": "max_output_tokens", "content_filter": "content_filter"}


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


def _tool_choice(raw: object) -> JSONData:
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


def echo_request(request: dict[str, Any]) -> dict[str, Any]:
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


def usage_object(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": usage.cached_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def stream_error(scenario: Scenario) -> dict[str, str]:
    error = scenario.error or {}
    return {"code": error.get("code", _DEFAULT_ERROR["code"]),
            "message": error.get("message", _DEFAULT_ERROR["message"])}


def response_object(
    scenario: Scenario,
    ctx: RenderContext,
    echo: dict[str, Any],
    response_id: str,
    status: str,
    done: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """The Response object in `status` (in_progress while streaming, then the ending's status); once final, its
    output holds the `done` items in output order."""
    final = status != "in_progress"
    return {
        "id": response_id,
        "object": "response",
        "created_at": ctx.created,
        "status": status,
        "background": echo["background"],
        "completed_at": ctx.created + 1 if status == "completed" else None,
        "error": stream_error(scenario) if status == "failed" else None,
        "incomplete_details": {"reason": INCOMPLETE_REASON[scenario.ending]} if status == "incomplete" else None,
        "instructions": echo["instructions"],
        "max_output_tokens": echo["max_output_tokens"],
        "max_tool_calls": echo["max_tool_calls"],
        "model": ctx.model,
        "output": [copy.deepcopy(done[i]) for i in sorted(done)] if final else [],
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
        "usage": usage_object(scenario.usage) if status in ("completed", "incomplete") else None,
        "user": echo["user"],
        "metadata": copy.deepcopy(echo["metadata"]),
    }
