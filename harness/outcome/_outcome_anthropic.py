"""What a client holds after an Anthropic Messages stream or body (docs/spec/anthropic.md): text from text blocks,
a tool call per `tool_use` block (its joined `partial_json`, or its start `input` when that is empty), done on the
wire at its `content_block_stop`, and the status from the `stop_reason` of `message_delta`; the response ends
normally only with the `message_stop` after it (a stream cut between the two is cut, though its calls are done, and
its `settled` result is the Message the anthropic SDK returns: docs/spec/verdicts.md §1).

A turn that ends with stop_reason `refusal` and `stop_details` {type: refusal} is the model refusing: completed,
its text is the refusal (`Result.refusal`), not answer text; without stop_details it is a content filter's cut
(incomplete, content_filter). Thinking blocks' text, joined by a blank line, is `Result.reasoning`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from callproof.harness.check import SSEEvent

from ._outcome import Call, Result, Status

__all__ = ["STOP_REASONS", "anthropic_body", "anthropic_events", "stopped_refusing"]

#: stop_reason -> (status, incomplete reason in the Responses terms `expect` uses).
STOP_REASONS: dict[str, tuple[Status, str | None]] = {
    "end_turn": ("completed", None), "tool_use": ("completed", None), "stop_sequence": ("completed", None),
    "pause_turn": ("completed", None), "max_tokens": ("incomplete", "max_output_tokens"),
    "model_context_window_exceeded": ("incomplete", "max_output_tokens"), "refusal": ("incomplete", "content_filter"),
}
#: What ended a turn whose stop_reason is "refusal" (`Result.terminal`).
_REFUSAL = "stop_reason refusal"


class _Block:
    __slots__ = ("deltas", "id", "input", "name", "text", "thinking", "tool")

    def __init__(self, block: Mapping[str, Any]) -> None:
        self.tool = block.get("type") == "tool_use"
        self.thinking = str(block.get("thinking", "")) if block.get("type") == "thinking" else None
        self.id = block.get("id") if isinstance(block.get("id"), str) else None
        self.name = str(block.get("name", ""))
        self.input = block.get("input", {})
        self.text = str(block.get("text", "")) if block.get("type") == "text" else ""
        self.deltas: list[str] = []

    def call(self) -> Call:
        joined = "".join(self.deltas)  # as the SDK: empty deltas leave the start block's input (usually {})
        arguments = joined if joined else json.dumps(self.input)
        return Call(self.id, self.name, arguments)


def _error_text(payload: Mapping[str, Any]) -> str:
    error = payload.get("error")
    if isinstance(error, Mapping):
        return str(error.get("message", json.dumps(error)))
    return str(error)


def _stopped(reason: str, text: str, calls: tuple[Call, ...], last_is_tool: bool, *, refused: bool = False,
             reasoning: str = "") -> Result:
    """The result of a message that stopped; the limit (max_tokens) cuts the block being written when it struck,
    so when that was a tool_use block its call is not complete. `refused`: stop_details says the model refused."""
    if reason == "refusal" and refused:
        return Result("completed", "", calls, _REFUSAL, refusal=text, reasoning=reasoning)
    status, why = STOP_REASONS.get(reason, ("error", None))
    if status == "incomplete" and last_is_tool:
        calls = calls[:-1]
    error = None if status != "error" else f"unknown stop_reason {reason!r}"
    return Result(status, text, calls, f"stop_reason {reason}", why, error, reasoning=reasoning)


def stopped_refusing(result: Result) -> bool:
    """Whether this is an Anthropic turn that stopped with "refusal" and `stop_details` of type refusal: the model
    refusing (its text, maybe empty, is `Result.refusal`)."""
    return result.status == "completed" and result.terminal == _REFUSAL


def _refused(details: object) -> bool:
    return isinstance(details, Mapping) and details.get("type") == "refusal"


def _thinking(blocks: Iterable[_Block]) -> str:
    return "\n\n".join(b.thinking for b in blocks if b.thinking)


def anthropic_events(events: Iterable[SSEEvent]) -> Result:
    """The result a client holds after reading these Messages stream events."""
    blocks: dict[int, _Block] = {}
    done: list[Call] = []
    stopped_last = False  # whether the last started block was a tool_use block that has stopped (its call is done)
    reason: str | None = None
    refused = False
    stopped = False
    for event in events:
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(payload, Mapping):
            continue
        kind = payload.get("type")
        index = payload.get("index")
        if kind == "error":
            text = "".join(b.text for b in blocks.values())
            return Result("error", text, tuple(done), "error", error=_error_text(payload))
        if kind == "content_block_start" and isinstance(index, int):
            start = payload.get("content_block")
            blocks[index] = _Block(start if isinstance(start, Mapping) else {})
            stopped_last = False
        elif kind == "content_block_delta" and index in blocks:
            delta = payload.get("delta")
            if isinstance(delta, Mapping):
                if isinstance(delta.get("text"), str):
                    blocks[index].text += delta["text"]
                if isinstance(delta.get("partial_json"), str):
                    blocks[index].deltas.append(delta["partial_json"])
                if isinstance(delta.get("thinking"), str) and blocks[index].thinking is not None:
                    blocks[index].thinking = f"{blocks[index].thinking}{delta['thinking']}"
        elif kind == "content_block_stop" and index in blocks and blocks[index].tool:
            done.append(blocks[index].call())
            stopped_last = index == max(blocks)
        elif kind == "message_stop":
            stopped = True
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, Mapping) and isinstance(delta.get("stop_reason"), str):
                reason = delta["stop_reason"]
                refused = _refused(delta.get("stop_details"))
    text = "".join(blocks[i].text for i in sorted(blocks))
    if reason is not None:
        result = _stopped(reason, text, tuple(done), stopped_last, refused=refused,
                          reasoning=_thinking(blocks[i] for i in sorted(blocks)))
        if stopped:
            return result
        return Result("error", text, result.calls, "cut", error=f"the stream ended after stop_reason {reason} "
                      "without message_stop", settled=result)
    return Result("error", text, tuple(done), "cut", error="the stream ended without a stop_reason")


def anthropic_body(body: Mapping[str, Any]) -> Result:
    """The result of a non-stream Message."""
    if body.get("type") == "error":
        return Result("error", "", (), "error", error=_error_text(body))
    text: list[str] = []
    calls: list[Call] = []
    thoughts: list[_Block] = []
    last_is_tool = False
    for block in body.get("content") or ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "thinking":
            thoughts.append(_Block(block))
        last_is_tool = block.get("type") == "tool_use"
        if block.get("type") == "text":
            text.append(str(block.get("text", "")))
        elif last_is_tool:
            calls.append(_Block(block).call())
    reason = body.get("stop_reason")
    if not isinstance(reason, str):
        return Result("error", "".join(text), (), "no stop_reason", error="the message has no stop_reason")
    return _stopped(reason, "".join(text), tuple(calls), last_is_tool, refused=_refused(body.get("stop_details")),
                    reasoning=_thinking(thoughts))
