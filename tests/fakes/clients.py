"""Fake clients under test for the client runner (docs/spec/contracts.md §5): one correct, the others broken on purpose.

    python -m tests.fakes.clients                        # the correct reference client
    python -m tests.fakes.clients --defect first_call_only
    python -m tests.fakes.clients --dialect chat --defect index_ignored

Each run reads one Responses request body on stdin, sends it to `$CALLPROOF_BASE_URL/responses` and prints one
result object (`text`, `tool_calls`, `error`, `incomplete`). `--dialect chat` and `--dialect anthropic` (default:
`$CALLPROOF_DIALECT`, else responses) run the clients of `chat_clients.py` and `anthropic_clients.py` instead.
`ReferenceClient` uses httpx and a hand-written SSE parser, not the openai SDK, so its behaviour is ours to pin down.
Every defect in `DEFECTS` is a subclass that overrides one hook and names, in its docstring, the rule that must
catch it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from callproof.harness.dialects import DIALECTS as _TABLE
from callproof.harness.dialects import Dialect
from tests.fakes import tls

from .sse import iter_sse

#: The dialects a reference client speaks: every row of the dialect table.
DIALECTS: tuple[Dialect, ...] = tuple(row.name for row in _TABLE.values())

__all__ = ["DEFECTS", "DIALECTS", "ReferenceClient", "broken", "dialect_defects", "main", "run", "unusable_call",
           "usable_calls"]

def _obj(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object: {value!r:.120}")
    return value


def _str(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{payload.get('type', 'event')!r}: {key!r} is not a string: {value!r:.120}")
    return value


def _int(payload: dict[str, Any], key: str) -> int:
    value = payload.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{payload.get('type', 'event')!r}: {key!r} is not an integer: {value!r:.120}")
    return value


@dataclass
class Item:
    """One output item as the stream built it."""

    type: str
    id: str = ""
    call_id: str = ""
    name: str = ""
    status: str = "in_progress"
    deltas: list[str] = field(default_factory=list)
    #: The call's arguments from function_call_arguments.done or output_item.done; None until one arrived.
    arguments: str | None = None
    #: function_call_arguments.done or output_item.done arrived.
    done: bool = False
    #: Text per content index: the deltas so far, replaced by output_text.done's text when it arrives.
    text: dict[int, str] = field(default_factory=dict)
    #: Refusal per content index (a message's `refusal` parts), built as `text` is.
    refusal: dict[int, str] = field(default_factory=dict)
    #: A reasoning item's summary per summary_index, and its reasoning text per content_index.
    summary: dict[int, str] = field(default_factory=dict)
    thought: dict[int, str] = field(default_factory=dict)

    def update(self, raw: dict[str, Any]) -> None:
        self.id = raw.get("id") or self.id
        self.call_id = raw.get("call_id") or self.call_id
        self.name = raw.get("name") or self.name
        self.status = raw.get("status") or self.status

    def finish(self, raw: dict[str, Any]) -> None:
        """The item's final form (output_item.done, or a non-stream body): its arguments are authoritative."""
        self.update(raw)
        if isinstance(raw.get("arguments"), str):
            self.arguments = raw["arguments"]
        if self.type == "custom_tool_call" and isinstance(raw.get("input"), str):
            self.arguments = raw["input"]  # a custom call's raw input
        self.done = True

    def read_parts(self, raw: dict[str, Any]) -> None:
        """A whole item's parts (a non-stream body): output_text and refusal content, summary and reasoning text."""
        for index, part in enumerate(raw.get("content") or []):
            kind = _obj(part, "content part").get("type")
            if kind == "output_text":
                self.text[index] = _str(part, "text")
            elif kind == "refusal":
                self.refusal[index] = _str(part, "refusal")
            elif kind == "reasoning_text":
                self.thought[index] = _str(part, "text")
        for index, part in enumerate(raw.get("summary") or []):
            self.summary[index] = _str(_obj(part, "summary part"), "text")


#: The output item types a client hands on as calls: function calls, and custom tool calls (as custom calls).
_CALLS = ("function_call", "custom_tool_call")


class ReferenceClient:
    """A correct streaming client. It reports the text of every output_text part in output order; an `error`
    for an HTTP error, `response.failed`, an `error` event, malformed data or a stream without a terminal event;
    and, unless there was an error, every call whose done events arrived and whose status is not "incomplete".
    It ignores SSE comments, unknown event types and a `[DONE]` sentinel, keys items by output_index (so
    duplicate call_ids stay two calls), normalises `""` arguments to `"{}"`, and falls back to the item id when
    a call has no `call_id`. A call whose arguments are not JSON (or that has no name) makes the result an error
    (CLI-008); `usage` is the terminal response's (input, output and cached tokens: CLI-009). A custom tool call is
    reported as `{"type": "custom", "input"}` with its raw input (CLI-018); refusal parts go to `refusal`, never to
    the text (EXP-005); reasoning stays out of the text, and `reasoning` is the summary parts joined with a blank
    line (CLI-019)."""

    def __init__(self, base_url: str, api_key: str = "callproof", timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.items: dict[int, Item] = {}
        self.error: str | None = None
        self.incomplete = False
        self.usage: dict[str, int] | None = None

    # -- hooks the defects override ----------------------------------------------------------------------

    def fail(self, message: str) -> None:
        """Record a failure (the first one wins)."""
        self.error = self.error or message

    def on_comment(self, line: str) -> None:
        """An SSE comment (keep-alive): nothing to do."""

    def on_incomplete(self) -> None:
        self.incomplete = True

    def events(self, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
        """The SSE events of the body's network reads (framing_clients.py breaks this parser on purpose)."""
        return iter_sse(chunks, self.on_comment)

    def is_complete(self, item: Item) -> bool:
        """Whether to report the call: no calls of a failed turn, and only those that finished."""
        return self.error is None and item.done and item.status != "incomplete"

    def call(self, item: Item) -> dict[str, Any]:
        arguments = item.arguments if item.arguments is not None else "".join(item.deltas)
        if item.type == "custom_tool_call":  # the raw input, as it came (CLI-018)
            return {"type": "custom", "call_id": item.call_id or item.id, "name": item.name, "input": arguments}
        return {"call_id": item.call_id or item.id, "name": item.name, "arguments": arguments or "{}"}

    def tool_calls(self) -> list[dict[str, Any]]:
        items = [self.items[index] for index in sorted(self.items)]
        return [self.call(item) for item in items if item.type in _CALLS and self.is_complete(item)]

    def answer(self, items: list[Item]) -> dict[str, Any]:
        """The result's `text`, `refusal` (null when none) and `reasoning` (the summary parts of every reasoning
        item, joined with a blank line; "" when none) from the items in output order."""
        text = "".join(item.text[part] for item in items for part in sorted(item.text))
        refusals = [item.refusal[part] for item in items for part in sorted(item.refusal)]
        summary = [item.summary[part] for item in items for part in sorted(item.summary)]
        return {"text": text, "refusal": "".join(refusals) if refusals else None, "reasoning": "\n\n".join(summary)}

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        """Why the calls cannot be handed on (then the result is an error), or None."""
        return unusable_call(calls)

    # -- the protocol --------------------------------------------------------------------------------------

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.items, self.error, self.incomplete, self.usage = {}, None, False, None
        try:
            self.send(request)
        except (httpx.HTTPError, ValueError) as exc:  # transport failures, malformed JSON or events
            self.fail(f"{type(exc).__name__}: {exc}")
        return self.result()

    def result(self) -> dict[str, Any]:
        items = [self.items[index] for index in sorted(self.items)]
        calls = self.tool_calls()
        problem = self.refuse(calls)
        if problem is not None:  # the error names the unusable call; the usable ones are still handed on
            self.fail(problem)
            calls = usable_calls(calls)
        return {**self.answer(items), "tool_calls": calls, "error": self.error, "incomplete": self.incomplete,
                "usage": self.usage}

    def send(self, request: dict[str, Any]) -> None:
        body = {**request, "stream": request.get("stream", True)}
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "text/event-stream"}
        with (
            httpx.Client(timeout=self.timeout, verify=tls()) as http,
            http.stream("POST", f"{self.base_url}/responses", json=body, headers=headers) as response,
        ):
            if response.status_code >= 400:
                response.read()
                self.fail(_http_error(response))
                return
            if body["stream"] is False:
                self.on_response(_obj(json.loads(response.read()), "the response body"), final=True)
                return
            for _, data in self.events(response.iter_bytes()):
                if data == "[DONE]":
                    break
                if self.on_event(_obj(json.loads(data), "event data")):
                    return
        self.fail("the stream ended without a terminal event")

    def on_event(self, event: dict[str, Any]) -> bool:
        """Apply one event; True when it ends the response."""
        kind = event.get("type")
        if kind == "response.output_item.added":
            raw = _obj(event.get("item"), "item")
            self.items[_int(event, "output_index")] = item = Item(type=_str(raw, "type"))
            item.update(raw)
        elif kind == "response.output_item.done":
            self._item(event).finish(_obj(event.get("item"), "item"))
        elif kind == "response.function_call_arguments.delta":
            self._item(event).deltas.append(_str(event, "delta"))
        elif kind == "response.function_call_arguments.done":
            item = self._item(event)
            item.arguments, item.done = _str(event, "arguments"), True
        elif kind == "response.output_text.delta":
            texts = self._item(event).text
            index = _int(event, "content_index")
            texts[index] = texts.get(index, "") + _str(event, "delta")
        elif kind == "response.output_text.done":
            self._item(event).text[_int(event, "content_index")] = _str(event, "text")
        elif kind in _PARTS:
            self.on_part(event, *_PARTS[kind])
        elif kind == "response.custom_tool_call_input.delta":
            self._item(event).deltas.append(_str(event, "delta"))
        elif kind == "response.custom_tool_call_input.done":
            item = self._item(event)
            item.arguments, item.done = _str(event, "input"), True
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.on_response(_obj(event.get("response"), "response"), final=False)
            if kind == "response.incomplete":
                self.on_incomplete()
            return True
        elif kind == "error":
            self.fail(f"error event: {event.get('code')}: {event.get('message')}")
            return True
        return False  # lifecycle events without data for the result, and unknown (vendor) events

    def on_response(self, response: dict[str, Any], *, final: bool) -> None:
        """A response object: the terminal event's, or a whole non-stream body (`final`: its output counts)."""
        status = response.get("status")
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details") or {}
            self.usage = {"input_tokens": _int(usage, "input_tokens"), "output_tokens": _int(usage, "output_tokens"),
                          "cached_tokens": int(details.get("cached_tokens") or 0)}
        if status == "failed":
            error = response.get("error")
            self.fail(f"response.failed: {_obj(error, 'error').get('message') if error else 'no error object'}")
        elif status == "incomplete" and final:
            self.on_incomplete()
        if not final:
            return
        for index, raw_item in enumerate(response.get("output") or []):
            raw = _obj(raw_item, "output item")
            self.items[index] = item = Item(type=_str(raw, "type"))
            item.finish(raw)
            item.read_parts(raw)

    def on_part(self, event: dict[str, Any], where: str, index_key: str, value_key: str, done: bool) -> None:
        """A refusal, reasoning summary or reasoning text delta (appended) or done event (the whole value)."""
        parts: dict[int, str] = getattr(self._item(event), where)
        index = _int(event, index_key)
        parts[index] = _str(event, value_key) if done else parts.get(index, "") + _str(event, value_key)

    def _item(self, event: dict[str, Any]) -> Item:
        index = _int(event, "output_index")
        if index not in self.items:
            raise ValueError(f"{event.get('type')!r} for output_index {index} before its output_item.added")
        return self.items[index]


#: Delta/done events of the parts a result reports beside text: event type -> (Item field, index key, value key, done).
_PARTS: dict[str, tuple[str, str, str, bool]] = {
    "response.refusal.delta": ("refusal", "content_index", "delta", False),
    "response.refusal.done": ("refusal", "content_index", "refusal", True),
    "response.reasoning_summary_text.delta": ("summary", "summary_index", "delta", False),
    "response.reasoning_summary_text.done": ("summary", "summary_index", "text", True),
    "response.reasoning_text.delta": ("thought", "content_index", "delta", False),
    "response.reasoning_text.done": ("thought", "content_index", "text", True),
}


def unusable_call(calls: list[dict[str, Any]]) -> str | None:
    """Why a call of `calls` cannot be handed on (its arguments are not JSON, or it has no name), or None: a
    correct client reports that as an error rather than pass the call on (CLI-008)."""
    for call in calls:
        if not call["name"]:
            return f"the stream's call {call['call_id']} has no name"
        if call.get("type") == "custom":
            continue  # a custom call's input is raw text, not JSON (CLI-018)
        try:
            json.loads(call["arguments"])
        except ValueError as exc:
            return (f"the stream's call {call['name']} ({call['call_id']}) has arguments that are not JSON "
                    f"({exc}): {call['arguments'][:100]!r}")
    return None


def usable_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls of `calls` that can be handed on: beside a call whose arguments are not JSON, the others still are
    (the result's error names the unusable one)."""
    return [call for call in calls if unusable_call([call]) is None]


def _http_error(response: httpx.Response) -> str:
    try:
        message = _obj(json.loads(response.content), "body")["error"]["message"]
    except (ValueError, LookupError, TypeError):
        message = response.text[:200]
    retry = response.headers.get("retry-after")
    retry_ms = response.headers.get("retry-after-ms")
    waits = ", ".join(w for w in (f"retry-after {retry}" if retry else "", f"retry-after-ms {retry_ms}" if retry_ms
                                  else "") if w)
    return f"HTTP {response.status_code}{f' ({waits})' if waits else ''}: {message}"


# -- loops and retries (docs/adapters.md#loops-and-retries) --------------------------------------------------------

_HTTP_ERROR = re.compile(r"^HTTP (\d{3})(?: \((?:retry-after ([\d.]+))?(?:, )?(?:retry-after-ms (\d+))?\))?")


def tool_output(name: str, arguments: str, call_id: str) -> tuple[str, bool]:
    """The deterministic tool of the adapter protocol: `"<name> ok <call_id>"`, or `"<name> error <call_id>"` and
    is_error when the arguments are not a JSON object or their `fail` member is true."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}", failed


def retry_wait(error: str | None, retries_left: int) -> float | None:
    """The seconds to wait before retrying a result's HTTP 429/5xx error (its retry-after-ms, else retry-after), or
    None when it is not retryable or no retry is left."""
    match = _HTTP_ERROR.match(error or "")
    if match is None or retries_left <= 0 or not (match.group(1) == "429" or match.group(1).startswith("5")):
        return None
    if match.group(3):
        return int(match.group(3)) / 1000
    return float(match.group(2)) if match.group(2) else 0.5


def history(dialect: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One turn's calls and their tool results, in the dialect's request form."""
    outputs = [(c, *tool_output(c["name"], c.get("arguments", c.get("input", "")), c["call_id"])) for c in calls]
    if dialect == "chat":
        return [{"role": "assistant", "content": None, "tool_calls": [
                    {"id": c["call_id"], "type": "function", "function": {"name": c["name"],
                                                                          "arguments": c["arguments"]}}
                    for c in calls]},
                *({"role": "tool", "tool_call_id": c["call_id"], "content": out} for c, out, _ in outputs)]
    if dialect == "anthropic":
        return [{"role": "assistant", "content": [{"type": "tool_use", "id": c["call_id"], "name": c["name"],
                                                   "input": json.loads(c["arguments"] or "{}")} for c in calls]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": c["call_id"], "content": out,
                                              **({"is_error": True} if failed else {})}
                                             for c, out, failed in outputs]}]
    return [*(_call_item(c) for c in calls),
            *({"type": f"{'custom_tool_call' if c.get('type') == 'custom' else 'function_call'}_output",
               "call_id": c["call_id"], "output": out} for c, out, _ in outputs)]


def _call_item(call: dict[str, Any]) -> dict[str, Any]:
    """A reported call as a Responses input item: a function_call, or a custom_tool_call with its raw input."""
    if call.get("type") == "custom":
        return {"type": "custom_tool_call", "call_id": call["call_id"], "name": call["name"], "input": call["input"]}
    return {"type": "function_call", "call_id": call["call_id"], "name": call["name"], "arguments": call["arguments"]}


def extended(dialect: str, request: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """The request with `items` (earlier calls and results) after its input or messages."""
    if dialect == "responses":
        given = request["input"]
        first = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
        return {**request, "input": first + items}
    return {**request, "messages": [*request["messages"], *items]}


class Driver:
    """Runs one case as the adapter protocol says: retries an HTTP 429/5xx up to `max_retries` times after its
    Retry-After, and with `tool_loop` sends every call's tool output back until an answer has no call (at most
    `max_turns` requests). `attempt(request)` runs one request with a fresh client; the defects override the hooks."""

    def __init__(self, attempt: Any, dialect: str, *, tool_loop: bool = False, max_retries: int = 0,
                 max_turns: int = 8) -> None:
        self.attempt, self.dialect = attempt, dialect
        self.tool_loop, self.max_retries, self.max_turns = tool_loop, max_retries, max_turns

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)

    def next_items(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return history(self.dialect, calls)

    def done(self, result: dict[str, Any]) -> bool:
        return not result["tool_calls"] or result["error"] is not None

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        retries = self.max_retries
        result: dict[str, Any] = {}
        for _ in range(self.max_turns):
            result = self.attempt(extended(self.dialect, request, items) if items else request)
            wait = retry_wait(result.get("error"), retries)
            if wait is not None:
                retries -= 1
                self.wait(wait)
                continue
            if not self.tool_loop or self.done(result):
                return result
            items += self.next_items(result["tool_calls"])
        return result



# -- the defects -------------------------------------------------------------------------------------------


class SwallowsErrors(ReferenceClient):
    """Reports `error: null` on an HTTP error, `response.failed`, an `error` event or a cut stream.
    Caught by CLI-002 (errors are reported, never swallowed)."""

    def fail(self, message: str) -> None:
        pass


class PartialCallComplete(ReferenceClient):
    """Reports a call built from `output_item.added` and its argument deltas although the stream was cut before
    its done events (the error itself is reported). Caught by CLI-003 (partial calls are not reported as
    complete)."""

    def is_complete(self, item: Item) -> bool:
        return item.status != "incomplete"

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return None  # the cut call's arguments are handed on as they are


class DropsCallId(ReferenceClient):
    """Reports `""` as every call's call_id. Caught by CLI-004 (each call keeps its call_id)."""

    def call(self, item: Item) -> dict[str, Any]:
        return {**super().call(item), "call_id": ""}


class IgnoresIncomplete(ReferenceClient):
    """Never sets `incomplete`, so a turn cut by the token limit looks finished. Caught by CLI-005."""

    def on_incomplete(self) -> None:
        pass


class CrashesOnParallel(ReferenceClient):
    """Raises an uncaught exception (a traceback, exit 1) when a response has two or more calls.
    Caught by CLI-001 (the adapter exits 0 with one JSON object)."""

    def tool_calls(self) -> list[dict[str, Any]]:
        calls = super().tool_calls()
        if len(calls) > 1:
            raise RuntimeError(f"CrashesOnParallel: {len(calls)} tool calls, expected at most one")
        return calls


class FirstCallOnly(ReferenceClient):
    """Reports only the first call of a turn. Caught by EXP-001 (the calls equal the scenario's)."""

    def tool_calls(self) -> list[dict[str, Any]]:
        return super().tool_calls()[:1]


class ErrorOnKeepalive(ReferenceClient):
    """Reports an error for an SSE comment line (`: keep-alive`), a false error on a good stream.
    Caught by CLI-006 (no error on a conformant stream)."""

    def on_comment(self, line: str) -> None:
        self.fail(f"unexpected line in the event stream: {line!r}")


class HandsOnMalformedArguments(ReferenceClient):
    """hands_on_malformed_arguments: a call whose arguments are not JSON is reported as a call, with no error
    (CLI-008)."""

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return None


class CustomAsFunction(ReferenceClient):
    """custom_as_function: reports a custom tool call as a function call whose arguments wrap the input as
    `{"input": ...}`, as a client that knows only function tools would. Caught by CLI-018."""

    def call(self, item: Item) -> dict[str, Any]:
        call = super().call(item)
        if call.pop("type", None) == "custom":
            return {**call, "arguments": json.dumps({"input": call.pop("input")})}
        return call


class CustomInputJsonParsed(ReferenceClient):
    """custom_input_json_parsed: runs a custom call's input through the JSON parser that function arguments get,
    and leaves out (without an error) a call whose input does not parse, as CLI-008 says of function arguments;
    a freeform apply_patch input is lost. Caught by CLI-018 (a custom call is never dropped)."""

    def tool_calls(self) -> list[dict[str, Any]]:
        calls = super().tool_calls()
        return [c for c in calls if c.get("type") != "custom" or _parses(c["input"])]


class ReasoningInText(ReferenceClient):
    """reasoning_in_text: the reasoning text and summary deltas are added to the answer text, before it, as a
    client that appends every `*.delta` string does. Caught by CLI-019."""

    def answer(self, items: list[Item]) -> dict[str, Any]:
        answer = super().answer(items)
        thought = "".join(item.thought[k] for item in items for k in sorted(item.thought))
        summary = "".join(item.summary[k] for item in items for k in sorted(item.summary))
        return {**answer, "text": thought + summary + answer["text"]}


class ReasoningFirstPartOnly(ReferenceClient):
    """reasoning_first_part_only: reports only the first summary part of the reasoning as `reasoning`, as a client
    that keeps summary[0] does. Caught by CLI-019 (a reported reasoning is the whole summary)."""

    def answer(self, items: list[Item]) -> dict[str, Any]:
        answer = super().answer(items)
        return {**answer, "reasoning": answer["reasoning"].split("\n\n")[0]}


class RefusalAsText(ReferenceClient):
    """refusal_as_text: a refusal part is read as answer text, and no refusal is reported, as a client that reads
    every content part's string does. Caught by EXP-005 (a refusal arrives as a refusal)."""

    def answer(self, items: list[Item]) -> dict[str, Any]:
        answer = super().answer(items)
        return {**answer, "text": answer["text"] + (answer["refusal"] or ""), "refusal": None}


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


class Hangs(ReferenceClient):
    """Sleeps for an hour when the request has `tool_choice: "required"`. Caught by CLI-001 (the case timeout)."""

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("tool_choice") == "required":
            time.sleep(3600)
        return super().run(request)


class _NoToolOutputs(Driver):
    def next_items(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return []


class NoToolOutputs(ReferenceClient):
    """no_tool_outputs: in an agent loop, sends the next request without the calls or their outputs (the mock
    refuses it: the leg requires them). Caught by CLI-014."""

    driver = _NoToolOutputs


class _OutputsTwice(Driver):
    def next_items(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items = super().next_items(calls)
        return items + [i for i in items if i.get("type") == "function_call_output"]


class OutputsTwice(ReferenceClient):
    """outputs_twice: in an agent loop, sends every call's output twice in the next request. Caught by CLI-014."""

    driver = _OutputsTwice


class _LoopsOnCall(Driver):
    last: list[dict[str, Any]] = []  # noqa: RUF012 (set per run)

    def done(self, result: dict[str, Any]) -> bool:
        return result["error"] is not None

    def next_items(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.last = calls or self.last  # an answer without calls: the last call again
        return super().next_items(self.last)


class LoopsOnCall(ReferenceClient):
    """loops_on_call: in an agent loop, does not stop on an answer without calls but sends the last call and its
    output again, until the mock's strict end refuses it (409). Caught by CLI-014."""

    driver = _LoopsOnCall


class _IgnoresRetryAfter(Driver):
    def wait(self, seconds: float) -> None:
        pass


class IgnoresRetryAfter(ReferenceClient):
    """ignores_retry_after: retries a 429/503 at once, whatever its Retry-After. Caught by CLI-015."""

    driver = _IgnoresRetryAfter


#: Defect name -> the broken client (`--defect NAME`).
DEFECTS: dict[str, type[ReferenceClient]] = {
    "swallows_errors": SwallowsErrors,
    "partial_call_complete": PartialCallComplete,
    "drops_call_id": DropsCallId,
    "ignores_incomplete": IgnoresIncomplete,
    "crashes_on_parallel": CrashesOnParallel,
    "first_call_only": FirstCallOnly,
    "error_on_keepalive": ErrorOnKeepalive,
    "hangs": Hangs,
    "hands_on_malformed_arguments": HandsOnMalformedArguments,
    "no_tool_outputs": NoToolOutputs,
    "outputs_twice": OutputsTwice,
    "loops_on_call": LoopsOnCall,
    "ignores_retry_after": IgnoresRetryAfter,
    "reasoning_in_text": ReasoningInText,
    "custom_as_function": CustomAsFunction,
    "custom_input_json_parsed": CustomInputJsonParsed,
    "reasoning_first_part_only": ReasoningFirstPartOnly,
    "refusal_as_text": RefusalAsText,
}


class _Client(Protocol):
    def __init__(self, base_url: str, api_key: str = ..., timeout: float = ...) -> None: ...
    def fail(self, message: str) -> None: ...
    def result(self) -> dict[str, Any]: ...
    def run(self, request: dict[str, Any]) -> dict[str, Any]: ...


def dialect_defects() -> dict[str, tuple[type[_Client], dict[str, type[_Client]]]]:
    """Dialect -> (its reference client, its defects)."""
    from . import (  # they import this module
        anthropic_clients,
        chat_clients,
        edge_clients,
        framing_clients,
        id_clients,
        layer_clients,
        seed_clients,
    )

    return {
        "responses": (ReferenceClient, {**DEFECTS, **framing_clients.DEFECTS, **seed_clients.DEFECTS,
                                        **edge_clients.DEFECTS, **layer_clients.DEFECTS, **id_clients.DEFECTS}),
        "chat": (chat_clients.ChatReferenceClient,
                 {**chat_clients.DEFECTS, **framing_clients.CHAT_DEFECTS, **seed_clients.CHAT_DEFECTS,
                  **layer_clients.CHAT_DEFECTS}),
        "anthropic": (anthropic_clients.AnthropicReferenceClient,
                      {**anthropic_clients.DEFECTS, **framing_clients.ANTHROPIC_DEFECTS,
                       **seed_clients.ANTHROPIC_DEFECTS, **layer_clients.ANTHROPIC_DEFECTS}),
    }


def _drive(kind: type[_Client], request: dict[str, Any], base_url: str, dialect: str, tool_loop: bool,
           max_retries: int) -> dict[str, Any]:
    """One case of the client class `kind` through its `Driver` (the loop defects name their own)."""
    key = os.environ.get("OPENAI_API_KEY", "callproof")
    driver: type[Driver] = getattr(kind, "driver", Driver)
    return driver(lambda body: kind(base_url, key).run(body), dialect, tool_loop=tool_loop,
                  max_retries=max_retries).run(request)


def run(request: dict[str, Any], base_url: str, dialect: str = "responses", tool_loop: bool = False,
        max_retries: int = 0) -> dict[str, Any]:
    """The reference client of `dialect` in-process (`--client tests.fakes.clients:run`, which gets the run's
    `--client-dialect`, and `tool_loop` / `max_retries` in a sequence case)."""
    return _drive(dialect_defects()[dialect][0], request, base_url, dialect, tool_loop, max_retries)


class _Broken:
    """`--client tests.fakes.clients:broken.<defect>`: the defect's client of the run's dialect in-process, as
    `run` is the reference client (what `--defect` runs as a program)."""

    def __getattr__(self, defect: str) -> Callable[..., dict[str, Any]]:
        if defect.startswith("__"):
            raise AttributeError(defect)

        def broken(request: dict[str, Any], base_url: str, dialect: str = "responses", tool_loop: bool = False,
                   max_retries: int = 0) -> dict[str, Any]:
            kind = dialect_defects()[dialect][1].get(defect)
            if kind is None:
                raise ValueError(f"{defect!r} is not a {dialect} defect of tests.fakes.clients")
            return _drive(kind, request, base_url, dialect, tool_loop, max_retries)

        return broken


broken = _Broken()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dialect", choices=DIALECTS, default=os.environ.get("CALLPROOF_DIALECT") or "responses",
                        help="the dialect to speak (default: $CALLPROOF_DIALECT, else responses)")
    parser.add_argument("--defect", help="run a broken variant of the dialect's client instead of the reference")
    args = parser.parse_args(argv)
    kinds = dialect_defects()
    if args.dialect not in kinds:
        parser.error(f"--dialect {args.dialect!r}: use one of {', '.join(DIALECTS)}")
    reference, defects = kinds[args.dialect]
    if args.defect is not None and args.defect not in defects:
        names = ", ".join(sorted(defects))
        parser.error(f"--defect {args.defect!r} is not a {args.dialect} defect; use one of {names}")
    base_url = os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        parser.error("set CALLPROOF_BASE_URL (or OPENAI_BASE_URL) to the upstream's URL including /v1")
    kind = defects[args.defect] if args.defect else reference
    client = kind(base_url, os.environ.get("OPENAI_API_KEY", "callproof"))
    try:
        request = _obj(json.load(sys.stdin), "stdin")
    except ValueError as exc:
        client.fail(f"stdin is not one JSON object: {exc}")
        result = client.result()
    else:
        result = _drive(kind, request, base_url, args.dialect, os.environ.get("CALLPROOF_TOOL_LOOP") == "1",
                        int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0))
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
