"""The Anthropic Messages renderer (dialect "anthropic"): a scenario as Anthropic streams Messages events
(docs/spec/anthropic.md §4; mirrors examples/captures/anthropic/openai/ok/*.sse), as a Message body, and as
Anthropic's HTTP error body."""

from __future__ import annotations

import base64
import json
from typing import Any

from callproof.harness.scenario import Chunked, FunctionCall, Scenario

from ._render import Dialect, Frame, RenderContext, Rendered, sse

__all__ = ["AnthropicRenderer"]

#: Anthropic writes pings with a space after the colon; every other event is compact.
_PING = b'event: ping\ndata: {"type": "ping"}\n\n'
_STOP = {"length": "max_tokens", "content_filter": "refusal"}
#: The error types of Anthropic's error shape (SDK shared/error_type.py, plus request_too_large from the docs).
_ERROR_TYPES = frozenset((
    "invalid_request_error", "authentication_error", "billing_error", "permission_error", "not_found_error",
    "request_too_large", "rate_limit_error", "timeout_error", "api_error", "overloaded_error",
))
#: HTTP status -> error type (docs.claude.com/en/api/errors).
_STATUS_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
    404: "not_found_error", 408: "timeout_error", 413: "request_too_large", 429: "rate_limit_error",
    500: "api_error", 502: "api_error", 503: "api_error", 504: "timeout_error", 529: "overloaded_error",
}
_DEFAULT_ERROR_MESSAGE = "Internal server error"


def _event(payload: dict[str, Any], *, content: str | None = None) -> Frame:
    data = sse(payload, event=str(payload["type"]))
    if content is None:
        return Frame(data)
    return Frame(data, content=True, tokens=len(content) / 4)


def _tool_id(call: FunctionCall) -> str:
    """The call's id; a call without one gets an empty id (the block must carry the key)."""
    return call.call_id if call.call_id is not None else ""


def _input(call: FunctionCall) -> dict[str, Any]:
    """The tool_use input: the arguments parsed, or {} when they are not a JSON object."""
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _blocks(scenario: Scenario) -> list[tuple[int, Chunked | FunctionCall]]:
    """The output items a Message can hold, with their output index: text, reasoning (thinking), refusal (text)
    and function calls; the block index is the position in this list."""
    return [(i, o) for i, o in enumerate(scenario.output) if isinstance(o, Chunked | FunctionCall)]


def _thinking(item: Chunked) -> tuple[str, tuple[str, ...]]:
    """A reasoning item's thinking text and its fragments: the text, or the summary parts joined by blank lines."""
    if item.text or not item.summary:
        return item.text, item.fragments
    pieces: list[str] = []
    for number, part in enumerate(item.summary_fragments):
        pieces += (["\n\n"] if number else []) + list(part)
    return "\n\n".join(item.summary), tuple(pieces)


def _refuses(scenario: Scenario) -> bool:
    return any(isinstance(o, Chunked) and o.type == "refusal" for o in scenario.output)


def _signature(scenario: Scenario, ctx: RenderContext, index: int) -> str:
    item = scenario.output[index]
    if isinstance(item, Chunked) and item.encrypted_content:
        return item.encrypted_content
    digest = "".join(ctx.ident(scenario, f"signature/{part}", index, 64) for part in range(3))
    return base64.b64encode(bytes.fromhex(digest)).decode()


def _stream_error(scenario: Scenario) -> dict[str, Any]:
    error = scenario.error or {}
    kind = error.get("type", "api_error")
    return {"type": "error", "error": {"type": kind if kind in _ERROR_TYPES else "api_error",
                                       "message": error.get("message", _DEFAULT_ERROR_MESSAGE)}}


class AnthropicRenderer:
    """Renders scenarios as Anthropic Messages.

    Stream: `event: <type>` + `data:` blocks. message_start {message: {id msg_..., type, role, model,
    content: [], stop_reason: null, stop_sequence: null, usage}}; then one content block per output item, in
    output order: content_block_start (text {"type": "text", "text": ""}; tool_use {id, name, input: {}};
    thinking {thinking: "", signature: ""} for a reasoning item), its content_block_delta events (text_delta;
    input_json_delta partial_json, led by one empty partial_json as the API sends it; thinking_delta then
    one signature_delta), content_block_stop. A `ping` follows the first content_block_start (right after
    message_start when there is no block), where the API sends it. Then message_delta {delta: {stop_reason,
    stop_sequence: null}, usage: {output_tokens}} and message_stop; no [DONE].

    Blocks are sequential: Anthropic never interleaves content blocks, so when scenario.steps interleave items
    (parallel calls streamed round-robin), this rendering still sends each block whole, one after another in
    output order; only the order of an item's own fragments is kept.

    A tool_use id is the call's call_id (an empty id when it is None: ANT-TOOL-001, which the scenario declares);
    arguments "" send no input_json_delta of their own (input {} on the start event; only fragments the
    scenario lists explicitly, e.g. one "", go out). Arguments that are not a JSON object stream as they are
    (ANT-TOOL-002 on completed endings).

    Refusal output: a text block with the refusal text; the completed turn then ends with stop_reason "refusal"
    and stop_details {type: "refusal", category: null, explanation: null} (a content_filter ending has no
    stop_details). Reasoning: a thinking block whose thinking is the reasoning text, or, when the text is "",
    the summary parts joined by blank lines; its signature_delta carries encrypted_content when the scenario
    gives one. Custom tool, MCP, shell and code interpreter calls have no Messages block and are not rendered
    (their scenarios play in the responses dialect only); the block indexes count the rendered blocks.

    Endings: completed -> stop_reason "tool_use" when the output has calls, else "end_turn"; length ->
    "max_tokens"; content_filter -> "refusal"; failed -> the last block is left open and an `event: error`
    {"type": "error", "error": {type, message}} ends the stream (scenario.error's type when it is an Anthropic
    error type, else api_error), with no message_delta or message_stop.

    Usage: message_start carries input_tokens (scenario input minus cached), cache_read_input_tokens (cached)
    and 1 output token; message_delta the cumulative output_tokens.

    Body: the Message with the same blocks (tool_use input parsed from the arguments; arguments that are not a
    JSON object cannot be represented in a Message and become {}), stop_reason and usage; a failed ending
    answers the error body instead.
    """

    dialect: Dialect = "anthropic"

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        usage = scenario.usage
        frames = [_event({"type": "message_start", "message": {
            "id": self._id(scenario, ctx), "type": "message", "role": "assistant", "model": ctx.model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {**self._usage(scenario), "output_tokens": min(1, usage.output_tokens)},
        }})]
        blocks = _blocks(scenario)
        if not blocks:
            frames.append(Frame(_PING))
        fragments: dict[int, list[int]] = {i: [] for i in range(len(scenario.output))}
        for step in scenario.steps:
            fragments[step.output].append(step.fragment)
        failed = scenario.ending == "failed"
        for block, (index, item) in enumerate(blocks):
            frames.append(_event({"type": "content_block_start", "index": block,
                                  "content_block": self._start_block(item)}))
            if block == 0:
                frames.append(Frame(_PING))
            order = fragments[index]
            if isinstance(item, Chunked) and item.type == "reasoning" and not item.text:
                order = list(range(len(_thinking(item)[1])))
            frames += self._deltas(scenario, ctx, (block, index), item, order)
            if not (failed and block == len(blocks) - 1):
                frames.append(_event({"type": "content_block_stop", "index": block}))
        if failed:
            frames.append(_event(_stream_error(scenario)))
            return Rendered(self.dialect, tuple(frames))
        frames.append(_event({"type": "message_delta", "delta": {
            "stop_reason": self._stop_reason(scenario), "stop_sequence": None, **self._stop_details(scenario)},
            "usage": {"output_tokens": usage.output_tokens}}))
        frames.append(_event({"type": "message_stop"}))
        return Rendered(self.dialect, tuple(frames))

    @staticmethod
    def _start_block(item: Chunked | FunctionCall) -> dict[str, Any]:
        if isinstance(item, FunctionCall):
            return {"type": "tool_use", "id": _tool_id(item), "name": item.name, "input": {}}
        if item.type == "reasoning":
            return {"type": "thinking", "thinking": "", "signature": ""}
        return {"type": "text", "text": ""}

    @staticmethod
    def _deltas(scenario: Scenario, ctx: RenderContext, where: tuple[int, int], item: Chunked | FunctionCall,
                order: list[int]) -> list[Frame]:
        block, index = where

        def delta(body: dict[str, Any], content: str | None) -> Frame:
            return _event({"type": "content_block_delta", "index": block, "delta": body}, content=content)

        if isinstance(item, FunctionCall):
            frames = [delta({"type": "input_json_delta", "partial_json": ""}, None)] if item.arguments else []
            return frames + [delta({"type": "input_json_delta", "partial_json": item.fragments[j]}, item.fragments[j])
                             for j in order]
        if item.type != "reasoning":
            return [delta({"type": "text_delta", "text": item.fragments[j]}, item.fragments[j]) for j in order]
        pieces = _thinking(item)[1]
        frames = [delta({"type": "thinking_delta", "thinking": pieces[j]}, pieces[j]) for j in order]
        return [*frames, delta({"type": "signature_delta", "signature": _signature(scenario, ctx, index)}, None)]

    @staticmethod
    def _id(scenario: Scenario, ctx: RenderContext) -> str:
        return "msg_" + ctx.ident(scenario, "msg", 0, 24)

    @staticmethod
    def _usage(scenario: Scenario) -> dict[str, Any]:
        usage = scenario.usage
        return {"input_tokens": max(0, usage.input_tokens - usage.cached_tokens), "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": usage.cached_tokens, "output_tokens": usage.output_tokens,
                "service_tier": "standard"}

    @staticmethod
    def _stop_reason(scenario: Scenario) -> str:
        if scenario.ending in _STOP:
            return _STOP[scenario.ending]
        if _refuses(scenario):
            return "refusal"
        return "tool_use" if scenario.calls else "end_turn"

    @staticmethod
    def _stop_details(scenario: Scenario) -> dict[str, Any]:
        """A refusal item's turn says why it stopped (RefusalStopDetails); a content_filter ending does not."""
        if scenario.ending == "completed" and _refuses(scenario):
            return {"stop_details": {"type": "refusal", "category": None, "explanation": None}}
        return {}

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        if scenario.ending == "failed":
            return _stream_error(scenario)
        content: list[dict[str, Any]] = []
        for index, item in _blocks(scenario):
            if isinstance(item, FunctionCall):
                content.append({"type": "tool_use", "id": _tool_id(item), "name": item.name, "input": _input(item)})
            elif item.type == "reasoning":
                content.append({"type": "thinking", "thinking": _thinking(item)[0],
                                "signature": _signature(scenario, ctx, index)})
            else:
                content.append({"type": "text", "text": item.text})
        return {
            "id": self._id(scenario, ctx), "type": "message", "role": "assistant", "model": ctx.model,
            "content": content, "stop_reason": self._stop_reason(scenario), "stop_sequence": None,
            **self._stop_details(scenario), "usage": self._usage(scenario),
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Anthropic's error shape {"type": "error", "error": {type, message}} with the type Anthropic documents
        for `status` (429 rate_limit_error, 529 overloaded_error, other 5xx api_error, other 4xx
        invalid_request_error)."""
        kind = _STATUS_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def tool_name_error(self, index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
        """Anthropic's validator wording: `<path>: <what>`."""
        what = {"missing": "Field required", "empty": "String should have at least 1 character"}.get(
            problem, "Input should be a valid string")
        return f"tools.{index}.custom.name: {what}", {}
