"""Fake Chat Completions clients (`python -m tests.fakes.clients --dialect chat`): one correct, the others broken.

Each run reads one Chat Completions request body on stdin, sends it to `$CALLPROOF_BASE_URL/chat/completions` and
prints one result object (`text`, `tool_calls`, `error`, `incomplete`). `ChatReferenceClient` uses httpx and the
hand-written SSE parser of `clients.py`, not the openai SDK. Every defect in `DEFECTS` overrides one hook and names,
in its docstring, the rule that must catch it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.fakes import tls

from .clients import _http_error, _obj, unusable_call, usable_calls
from .sse import iter_sse

__all__ = ["DEFECTS", "ChatReferenceClient"]

#: finish_reason values that end a turn without finishing it: the adapter protocol's `incomplete`.
_INCOMPLETE = ("length", "content_filter")


@dataclass
class ChatCall:
    """One tool call as its deltas built it, keyed by the delta's `index`."""

    order: int  # the order the calls started in (the call the token limit cut is the last one started)
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def add_name(self, fragment: str) -> None:
        """Concatenate name fragments (fragmented names), but not a full name repeated on a later delta."""
        if fragment and fragment != self.name:
            self.name += fragment


class ChatReferenceClient:
    """A correct Chat Completions streaming client. It keys tool calls by the delta's `index` (interleaved calls stay
    apart), a delta without `index` by the id it carries (docs/spec/verdicts.md §12), keeps a call's first id, joins
    name fragments (a repeated full name is not doubled), reports `error` for an HTTP error, an error chunk (whatever
    follows it, `[DONE]` included), malformed data, a tool-call delta with neither `index` nor id or a stream without a
    finish_reason, `incomplete` for finish_reason `length` or `content_filter` (and then every call but the last started
    one, which the limit cut), normalises `""` arguments to `"{}"` and gives a call the stream sent without an id one of
    its own, distinct per call. A call whose arguments are not JSON or whose name never came makes the result an error
    (CLI-008); `usage` is read from whichever chunk carries it, the finish chunk or a trailing one (CLI-009). A refusal
    (`delta.refusal`, `message.refusal`) is reported in `refusal`, not in the text (EXP-005); Chat carries no reasoning,
    so `reasoning` is null."""

    def __init__(self, base_url: str, api_key: str = "callproof", timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.calls: dict[int | str, ChatCall] = {}  # by `index`, or by id for a delta without one
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.finish_reason: str | None = None
        self.error: str | None = None
        self.incomplete = False
        self.usage: dict[str, int] | None = None

    # -- hooks the defects override ----------------------------------------------------------------------

    def fail(self, message: str) -> None:
        self.error = self.error or message

    def on_comment(self, line: str) -> None:
        """An SSE comment (keep-alive): nothing to do."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        """The SSE events of the body's network reads (framing_clients.py breaks this parser on purpose)."""
        return iter_sse(chunks, self.on_comment)

    def on_done(self) -> None:
        """`data: [DONE]`: the end of the stream, not a verdict on it (an error chunk or a missing finish_reason
        still fails the turn)."""

    def on_finish(self, reason: str) -> None:
        self.finish_reason = reason
        if reason in _INCOMPLETE:
            self.incomplete = True

    def call_for(self, delta: dict[str, Any]) -> ChatCall:
        """The call a tool-call delta belongs to: the one of its `index`; without one (a broken upstream), the one of
        the id it carries (chat_parallel_calls_without_index: every delta names its call). A delta with neither has
        no merge key: any call made of it would be a guess, so it is an error (raw_chat_tool_call_without_index)."""
        index = delta.get("index")
        key: int | str
        if isinstance(index, int) and not isinstance(index, bool):
            key = index
        elif isinstance(delta.get("id"), str) and delta["id"]:
            key = next((k for k, call in self.calls.items() if call.id == delta["id"]), delta["id"])
        else:
            raise ValueError(f"a tool-call delta has no integer `index` (got {index!r}) and no id: it cannot be merged "
                             "into a call (docs/spec/chat.md §3.1)")
        if key not in self.calls:
            self.calls[key] = ChatCall(order=len(self.calls))
        return self.calls[key]

    def complete_calls(self) -> list[ChatCall]:
        """The calls to report: none unless a finish_reason ended the turn without an error; on `length` or
        `content_filter` not the last started call."""
        if self.error is not None or self.finish_reason is None:
            return []
        calls = sorted(self.calls.values(), key=lambda c: c.order)
        return calls[:-1] if self.finish_reason in _INCOMPLETE else calls

    def call_id(self, index: int | str, call: ChatCall) -> str:
        return call.id or f"call_callproof_{index}"

    # -- the protocol --------------------------------------------------------------------------------------

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.calls, self.text, self.finish_reason, self.error, self.incomplete = {}, [], None, None, False
        self.usage, self.refusal = None, []
        try:
            self.send(request)
        except (httpx.HTTPError, ValueError) as exc:
            self.fail(f"{type(exc).__name__}: {exc}")
        return self.result()

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        """Why the calls cannot be handed on (then the result is an error), or None."""
        return unusable_call(calls)

    def result(self) -> dict[str, Any]:
        calls = self.reported()
        problem = self.refuse(calls)
        if problem is not None:  # the error names the unusable call; the usable ones are still handed on
            self.fail(problem)
            calls = usable_calls(calls)
        return {**self.answer(), "tool_calls": calls, "error": self.error, "incomplete": self.incomplete,
                "usage": self.usage}

    def answer(self) -> dict[str, Any]:
        """The result's `text`, `refusal` (null when none) and `reasoning` (null: Chat has no reasoning field)."""
        return {"text": "".join(self.text), "refusal": "".join(self.refusal) if self.refusal else None,
                "reasoning": None}

    def reported(self) -> list[dict[str, Any]]:
        indexes = {id(call): index for index, call in self.calls.items()}
        return [{"call_id": self.call_id(indexes[id(c)], c), "name": c.name, "arguments": "".join(c.arguments) or "{}"}
                for c in self.complete_calls()]

    def on_usage(self, usage: dict[str, Any]) -> None:
        """A chunk's (or the body's) usage: the finish chunk's, or a trailing chunk's with choices: []."""
        details = usage.get("prompt_tokens_details") or {}
        self.usage = {"input_tokens": int(usage.get("prompt_tokens") or 0),
                      "output_tokens": int(usage.get("completion_tokens") or 0),
                      "cached_tokens": int(details.get("cached_tokens") or 0)}

    def send(self, request: dict[str, Any]) -> None:
        body = {**request, "stream": request.get("stream", True)}
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "text/event-stream"}
        with (
            httpx.Client(timeout=self.timeout, verify=tls()) as http,
            http.stream("POST", f"{self.base_url}/chat/completions", json=body, headers=headers) as response,
        ):
            if response.status_code >= 400:
                response.read()
                self.fail(_http_error(response))
                return
            if body["stream"] is False:
                self.on_body(_obj(json.loads(response.read()), "the response body"))
                return
            for _, data in self.events(response.iter_bytes()):
                if data == "[DONE]":
                    self.on_done()
                    break
                if self.on_chunk(_obj(json.loads(data), "chunk")):
                    return
        if self.finish_reason is None:
            self.fail("the stream ended without a finish_reason")

    def on_chunk(self, chunk: dict[str, Any]) -> bool:
        """Apply one chunk; True when it ends the response (an error chunk)."""
        if "error" in chunk:
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else error
            self.fail(f"error chunk: {message}")
            return True
        for choice in chunk.get("choices") or []:
            choice = _obj(choice, "choice")
            if choice.get("index", 0) != 0:
                continue
            delta = _obj(choice.get("delta") or {}, "delta")
            if isinstance(delta.get("content"), str):
                self.text.append(delta["content"])
            if isinstance(delta.get("refusal"), str):
                self.refusal.append(delta["refusal"])
            for raw in delta.get("tool_calls") or []:
                raw = _obj(raw, "tool call delta")
                call = self.call_for(raw)
                call.id = call.id or raw.get("id") or ""
                function = _obj(raw.get("function") or {}, "function")
                call.add_name(function.get("name") or "")
                if isinstance(function.get("arguments"), str):
                    call.arguments.append(function["arguments"])
            if isinstance(choice.get("finish_reason"), str):
                self.on_finish(choice["finish_reason"])
        if isinstance(chunk.get("usage"), dict):
            self.on_usage(chunk["usage"])
        return False

    def on_body(self, body: dict[str, Any]) -> None:
        """A non-stream chat.completion."""
        choice = _obj((body.get("choices") or [None])[0], "choices[0]")
        message = _obj(choice.get("message"), "message")
        self.text.append(message.get("content") or "")
        if isinstance(message.get("refusal"), str):
            self.refusal.append(message["refusal"])
        for index, raw in enumerate(message.get("tool_calls") or []):
            raw = _obj(raw, "tool call")
            function = _obj(raw.get("function"), "function")
            self.calls[index] = ChatCall(order=index, id=raw.get("id") or "", name=function.get("name") or "",
                                         arguments=[function.get("arguments") or ""])
        if isinstance(body.get("usage"), dict):
            self.on_usage(body["usage"])
        reason = choice.get("finish_reason")
        if not isinstance(reason, str):
            raise ValueError(f"choices[0].finish_reason is not a string: {reason!r}")
        self.on_finish(reason)


def _by_arrival(calls: dict[int | str, ChatCall], delta: dict[str, Any]) -> ChatCall:
    """A delta with an id (or the first delta) starts a call; any other extends the last one started."""
    if delta.get("id") or not calls:
        key = len(calls)
        calls[key] = ChatCall(order=len(calls))
        return calls[key]
    return max(calls.values(), key=lambda c: c.order)


# -- the defects -------------------------------------------------------------------------------------------


class UsageFromTrailingChunkOnly(ChatReferenceClient):
    """usage_from_trailing_chunk_only: usage starts at zero and is read only from a trailing chunk with
    `choices: []`, so usage sent on the finish chunk is lost and the result reports 0 tokens (CLI-009)."""

    def on_chunk(self, chunk: dict[str, Any]) -> bool:
        if self.usage is None:
            self.usage = {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
        if chunk.get("choices"):
            chunk = {key: value for key, value in chunk.items() if key != "usage"}
        return super().on_chunk(chunk)


class IndexIgnored(ChatReferenceClient):
    """Accumulates tool-call deltas by arrival, not by `index`: a delta with an id starts a new call, any other
    delta extends the last one, so interleaved calls mix their arguments, and hands them on unchecked, as a client
    this naive does. Caught by EXP-002 (arguments equal)."""

    def call_for(self, delta: dict[str, Any]) -> ChatCall:
        return _by_arrival(self.calls, delta)

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return None


class DoneAsSuccess(ChatReferenceClient):
    """done_as_success: skips a chunk without `choices` (the in-stream error object is one) and takes `data: [DONE]`
    for the end of a successful turn, finish_reason or not, as a client that reads only `choices` and stops at the
    sentinel does: a stream that failed with an error object and then `[DONE]` (vLLM) is reported as complete, its
    text so far as the answer, no error. Caught by CLI-002 (chat_error_then_done)."""

    def on_chunk(self, chunk: dict[str, Any]) -> bool:
        if "choices" not in chunk:
            return False
        return super().on_chunk(chunk)

    def on_done(self) -> None:
        self.finish_reason = self.finish_reason or "stop"


class IndexlessCallsMerged(ChatReferenceClient):
    """indexless_calls_merged: keys tool-call deltas by `index`, taking a missing one for 0, and hands the calls on
    unchecked, as a client built on OpenAI's pattern does: parallel calls streamed without `index` (Gemini) become one
    call, its names and argument texts joined ('get_weatherget_time', '{...}{...}'). Caught by EXP-001
    (chat_parallel_calls_without_index)."""

    def call_for(self, delta: dict[str, Any]) -> ChatCall:
        index = delta.get("index", 0)
        if index not in self.calls:
            self.calls[index] = ChatCall(order=len(self.calls))
        return self.calls[index]

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return None


class PartialCallComplete(ChatReferenceClient):
    """Reports the calls built so far when the stream was cut before any finish_reason (the error itself is
    reported). Caught by CLI-003 (partial calls are not reported as complete)."""

    def complete_calls(self) -> list[ChatCall]:
        return sorted(self.calls.values(), key=lambda c: c.order)

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return None  # the cut call's arguments are handed on as they are


class SameIdForIdlessCalls(ChatReferenceClient):
    """Gives every call the stream sent without an id the same made-up id, `call_missing`. Caught by CLI-007
    (id-less calls are reported with distinct call_ids)."""

    def call_id(self, index: int | str, call: ChatCall) -> str:
        return call.id or "call_missing"


class RefusalAsText(ChatReferenceClient):
    """refusal_as_text: `delta.refusal` is read as content, and no refusal is reported, as a client that knows only
    `content` does. Caught by EXP-005 (a refusal arrives as a refusal)."""

    def answer(self) -> dict[str, Any]:
        answer = super().answer()
        return {**answer, "text": answer["text"] + (answer["refusal"] or ""), "refusal": None}


#: Defect name -> the broken Chat client (`--dialect chat --defect NAME`).
DEFECTS: dict[str, type[ChatReferenceClient]] = {
    "index_ignored": IndexIgnored,
    "done_as_success": DoneAsSuccess,
    "indexless_calls_merged": IndexlessCallsMerged,
    "partial_call_complete": PartialCallComplete,
    "same_id_for_idless_calls": SameIdForIdlessCalls,
    "usage_from_trailing_chunk_only": UsageFromTrailingChunkOnly,
    "refusal_as_text": RefusalAsText,
}
