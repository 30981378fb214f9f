"""What an implementation produced, in the terms a scenario's `expect` uses: status, text and completed tool calls.

Read here from a Responses stream (its terminal event's response, else the items done on the wire), from a
non-stream Responses body, or from a client adapter's result object (docs/spec/contracts.md §5); Chat and Anthropic
streams in `_outcome_chat` and `_outcome_anthropic`, all three behind `_wire`. The single-stream rules judge how
the stream was built; this is only what a client ends up holding.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness._types import JSONData
from callproof.harness.check import SSEEvent

__all__ = [
    "Call", "Result", "Status", "responses_body", "responses_events", "result_of_adapter", "status_matches",
]

#: How a response ended. `error`: an HTTP error, an `error` event, or a stream cut before its terminal event.
Status = Literal["completed", "incomplete", "failed", "error"]
_TERMINAL: dict[str, Status] = {
    "response.completed": "completed", "response.incomplete": "incomplete", "response.failed": "failed",
}


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call as the client holds it: `arguments` is the JSON text the client hands to the tool; for a custom
    tool call (`kind` "custom") the raw input text."""

    call_id: str | None
    name: str
    arguments: str
    kind: Literal["function", "custom"] = "function"

    def parsed(self) -> JSONData:
        """The arguments as JSON, or a `_Unparsable` marker that equals nothing."""
        try:
            return json.loads(self.arguments)
        except ValueError:
            return _UNPARSABLE

    def to_json(self) -> dict[str, Any]:
        if self.kind == "custom":
            return {"type": "custom", "call_id": self.call_id, "name": self.name, "input": self.arguments}
        return {"call_id": self.call_id, "name": self.name, "arguments": self.arguments}


class _Unparsable:
    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "<arguments that are not JSON>"


_UNPARSABLE = _Unparsable()


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one request: `terminal` names what ended it (an event type, `http <status>`, `cut`)."""

    status: Status
    text: str
    calls: tuple[Call, ...]
    terminal: str
    incomplete_reason: str | None = None
    error: str | None = None
    #: The refusal the response carried, and the reasoning summary a client shows (parts joined with "\n\n"); "" when
    #: none.
    refusal: str = ""
    reasoning: str = ""
    #: A stream that ended cleanly after its outcome was settled but without its closing event (an Anthropic stream
    #: cut after `message_delta` carried its `stop_reason`, before `message_stop`): the result the official SDK hands
    #: its caller, which a client or a gateway may take (docs/spec/verdicts.md §1); None otherwise.
    settled: Result | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "text": self.text, "tool_calls": [c.to_json() for c in self.calls],
            "terminal": self.terminal, "incomplete_reason": self.incomplete_reason, "error": self.error,
        }


def status_matches(expected: str, actual: Status) -> bool:
    """`failed` and `error` are one class to a client: the response did not succeed."""
    failure = ("failed", "error")
    return actual in failure if expected in failure else actual == expected


def _item_calls(items: Iterable[Any]) -> tuple[Call, ...]:
    """The completed function and custom tool calls (a custom call's `arguments` are its raw input)."""
    calls: list[Call] = []
    for item in items:
        if not isinstance(item, Mapping) or item.get("type") not in ("function_call", "custom_tool_call"):
            continue
        if item.get("status", "completed") != "completed":
            continue
        call_id = item.get("call_id") if isinstance(item.get("call_id"), str) else None
        if item["type"] == "custom_tool_call":
            raw = item.get("input")
            calls.append(Call(call_id, str(item.get("name", "")), raw if isinstance(raw, str) else "", kind="custom"))
            continue
        arguments = item.get("arguments")
        calls.append(Call(call_id, str(item.get("name", "")),
                          arguments if isinstance(arguments, str) else json.dumps(arguments)))
    return tuple(calls)


def _message_parts(items: Iterable[Any], kind: str, key: str) -> str:
    parts: list[str] = []
    for item in items:
        if isinstance(item, Mapping) and item.get("type") == "message":
            for part in item.get("content") or ():
                if isinstance(part, Mapping) and part.get("type") == kind:
                    parts.append(str(part.get(key, "")))
    return "".join(parts)


def _item_text(items: Iterable[Any]) -> str:
    return _message_parts(items, "output_text", "text")


def _item_refusal(items: Iterable[Any]) -> str:
    """The refusal parts' text: a refusal, never answer text."""
    return _message_parts(items, "refusal", "refusal")


def _item_reasoning(items: Iterable[Any]) -> str:
    """The reasoning summary a client shows: every reasoning item's summary parts, joined by a blank line (the raw
    reasoning_text is not shown)."""
    parts = [str(p.get("text", "")) for item in items
             if isinstance(item, Mapping) and item.get("type") == "reasoning"
             for p in item.get("summary") or () if isinstance(p, Mapping)]
    return "\n\n".join(parts)


def _held(items: list[Any], status: Status, terminal: str, *, incomplete_reason: str | None = None,
          error: str | None = None) -> Result:
    return Result(status, _item_text(items), _item_calls(items), terminal, incomplete_reason, error,
                  refusal=_item_refusal(items), reasoning=_item_reasoning(items))


def _from_response(response: Mapping[str, Any], status: Status, terminal: str) -> Result:
    output = response.get("output")
    items = output if isinstance(output, list) else []
    details = response.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, Mapping) else None
    error = response.get("error")
    message = error.get("message") if isinstance(error, Mapping) else None
    return _held(items, status, terminal, incomplete_reason=reason if isinstance(reason, str) else None,
                 error=str(message) if message is not None else None)


def responses_events(events: Iterable[SSEEvent]) -> Result:
    """The result a client holds after reading these Responses events."""
    done_items: list[Any] = []
    texts: list[str] = []
    for event in events:
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(payload, dict):
            continue
        etype = payload.get("type")
        if etype in _TERMINAL:
            response = payload.get("response")
            if isinstance(response, Mapping):
                return _from_response(response, _TERMINAL[etype], etype)
            return _partial(done_items, texts, _TERMINAL[etype], etype)
        if etype == "error":
            return _partial(done_items, texts, "error", "error",
                            error=str(payload.get("message", payload.get("error", ""))))
        if etype == "response.output_item.done":
            done_items.append(payload.get("item"))
        elif etype == "response.output_text.done":
            texts.append(str(payload.get("text", "")))
    return _partial(done_items, texts, "error", "cut", error="the stream ended without a terminal event")


def _partial(items: list[Any], texts: list[str], status: Status, terminal: str, error: str | None = None) -> Result:
    """What a client holds without a terminal response: the done items, and the text of every output_text.done."""
    held = _held(items, status, terminal, error=error)
    return Result(held.status, "".join(texts), held.calls, terminal, refusal=held.refusal,
                  reasoning=held.reasoning, error=held.error)


def responses_body(body: Mapping[str, Any]) -> Result:
    """The result of a non-stream Response object."""
    status = body.get("status")
    mapped: Status = status if status in ("completed", "incomplete", "failed") else "error"
    return _from_response(body, mapped, f"status {status}")


def _adapter_call(call: Mapping[str, Any]) -> Call:
    """One `tool_calls` entry: a function call (its arguments, an object as JSON text) or a custom call (`type:
    "custom"`, its raw `input`)."""
    call_id = call.get("call_id") if isinstance(call.get("call_id"), str) else None
    if call.get("type") == "custom":
        return Call(call_id, str(call["name"]), str(call["input"]), kind="custom")
    arguments = call["arguments"]
    return Call(call_id, str(call["name"]), arguments if isinstance(arguments, str) else json.dumps(arguments))


def result_of_adapter(result: Mapping[str, Any]) -> Result:
    """The result an adapter printed (docs/spec/contracts.md §5); assumes its shape was validated. A null or absent
    `refusal` or `reasoning` reads as ""."""
    calls = tuple(_adapter_call(c) for c in result.get("tool_calls") or ())
    error = result.get("error")
    status: Status = "error" if error else "incomplete" if result.get("incomplete") else "completed"
    return Result(status, str(result.get("text") or ""), calls, "adapter",
                  error=str(error) if error else None, refusal=str(result.get("refusal") or ""),
                  reasoning=str(result.get("reasoning") or ""))
