"""Fake Anthropic Messages clients (`python -m tests.fakes.clients --dialect anthropic`): one correct, the others
broken.

Each run reads one Messages request body on stdin, sends it to `$CALLPROOF_BASE_URL/messages` and prints one result
object (`text`, `tool_calls`, `error`, `incomplete`). `AnthropicReferenceClient` uses httpx and the hand-written SSE
parser of `clients.py`, not the anthropic SDK. Every defect in `DEFECTS` overrides one hook and names, in its
docstring, the rule that must catch it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.fakes import tls

from .clients import _drive, _http_error, _int, _obj, _parses, unusable_call, usable_calls
from .sse import iter_sse

__all__ = ["DEFECTS", "AnthropicReferenceClient", "finishing", "finishing_any_end"]

#: stop_reason values that end a turn without finishing it: the adapter protocol's `incomplete`.
_INCOMPLETE = ("max_tokens", "refusal", "model_context_window_exceeded")


@dataclass
class Block:
    """One content block as the stream built it."""

    type: str
    id: str = ""
    name: str = ""
    input: Any = None  # the content_block_start's (or a non-stream body's) `input`
    partial_json: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    stopped: bool = False

    def arguments(self) -> str:
        joined = "".join(self.partial_json)
        if joined:
            return joined
        return json.dumps(self.input) if self.input not in (None, {}) else "{}"


class AnthropicReferenceClient:
    """A correct Anthropic Messages streaming client. It keys blocks by their `index`, reports the text of the text
    blocks, `error` for an HTTP error, an `error` event, malformed data or a stream without `message_stop`, `incomplete`
    for stop_reason `max_tokens` or a `refusal` without stop_details (a content_filter cut; with stop_details {type:
    refusal} the text blocks are the refusal, reported in `refusal`), and, unless there was an error, every tool_use
    block that reached `content_block_stop` (on an incomplete turn not one whose JSON the limit cut). Input `""` becomes
    `"{}"`; a tool_use sent with an empty id gets one of its own, distinct per block. A call whose input JSON is not
    JSON makes the result an error (CLI-008); `usage` merges message_start's and message_delta's, input tokens counted
    with the cache reads as OpenAI counts them (CLI-009). Thinking blocks stay out of the text; their thinking, joined
    with a blank line, is `reasoning` (CLI-019)."""

    def __init__(self, base_url: str, api_key: str = "callproof", timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.blocks: dict[int, Block] = {}
        self.stop_reason: str | None = None
        self.refused = False  # stop_reason refusal with stop_details {type: refusal}: the text is a refusal
        self.error: str | None = None
        self.incomplete = False
        self.raw_usage: dict[str, Any] = {}

    # -- hooks the defects override ----------------------------------------------------------------------

    def fail(self, message: str) -> None:
        self.error = self.error or message

    def on_comment(self, line: str) -> None:
        """An SSE comment (keep-alive): nothing to do."""

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        """The SSE events of the body's network reads (framing_clients.py breaks this parser on purpose)."""
        return iter_sse(chunks, self.on_comment)

    def on_error_event(self, event: dict[str, Any]) -> None:
        error = event.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        self.fail(f"error event: {message}")

    def on_stop_reason(self, reason: str, details: Any = None) -> None:
        """`details` is the stop_details: a refusal that has {type: refusal} is the model's answer, not a cut turn
        (a content_filter ending has none)."""
        self.stop_reason = reason
        self.refused = reason == "refusal" and isinstance(details, dict) and details.get("type") == "refusal"
        if reason in _INCOMPLETE and not self.refused:
            self.incomplete = True

    def on_end_without_message_stop(self) -> None:
        """The body ended cleanly before `message_stop`: an error (after a stop_reason, taking the Message as
        finished is right too: docs/spec/verdicts.md §1)."""
        self.fail("the stream ended without message_stop")

    def is_complete(self, block: Block) -> bool:
        if self.error is not None or not block.stopped:
            return False
        return not (self.incomplete and not _parses(block.arguments()))

    # -- the protocol --------------------------------------------------------------------------------------

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.blocks, self.stop_reason, self.error, self.incomplete, self.raw_usage = {}, None, None, False, {}
        self.refused = False
        try:
            self.send(request)
        except (httpx.HTTPError, ValueError) as exc:
            self.fail(f"{type(exc).__name__}: {exc}")
        return self.result()

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        """Why the calls cannot be handed on (then the result is an error), or None."""
        return unusable_call(calls)

    def result(self) -> dict[str, Any]:
        blocks = [(index, self.blocks[index]) for index in sorted(self.blocks)]
        calls = self.reported(blocks)
        problem = self.refuse(calls)
        if problem is not None:  # the error names the unusable call; the usable ones are still handed on
            self.fail(problem)
            calls = usable_calls(calls)
        return {**self.answer([b for _, b in blocks]), "tool_calls": calls, "error": self.error,
                "incomplete": self.incomplete, "usage": self.usage()}

    def answer(self, blocks: list[Block]) -> dict[str, Any]:
        """The result's `text` (the text blocks), `refusal` and `reasoning` (the thinking blocks' text, joined with
        a blank line; "" when none)."""
        text = "".join("".join(b.text) for b in blocks if b.type == "text")
        reasoning = "\n\n".join("".join(b.thinking) for b in blocks if b.type == "thinking")
        if self.refused:  # the text blocks hold the refusal
            return {"text": "", "refusal": text, "reasoning": reasoning}
        return {"text": text, "refusal": None, "reasoning": reasoning}

    def reported(self, blocks: list[tuple[int, Block]]) -> list[dict[str, Any]]:
        return [{"call_id": b.id or f"toolu_callproof_{index}", "name": b.name, "arguments": b.arguments()}
                for index, b in blocks if b.type == "tool_use" and self.is_complete(b)]

    def usage(self) -> dict[str, int] | None:
        """message_start's usage updated by message_delta's, counted as OpenAI counts: input_tokens include the
        cache reads and writes."""
        raw = self.raw_usage
        if not raw:
            return None
        cached = int(raw.get("cache_read_input_tokens") or 0)
        written = int(raw.get("cache_creation_input_tokens") or 0)
        return {"input_tokens": int(raw.get("input_tokens") or 0) + cached + written,
                "output_tokens": int(raw.get("output_tokens") or 0), "cached_tokens": cached}

    def send(self, request: dict[str, Any]) -> None:
        body = {**request, "stream": request.get("stream", True)}
        headers = {"x-api-key": self.api_key, "anthropic-version": "2023-06-01", "accept": "text/event-stream"}
        with (
            httpx.Client(timeout=self.timeout, verify=tls()) as http,
            http.stream("POST", f"{self.base_url}/messages", json=body, headers=headers) as response,
        ):
            if response.status_code >= 400:
                response.read()
                self.fail(_http_error(response))
                return
            if body["stream"] is False:
                self.on_body(_obj(json.loads(response.read()), "the response body"))
                return
            for _, data in self.events(response.iter_bytes()):
                if self.on_event(_obj(json.loads(data), "event data")):
                    return
        self.on_end_without_message_stop()

    def on_event(self, event: dict[str, Any]) -> bool:
        """Apply one event; True when it ends the response."""
        kind = event.get("type")
        if kind == "content_block_start":
            raw = _obj(event.get("content_block"), "content_block")
            self.blocks[_int(event, "index")] = Block(str(raw.get("type")), str(raw.get("id") or ""),
                                                      str(raw.get("name") or ""), raw.get("input"),
                                                      text=[str(raw.get("text") or "")],
                                                      thinking=[str(raw.get("thinking") or "")])
        elif kind == "content_block_delta":
            block, delta = self._block(event), _obj(event.get("delta"), "delta")
            if delta.get("type") == "text_delta":
                block.text.append(str(delta.get("text", "")))
            elif delta.get("type") == "input_json_delta":
                block.partial_json.append(str(delta.get("partial_json", "")))
            elif delta.get("type") == "thinking_delta":
                block.thinking.append(str(delta.get("thinking", "")))
        elif kind == "content_block_stop":
            self._block(event).stopped = True
        elif kind == "message_start":
            self.on_usage(_obj(event.get("message"), "message").get("usage"))
        elif kind == "message_delta":
            self.on_usage(event.get("usage"))
            delta = _obj(event.get("delta"), "delta")
            if isinstance(delta.get("stop_reason"), str):
                self.on_stop_reason(delta["stop_reason"], delta.get("stop_details"))
        elif kind == "message_stop":
            return True
        elif kind == "error":
            self.on_error_event(event)
            return True
        return False  # message_start, ping and unknown events

    def on_usage(self, usage: Any) -> None:
        if isinstance(usage, dict):
            self.raw_usage.update({key: value for key, value in usage.items() if value is not None})

    def on_body(self, body: dict[str, Any]) -> None:
        """A non-stream message."""
        self.on_usage(body.get("usage"))
        for index, raw in enumerate(body.get("content") or []):
            raw = _obj(raw, "content block")
            self.blocks[index] = Block(str(raw.get("type")), str(raw.get("id") or ""), str(raw.get("name") or ""),
                                       raw.get("input"), text=[str(raw.get("text") or "")],
                                       thinking=[str(raw.get("thinking") or "")], stopped=True)
        if isinstance(body.get("stop_reason"), str):
            self.on_stop_reason(body["stop_reason"], body.get("stop_details"))

    def _block(self, event: dict[str, Any]) -> Block:
        index = _int(event, "index")
        if index not in self.blocks:
            raise ValueError(f"{event.get('type')!r} for index {index} before its content_block_start")
        return self.blocks[index]


# -- the defects -------------------------------------------------------------------------------------------


class SwallowsErrorEvent(AnthropicReferenceClient):
    """Takes an `event: error` for the end of the stream and reports no error. Caught by CLI-002 (errors are
    reported, never swallowed)."""

    def on_error_event(self, event: dict[str, Any]) -> None:
        pass


class IgnoresMaxTokens(AnthropicReferenceClient):
    """Never sets `incomplete`: a turn cut by stop_reason `max_tokens` looks finished. Caught by CLI-005."""

    def on_stop_reason(self, reason: str, details: Any = None) -> None:
        self.stop_reason = reason


class ThinkingInText(AnthropicReferenceClient):
    """thinking_in_text: a thinking block's thinking is read as answer text, as a client that joins every block's
    deltas does. Caught by CLI-019 (reasoning never shows in the answer text)."""

    def answer(self, blocks: list[Block]) -> dict[str, Any]:
        answer = super().answer(blocks)
        return {**answer, "text": "".join("".join(b.thinking) for b in blocks) + answer["text"]}


class RefusalAsText(AnthropicReferenceClient):
    """refusal_as_text: ignores stop_details, so a refusal is read as a content filter's cut: its text is answer
    text and the turn incomplete, as a client that knows only stop_reason does. Caught by EXP-005 (a refusal
    arrives as a refusal)."""

    def on_stop_reason(self, reason: str, details: Any = None) -> None:
        super().on_stop_reason(reason, None)


class UncachedInputTokens(AnthropicReferenceClient):
    """uncached_input_tokens: Anthropic's input_tokens are reported as the input count, without the cache reads
    that OpenAI's count includes (CLI-009)."""

    def usage(self) -> dict[str, int] | None:
        usage = super().usage()
        if usage is None:
            return None
        return {**usage, "input_tokens": usage["input_tokens"] - usage["cached_tokens"]}


class FinishesAfterStopReason(AnthropicReferenceClient):
    """Correct (not a defect; `finishing` runs it). A stream that ends cleanly after message_delta carried its
    stop_reason, without message_stop, is the whole Message, as the anthropic SDK's MessageStream takes it (no error,
    its calls handed on); without a stop_reason it is still an error (docs/spec/verdicts.md §1)."""

    def on_end_without_message_stop(self) -> None:
        if self.stop_reason is None:
            self.fail("the stream ended without a stop_reason")


class FinishesWithoutStopReason(AnthropicReferenceClient):
    """Broken (`finishing_any_end` runs it): any clean end of the stream is the end of the Message, one cut before its
    stop_reason too: no error for a turn that never finished. Caught by CLI-002 (a cut stream is an error)."""

    def on_end_without_message_stop(self) -> None:
        pass


#: Defect name -> the broken Anthropic client (`--dialect anthropic --defect NAME`).
DEFECTS: dict[str, type[AnthropicReferenceClient]] = {
    "swallows_error_event": SwallowsErrorEvent,
    "ignores_max_tokens": IgnoresMaxTokens,
    "uncached_input_tokens": UncachedInputTokens,
    "thinking_in_text": ThinkingInText,
    "refusal_as_text": RefusalAsText,
}


def finishing(request: dict[str, Any], base_url: str, dialect: str = "anthropic", tool_loop: bool = False,
              max_retries: int = 0) -> dict[str, Any]:
    """`FinishesAfterStopReason` in-process (`--client tests.fakes.anthropic_clients:finishing`): correct, it passes
    the cut after the stop_reason as the reference client, which reports the error, does (docs/spec/verdicts.md §1)."""
    assert dialect == "anthropic", "finishing speaks Anthropic Messages only"
    return _drive(FinishesAfterStopReason, request, base_url, dialect, tool_loop, max_retries)


def finishing_any_end(request: dict[str, Any], base_url: str, dialect: str = "anthropic", tool_loop: bool = False,
                      max_retries: int = 0) -> dict[str, Any]:
    """`FinishesWithoutStopReason` in-process (`--client tests.fakes.anthropic_clients:finishing_any_end`): broken,
    caught by CLI-002 on a stream cut cleanly before its stop_reason, which no bundled scenario plays in the Anthropic
    dialect (tests/harness/run/data/cut_before_stop_reason.json does: tests/harness/run/test_edge_verdicts.py)."""
    assert dialect == "anthropic", "finishing_any_end speaks Anthropic Messages only"
    return _drive(FinishesWithoutStopReason, request, base_url, dialect, tool_loop, max_retries)
