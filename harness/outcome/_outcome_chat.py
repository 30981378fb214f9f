"""What a client holds after a Chat Completions stream or body (docs/spec/chat.md): text from `delta.content`, a
refusal from `delta.refusal` (`message.refusal`), tool calls accumulated by `index` (the first id, the name and
argument fragments joined; a delta without `index` by the id it carries; a body's custom tool calls as custom
calls), and the status from the choice's `finish_reason`.

A response ends normally only with both its `finish_reason` and the `data: [DONE]` after it (docs/spec/chat.md
§3.1): a stream cut between the two is cut, though its calls are done. A call counts as done on the wire only
when its choice finished: Chat has no per-call end, so a stream cut before
`finish_reason` completed no call; on `finish_reason: "length"` the call being written when the limit struck (the
last one started) is cut, the earlier ones are done.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.check import SSEEvent

from ._outcome import Call, Result, Status

__all__ = ["FINISH", "chat_body", "chat_events"]

#: finish_reason -> (status, incomplete reason in the Responses terms `expect` uses).
FINISH: dict[str, tuple[Status, str | None]] = {
    "stop": ("completed", None), "tool_calls": ("completed", None), "function_call": ("completed", None),
    "length": ("incomplete", "max_output_tokens"), "content_filter": ("incomplete", "content_filter"),
}


class _Call:
    __slots__ = ("arguments", "custom", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name = ""
        self.arguments = ""
        self.custom = False

    def add(self, delta: Mapping[str, Any]) -> None:
        if self.id is None and isinstance(delta.get("id"), str) and delta["id"]:
            self.id = delta["id"]
        custom = delta.get("custom")
        if delta.get("type") == "custom" and isinstance(custom, Mapping):  # a body's custom tool call
            self.custom = True
            self.name += str(custom.get("name") or "")
            self.arguments += str(custom.get("input") or "")
        function = delta.get("function")
        if isinstance(function, Mapping):
            if isinstance(function.get("name"), str):
                self.name += function["name"]
            if isinstance(function.get("arguments"), str):
                self.arguments += function["arguments"]

    def call(self) -> Call:
        return Call(self.id, self.name, self.arguments, kind="custom" if self.custom else "function")


#: A call's key: its `index`, or (a delta without one) the id the delta carries.
_Key = int | str


def _key(fragment: Mapping[str, Any], ids: Mapping[str, _Key], order: list[_Key]) -> _Key:
    """The call a tool-call delta belongs to: the one of its `index`; without one (CHAT-SCHEMA-001), the one its id
    names (a new call for a new id: Gemini's parallel calls, docs/spec/verdicts.md §12); with neither, the last call
    started (the delta can only continue it)."""
    index = fragment.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        return index
    call_id = fragment.get("id")
    if isinstance(call_id, str) and call_id:
        return ids.get(call_id, call_id)
    return order[-1] if order else 0


def _error_text(error: JSONValue) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message", json.dumps(error)))
    return str(error)


def _finished(reason: str, texts: list[str], calls: Mapping[_Key, _Call], order: list[_Key],
              refusal: str = "") -> Result:
    status, why = FINISH.get(reason, ("error", None))
    done = order[:-1] if reason == "length" else order
    error = None if status != "error" else f"unknown finish_reason {reason!r}"
    return Result(status, "".join(texts), tuple(calls[i].call() for i in done), f"finish_reason {reason}", why,
                  error, refusal=refusal)


def chat_events(events: Iterable[SSEEvent]) -> Result:
    """The result a client holds after reading these chat.completion.chunk events (choice 0)."""
    texts: list[str] = []
    refusals: list[str] = []
    calls: dict[_Key, _Call] = {}
    order: list[_Key] = []
    ids: dict[str, _Key] = {}  # a call's id -> its key, for deltas without `index`
    reason: str | None = None
    done = False
    for event in events:
        if event.data.strip() == "[DONE]":
            done = True
            break
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(payload, Mapping):
            continue
        if "error" in payload and "choices" not in payload:
            return Result("error", "".join(texts), (), "error", error=_error_text(payload["error"]))
        for choice in payload.get("choices") or ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                if isinstance(delta.get("content"), str):
                    texts.append(delta["content"])
                if isinstance(delta.get("refusal"), str):
                    refusals.append(delta["refusal"])
                for fragment in delta.get("tool_calls") or ():
                    if not isinstance(fragment, Mapping):
                        continue
                    key = _key(fragment, ids, order)
                    if key not in calls:
                        calls[key] = _Call()
                        order.append(key)
                    calls[key].add(fragment)
                    if isinstance(fragment.get("id"), str) and fragment["id"]:
                        ids.setdefault(fragment["id"], key)
            if isinstance(choice.get("finish_reason"), str) and reason is None:
                reason = choice["finish_reason"]
    if reason is not None and done:
        return _finished(reason, texts, calls, order, "".join(refusals))
    if reason is not None:
        calls_done = _finished(reason, texts, calls, order).calls
        return Result("error", "".join(texts), calls_done, "cut", error=f"the stream ended after finish_reason "
                      f"{reason} without data: [DONE]", refusal="".join(refusals))
    return Result("error", "".join(texts), (), "cut", error="the stream ended without a finish_reason",
                  refusal="".join(refusals))


def chat_body(body: Mapping[str, Any]) -> Result:
    """The result of a non-stream chat.completion."""
    if "error" in body and "choices" not in body:
        return Result("error", "", (), "error", error=_error_text(body["error"]))
    choices = body.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], Mapping) else {}
    found = choice.get("message")
    message: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    calls: dict[_Key, _Call] = {}
    for index, tool_call in enumerate(message.get("tool_calls") or ()):
        if isinstance(tool_call, Mapping):
            calls[index] = _Call()
            calls[index].add(tool_call)
    refusal = message.get("refusal")
    reason = choice.get("finish_reason")
    if not isinstance(reason, str):
        return Result("error", text, (), "no finish_reason", error="the choice has no finish_reason")
    return _finished(reason, [text], calls, list(calls), refusal if isinstance(refusal, str) else "")
