#!/usr/bin/env python3
"""Write the bundled example captures under examples/captures/ (stdlib only, deterministic).

    python examples/captures/generate.py      # rewrites every capture and removes stale ones

A capture is the raw body of one HTTP response exactly as it crosses the wire: SSE bytes (`.sse`) or a
non-stream JSON body (`.json`). Layout: `<front>/<profile>/ok/<slug>.sse` for streams that pass every rule
of that front and profile, and `<front>/<profile>/broken/<RULE-ID>--<slug>.sse` for a correct stream with
ONE small mutation that breaks exactly the rule named in the file name and no other
(tests/examples/test_captures.py checks both).

The builders below emit the shapes the real APIs send (docs/spec/): the full Response
object in response.created / in_progress / terminal events, `sequence_number` from 0, `fc_` / `msg_` item
ids and `call_` call ids, `logprobs: []` and `obfuscation` on text deltas, `name` on
function_call_arguments.done (not on open-responses, whose schema has none), no `[DONE]` on the OpenAI
Responses front, `[DONE]`, the nested `error` event and `response.reasoning.*` names on open-responses.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Event = dict[str, Any]
Profile = Literal["openai", "open-responses", "lenient"]

HERE = Path(__file__).resolve().parent
FRONT_DIRS = ("responses", "chat", "anthropic")
KINDS = ("ok", "broken")

#: 2026-01-01T00:00:00Z: every capture was "recorded" at this instant.
T0 = 1767225600
RSP_MODEL = "gpt-4.1-2025-04-14"
OR_MODEL = "gpt-oss-120b"
CHAT_MODEL = "gpt-4.1-2025-04-14"
ANT_MODEL = "claude-sonnet-4-5-20250929"
SERVER_ERROR = (
    "The server had an error processing your request. Sorry about that! You can retry your request."
)

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# -- deterministic ids and JSON ------------------------------------------------------------------------------
def _digest(seed: str, size: int) -> bytes:
    out = b""
    block = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}#{block}".encode()).digest()
        block += 1
    return out[:size]


def hex_id(prefix: str, seed: str, length: int = 48) -> str:
    return prefix + _digest(seed, length).hex()[:length]


def b62_id(prefix: str, seed: str, length: int) -> str:
    return prefix + "".join(_B62[b % 62] for b in _digest(seed, length))


def dumps(value: object) -> str:
    """Compact JSON, UTF-8 kept as is: how the OpenAI and Anthropic APIs write event data."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- SSE framing ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Frame:
    """One SSE event block: optional `id:` and `event:` fields, then one `data:` line (None: no data line)."""

    data: str | None
    event: str | None = None
    id: str | None = None

    def encode(self, errors: str = "strict") -> bytes:
        lines = []
        if self.id is not None:
            lines.append(f"id: {self.id}")
        if self.event is not None:
            lines.append(f"event: {self.event}")
        if self.data is not None:
            lines.append(f"data: {self.data}")
        return ("\n".join(lines) + "\n\n").encode("utf-8", errors)


DONE = Frame("[DONE]")


def encode(frames: Sequence[Frame]) -> bytes:
    return b"".join(frame.encode() for frame in frames)


def index_of(events: Sequence[Event], type_: str, nth: int = 0, **match: object) -> int:
    """Position of the `nth` event of `type_` whose fields equal `match`."""
    found = [
        i for i, e in enumerate(events)
        if e.get("type") == type_ and all(e.get(k) == v for k, v in match.items())
    ]
    if nth >= len(found) or nth < -len(found):
        raise LookupError(f"no event #{nth} of type {type_!r} with {match}")
    return found[nth]


# -- argument and text fragments, as models emit them --------------------------------------------------------
PARIS = ['{"', "location", '":"', "Paris", ",", " France", '","', "unit", '":"', "c", "elsius", '"}']
TOKYO = ['{"', "location", '":"', "Tokyo", ",", " Japan", '","', "unit", '":"', "c", "elsius", '"}']
NO_ARGS = ["{}"]
PARIS_TRUNCATED = ['{"', "location", '":"', "Par"]
HELLO = ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]
BEFORE = ["Let", " me", " check", " the", " weather", " for", " you", "."]
AFTER = ["I", "'ll", " report", " both", " temperatures", " in", " °C", "."]
THINKING = ["The", " user", " wants", " the", " weather", " in", " Paris", ";", " call", " get_weather", "."]
ANT_PARIS = ["", '{"location": "Par', 'is, France"', ', "unit": "cel', 'sius"}']
ANT_TOKYO = ["", '{"location": "Tok', 'yo, Japan"', ', "unit": "cel', 'sius"}']
ANT_PARIS_TRUNCATED = ["", '{"location": "Par']

WEATHER_TOOL: Event = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City and country, e.g. Paris, France"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}
TIME_TOOL: Event = {
    "type": "function",
    "name": "get_current_time",
    "description": "Get the current UTC time.",
    "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    "strict": True,
}
TOOLS = [WEATHER_TOOL, TIME_TOOL]


# -- Responses (OpenAI Responses API / Open Responses) -------------------------------------------------------
def text_part(text: str) -> Event:
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


class RspStream:
    """Builds a Responses event stream item by item; `sse()` numbers and frames it."""

    def __init__(
        self, seed: str, profile: Profile = "openai", *, max_output_tokens: int | None = None
    ) -> None:
        self.seed = seed
        self.profile: Profile = profile
        self.max_output_tokens = max_output_tokens
        self.events: list[Event] = []
        self.output: list[Event] = []
        self.response_id = hex_id("resp_", f"{seed}/response")
        self._next_index = 0
        self._deltas = 0
        self._call_ids = 0

    # ids and small pieces
    def item_id(self, prefix: str, output_index: int) -> str:
        return hex_id(prefix, f"{self.seed}/item/{output_index}")

    def new_call_id(self) -> str:
        self._call_ids += 1
        return b62_id("call_", f"{self.seed}/call/{self._call_ids}", 24)

    def _obfuscation(self) -> str:
        self._deltas += 1
        seed = f"{self.seed}/obfuscation/{self._deltas}"
        return b62_id("", seed, 4 + _digest(seed, 1)[0] % 12)

    def emit(self, type_: str, **fields: Any) -> Event:
        event: Event = {"type": type_, **copy.deepcopy(fields)}
        self.events.append(event)
        return event

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def response(self, status: str) -> Event:
        final = status in ("completed", "incomplete", "failed")
        output_tokens = 3 + self._deltas
        usage = {
            "input_tokens": 142,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 142 + output_tokens,
        }
        open_responses = self.profile == "open-responses"
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": T0,
            "status": status,
            "background": False,
            "completed_at": T0 + 2 if status == "completed" else None,
            "error": {"code": "server_error", "message": SERVER_ERROR} if status == "failed" else None,
            "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
            "instructions": None,
            "max_output_tokens": self.max_output_tokens,
            "max_tool_calls": None,
            "model": OR_MODEL if open_responses else RSP_MODEL,
            "output": copy.deepcopy(self.output) if final else [],
            "parallel_tool_calls": True,
            "presence_penalty": 0.0,
            "frequency_penalty": 0.0,
            "previous_response_id": None,
            "prompt_cache_key": None,
            "reasoning": {"effort": "medium" if open_responses else None, "summary": None},
            "safety_identifier": None,
            "service_tier": "default",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": copy.deepcopy(TOOLS),
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage if status in ("completed", "incomplete") else None,
            "user": None,
            "metadata": {},
        }

    # the stream
    def start(self) -> RspStream:
        self.emit("response.created", response=self.response("in_progress"))
        self.emit("response.in_progress", response=self.response("in_progress"))
        return self

    def text(self, chunks: Sequence[str], *, status: str = "completed") -> Event:
        index = self._take_index()
        item_id = self.item_id("msg_", index)
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        self.emit("response.output_item.added", output_index=index,
                  item={"id": item_id, "type": "message", "status": "in_progress", "content": [],
                        "role": "assistant"})
        self.emit("response.content_part.added", **where, part=text_part(""))
        for chunk in chunks:
            self.emit("response.output_text.delta", **where, delta=chunk, logprobs=[],
                      obfuscation=self._obfuscation())
        text = "".join(chunks)
        self.emit("response.output_text.done", **where, text=text, logprobs=[])
        self.emit("response.content_part.done", **where, part=text_part(text))
        item = {"id": item_id, "type": "message", "status": status, "content": [text_part(text)],
                "role": "assistant"}
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(copy.deepcopy(item))
        return item

    def _call_added(self, name: str) -> tuple[int, str, str]:
        index = self._take_index()
        item_id = self.item_id("fc_", index)
        call_id = self.new_call_id()
        self.emit("response.output_item.added", output_index=index,
                  item={"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "",
                        "call_id": call_id, "name": name})
        return index, item_id, call_id

    def _call_delta(self, index: int, item_id: str, chunk: str) -> None:
        self.emit("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=chunk,
                  obfuscation=self._obfuscation())

    def _call_done(
        self, index: int, item_id: str, call_id: str, name: str, arguments: str, status: str
    ) -> Event:
        if self.profile == "open-responses":  # the Open Responses event has no `name`
            self.emit("response.function_call_arguments.done", item_id=item_id, output_index=index,
                      arguments=arguments)
        else:
            self.emit("response.function_call_arguments.done", item_id=item_id, name=name, output_index=index,
                      arguments=arguments)
        item = {"id": item_id, "type": "function_call", "status": status, "arguments": arguments,
                "call_id": call_id, "name": name}
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(copy.deepcopy(item))
        return item

    def call(self, name: str, chunks: Sequence[str], *, status: str = "completed") -> Event:
        index, item_id, call_id = self._call_added(name)
        for chunk in chunks:
            self._call_delta(index, item_id, chunk)
        return self._call_done(index, item_id, call_id, name, "".join(chunks), status)

    def interleaved_calls(self, calls: Sequence[tuple[str, Sequence[str]]]) -> list[Event]:
        """Parallel calls whose argument deltas alternate (each with its own item_id and output_index)."""
        started = []
        for name, chunks in calls:
            index, item_id, call_id = self._call_added(name)
            self._call_delta(index, item_id, chunks[0])
            started.append((index, item_id, call_id, name, chunks))
        for step in range(1, max(len(c) for _, c in calls)):
            for index, item_id, _, _, chunks in started:
                if step < len(chunks):
                    self._call_delta(index, item_id, chunks[step])
        return [self._call_done(index, item_id, call_id, name, "".join(chunks), "completed")
                for index, item_id, call_id, name, chunks in started]

    def reasoning(self, chunks: Sequence[str]) -> Event:
        """A reasoning item with streamed reasoning text (open-responses names response.reasoning.*)."""
        prefix = "response.reasoning" if self.profile == "open-responses" else "response.reasoning_text"
        index = self._take_index()
        item_id = self.item_id("rs_", index)
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        self.emit("response.output_item.added", output_index=index,
                  item={"id": item_id, "type": "reasoning", "summary": [], "content": []})
        self.emit("response.content_part.added", **where, part={"type": "reasoning_text", "text": ""})
        for chunk in chunks:
            self.emit(f"{prefix}.delta", **where, delta=chunk)
        text = "".join(chunks)
        self.emit(f"{prefix}.done", **where, text=text)
        self.emit("response.content_part.done", **where, part={"type": "reasoning_text", "text": text})
        item = {"id": item_id, "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text",
                                                                                 "text": text}]}
        self.emit("response.output_item.done", output_index=index, item=item)
        self.output.append(copy.deepcopy(item))
        return item

    def completed(self) -> RspStream:
        self.emit("response.completed", response=self.response("completed"))
        return self

    def incomplete(self) -> RspStream:
        self.emit("response.incomplete", response=self.response("incomplete"))
        return self

    def failed(self) -> RspStream:
        self.emit("response.failed", response=self.response("failed"))
        return self

    def error(self) -> RspStream:
        """An in-stream error event: flat on OpenAI, a nested `error` object on Open Responses."""
        if self.profile == "open-responses":
            self.emit("error", error={"type": "server_error", "code": "server_error", "message": SERVER_ERROR,
                                      "param": None})
        else:
            self.emit("error", code="server_error", message=SERVER_ERROR, param=None)
        return self

    # serialization
    def numbered(self, start: int = 0) -> list[Event]:
        """The events with `sequence_number` (right after `type`, as the API writes it) from `start` on."""
        out = []
        for offset, event in enumerate(self.events):
            numbered = {"type": event["type"], "sequence_number": start + offset}
            numbered.update((k, v) for k, v in event.items() if k != "type")
            out.append(copy.deepcopy(numbered))
        return out

    def with_done(self) -> bool:
        return self.profile == "open-responses"

    def sse(self, events: Sequence[Event] | None = None, *, done: bool | None = None) -> bytes:
        return encode(rsp_frames(self.numbered() if events is None else events,
                                 done=self.with_done() if done is None else done))


def rsp_frames(events: Sequence[Event], *, done: bool = False) -> list[Frame]:
    frames = [Frame(dumps(event), event=event.get("type")) for event in events]
    return [*frames, DONE] if done else frames


def rsp_body(stream: RspStream) -> bytes:
    """The non-stream body: the terminal event's Response."""
    terminal = stream.events[-1]
    return (json.dumps(terminal["response"], ensure_ascii=False, indent=2) + "\n").encode()


# -- Chat Completions ----------------------------------------------------------------------------------------
class ChatStream:
    """Builds a chat.completion.chunk stream (stream_options.include_usage on, as most clients send it)."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.id = b62_id("chatcmpl-", f"{seed}/id", 29)
        self.fingerprint = hex_id("fp_", f"{seed}/fp", 10)
        self.chunks: list[Event] = []
        self._role_sent = False
        self._calls = 0
        self._count = 0

    def new_call_id(self) -> str:
        self._calls += 1
        return b62_id("call_", f"{self.seed}/call/{self._calls}", 24)

    def chunk(self, choices: list[Event], usage: Event | None = None) -> Event:
        self._count += 1
        seed = f"{self.seed}/obfuscation/{self._count}"
        chunk: Event = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": T0,
            "model": CHAT_MODEL,
            "service_tier": "default",
            "system_fingerprint": self.fingerprint,
            "choices": choices,
            "usage": usage,
            "obfuscation": b62_id("", seed, 2 + _digest(seed, 1)[0] % 10),
        }
        self.chunks.append(chunk)
        return chunk

    def delta(self, delta: Event, finish: str | None = None) -> Event:
        return self.chunk([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    def _first(self, delta: Event, content: str | None) -> Event:
        if self._role_sent:
            return delta
        self._role_sent = True
        return {"role": "assistant", "content": content, **delta, "refusal": None}

    def text(self, chunks: Sequence[str]) -> ChatStream:
        if not self._role_sent:
            self.delta(self._first({}, ""))
        for chunk in chunks:
            self.delta({"content": chunk})
        return self

    def call_start(self, index: int, name: str, call_id: str | None = None) -> Event:
        call = {"index": index, "id": call_id or self.new_call_id(), "type": "function",
                "function": {"name": name, "arguments": ""}}
        return self.delta(self._first({"tool_calls": [call]}, None))

    def call_fragment(self, index: int, fragment: str) -> Event:
        return self.delta({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})

    def call(self, index: int, name: str, chunks: Sequence[str]) -> ChatStream:
        self.call_start(index, name)
        for chunk in chunks:
            self.call_fragment(index, chunk)
        return self

    def interleaved_calls(self, calls: Sequence[tuple[str, Sequence[str]]]) -> ChatStream:
        for index, (name, chunks) in enumerate(calls):
            self.call_start(index, name)
            self.call_fragment(index, chunks[0])
        for step in range(1, max(len(c) for _, c in calls)):
            for index, (_, chunks) in enumerate(calls):
                if step < len(chunks):
                    self.call_fragment(index, chunks[step])
        return self

    def finish(self, reason: str) -> ChatStream:
        self.delta({}, reason)
        completion = 2 + self._count
        self.chunk([], {
            "prompt_tokens": 142,
            "completion_tokens": completion,
            "total_tokens": 142 + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        })
        return self

    def frames(self, *, done: bool = True) -> list[Frame]:
        frames = [Frame(dumps(chunk)) for chunk in self.chunks]
        return [*frames, DONE] if done else frames

    def sse(self, *, done: bool = True) -> bytes:
        return encode(self.frames(done=done))


# -- Anthropic Messages --------------------------------------------------------------------------------------
PING: Event = {"type": "ping"}


class AntStream:
    """Builds an Anthropic Messages event stream, block by block."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.id = b62_id("msg_01", f"{seed}/id", 22)
        self.events: list[Event] = []
        self._blocks = 0
        self._tools = 0
        self._deltas = 0

    def emit(self, event: Event) -> Event:
        self.events.append(copy.deepcopy(event))
        return self.events[-1]

    def new_tool_id(self) -> str:
        self._tools += 1
        return b62_id("toolu_01", f"{self.seed}/tool/{self._tools}", 22)

    def start(self) -> AntStream:
        self.emit({"type": "message_start", "message": {
            "id": self.id, "type": "message", "role": "assistant", "model": ANT_MODEL, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                      "output_tokens": 2, "service_tier": "standard"}}})
        return self

    def _block_start(self, block: Event) -> int:
        index = self._blocks
        self._blocks += 1
        self.emit({"type": "content_block_start", "index": index, "content_block": block})
        if index == 0:
            self.emit(PING)  # the API pings right after the first block starts
        return index

    def _delta(self, index: int, delta: Event) -> None:
        self._deltas += 1
        self.emit({"type": "content_block_delta", "index": index, "delta": delta})

    def stop(self, index: int) -> None:
        self.emit({"type": "content_block_stop", "index": index})

    def text(self, chunks: Sequence[str]) -> AntStream:
        index = self._block_start({"type": "text", "text": ""})
        for chunk in chunks:
            self._delta(index, {"type": "text_delta", "text": chunk})
        self.stop(index)
        return self

    def tool_start(self, name: str, tool_id: str | None = None) -> int:
        block = {"type": "tool_use", "id": tool_id or self.new_tool_id(), "name": name, "input": {}}
        return self._block_start(block)

    def tool_delta(self, index: int, fragment: str) -> None:
        self._delta(index, {"type": "input_json_delta", "partial_json": fragment})

    def tool(self, name: str, chunks: Sequence[str]) -> AntStream:
        index = self.tool_start(name)
        for chunk in chunks:
            self.tool_delta(index, chunk)
        self.stop(index)
        return self

    def interleaved_tools(self, tools: Sequence[tuple[str, Sequence[str]]]) -> AntStream:
        indexes = []
        for name, chunks in tools:
            index = self.tool_start(name)
            self.tool_delta(index, chunks[0])
            indexes.append(index)
        for step in range(1, max(len(c) for _, c in tools)):
            for index, (_, chunks) in zip(indexes, tools, strict=True):
                if step < len(chunks):
                    self.tool_delta(index, chunks[step])
        for index in indexes:
            self.stop(index)
        return self

    def finish(self, stop_reason: str) -> AntStream:
        self.emit({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                   "usage": {"output_tokens": 4 + self._deltas}})
        self.emit({"type": "message_stop"})
        return self

    def error(self) -> AntStream:
        self.emit({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        return self

    def frames(self, events: Sequence[Event] | None = None) -> list[Frame]:
        return [ant_frame(event) for event in (self.events if events is None else events)]

    def sse(self, events: Sequence[Event] | None = None) -> bytes:
        return encode(self.frames(events))


def ant_frame(event: Event) -> Frame:
    # The API writes pings as `{"type": "ping"}` (with the space), everything else compact.
    data = json.dumps(event) if event == PING else dumps(event)
    return Frame(data, event=event.get("type"))


# -- the capture registry ------------------------------------------------------------------------------------
CAPTURES: dict[str, Callable[[], bytes]] = {}


def capture(path: str) -> Callable[[Callable[[], bytes]], Callable[[], bytes]]:
    """Register the function that builds the capture at `path` (relative to examples/captures/)."""

    def register(build: Callable[[], bytes]) -> Callable[[], bytes]:
        if path in CAPTURES:
            raise ValueError(f"two builders for {path}")
        CAPTURES[path] = build
        return build

    return register


# ============================================================================================================
# Responses front, openai profile: correct streams
# ============================================================================================================
def rsp_text_only(seed: str, profile: Profile = "openai") -> RspStream:
    s = RspStream(seed, profile).start()
    s.text(HELLO)
    return s.completed()


def rsp_one_call(seed: str, profile: Profile = "openai") -> RspStream:
    s = RspStream(seed, profile).start()
    s.call("get_weather", PARIS)
    return s.completed()


def rsp_parallel(seed: str, profile: Profile = "openai") -> RspStream:
    s = RspStream(seed, profile).start()
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    return s.completed()


def rsp_interleaved(seed: str, profile: Profile = "openai") -> RspStream:
    s = RspStream(seed, profile).start()
    s.interleaved_calls([("get_weather", PARIS), ("get_weather", TOKYO)])
    return s.completed()


def rsp_text_and_calls(seed: str, profile: Profile = "openai") -> RspStream:
    s = RspStream(seed, profile).start()
    s.text(BEFORE)
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    s.text(AFTER)
    return s.completed()


@capture("responses/openai/ok/text-only.sse")
def _() -> bytes:
    return rsp_text_only("rsp-text-only").sse()


@capture("responses/openai/ok/one-call.sse")
def _() -> bytes:
    return rsp_one_call("rsp-one-call").sse()


@capture("responses/openai/ok/parallel-calls.sse")
def _() -> bytes:
    return rsp_parallel("rsp-parallel").sse()


@capture("responses/openai/ok/interleaved-parallel-calls.sse")
def _() -> bytes:
    return rsp_interleaved("rsp-interleaved").sse()


@capture("responses/openai/ok/empty-arguments.sse")
def _() -> bytes:
    s = RspStream("rsp-empty-args").start()
    s.call("get_current_time", NO_ARGS)
    return s.completed().sse()


@capture("responses/openai/ok/text-before-and-after-calls.sse")
def _() -> bytes:
    return rsp_text_and_calls("rsp-text-and-calls").sse()


@capture("responses/openai/ok/incomplete-max-output-tokens.sse")
def _() -> bytes:
    s = RspStream("rsp-incomplete", max_output_tokens=16).start()
    s.text(BEFORE)
    s.call("get_weather", PARIS_TRUNCATED, status="incomplete")
    return s.incomplete().sse()


@capture("responses/openai/ok/failed.sse")
def _() -> bytes:
    return RspStream("rsp-failed").start().failed().sse()


@capture("responses/openai/ok/error-event.sse")
def _() -> bytes:
    # OpenAI ends a stream with a flat `error` event when it fails before producing a response.failed.
    return RspStream("rsp-error").start().error().sse()


@capture("responses/openai/ok/text-and-calls.json")
def _() -> bytes:
    return rsp_body(rsp_text_and_calls("rsp-body"))


# -- open-responses: [DONE], no `name` on arguments.done, response.reasoning.*, nested error -----------------
@capture("responses/open-responses/ok/text-only.sse")
def _() -> bytes:
    return rsp_text_only("or-text-only", "open-responses").sse()


@capture("responses/open-responses/ok/reasoning-and-parallel-calls.sse")
def _() -> bytes:
    s = RspStream("or-reasoning", "open-responses").start()
    s.reasoning(THINKING)
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    return s.completed().sse()


@capture("responses/open-responses/ok/interleaved-parallel-calls.sse")
def _() -> bytes:
    return rsp_interleaved("or-interleaved", "open-responses").sse()


@capture("responses/open-responses/ok/error-then-failed.sse")
def _() -> bytes:
    return RspStream("or-error", "open-responses").start().error().failed().sse()


@capture("responses/open-responses/ok/one-call.json")
def _() -> bytes:
    return rsp_body(rsp_one_call("or-body", "open-responses"))


# -- lenient: what real clients tolerate ---------------------------------------------------------------------
@capture("responses/lenient/ok/empty-string-arguments.sse")
def _() -> bytes:
    s = RspStream("lenient-empty-string", "lenient").start()
    s.call("get_current_time", [])
    return s.completed().sse()


@capture("responses/lenient/ok/no-arguments-done.sse")
def _() -> bytes:
    s = rsp_one_call("lenient-no-args-done", "lenient")
    del s.events[index_of(s.events, "response.function_call_arguments.done")]
    return s.sse()


@capture("responses/lenient/ok/text-without-content-part-events.sse")
def _() -> bytes:
    s = rsp_text_only("lenient-no-parts", "lenient")
    s.events = [e for e in s.events if not e["type"].startswith("response.content_part.")]
    return s.sse()


# ============================================================================================================
# Responses front: broken streams, one rule each
# ============================================================================================================
@capture("responses/openai/broken/SSE-001--invalid-utf8.sse")
def _() -> bytes:
    s = rsp_text_only("rsp-invalid-utf8")
    events = s.numbered()
    i = index_of(events, "response.output_text.delta", 2)
    events[i]["obfuscation"] = "Zq\udcffK"  # a lone 0xFF byte on the wire (surrogateescape below)
    return b"".join(frame.encode("surrogateescape") for frame in rsp_frames(events))


@capture("responses/openai/broken/SSE-004--event-name-differs-from-type.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-event-name")
    frames = rsp_frames(s.numbered())
    for frame in frames:
        if frame.event == "response.function_call_arguments.delta":
            frame.event = "response.function_call.arguments.delta"
    return encode(frames)


@capture("responses/openai/broken/RSP-FRAME-001--done-sentinel.sse")
def _() -> bytes:
    return rsp_one_call("rsp-done").sse(done=True)


@capture("responses/openai/broken/RSP-SCHEMA-001--text-delta-without-logprobs.sse")
def _() -> bytes:
    s = rsp_text_only("rsp-no-logprobs")
    for event in s.events:
        if event["type"] == "response.output_text.delta":
            del event["logprobs"]
    return s.sse()


@capture("responses/openai/broken/RSP-SCHEMA-002--unknown-event-type.sse")
def _() -> bytes:
    # A gateway emitting an invented event name next to the real deltas.
    s = rsp_one_call("rsp-unknown-type")
    i = index_of(s.events, "response.function_call_arguments.delta")
    delta = s.events[i]
    s.events.insert(i, {"type": "response.output_tool_call.delta", "item_id": delta["item_id"],
                        "output_index": delta["output_index"], "delta": delta["delta"]})
    return s.sse()


@capture("responses/openai/broken/RSP-SCHEMA-003--arguments-as-object.json")
def _() -> bytes:
    s = rsp_text_and_calls("rsp-body-args-object")
    body = json.loads(rsp_body(s))
    body["output"][1]["arguments"] = json.loads(body["output"][1]["arguments"])
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode()


@capture("responses/openai/broken/RSP-SEQ-001--missing-sequence-number.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-seq-missing")
    events = s.numbered()
    del events[index_of(events, "response.function_call_arguments.delta", 3)]["sequence_number"]
    return s.sse(events)


@capture("responses/openai/broken/RSP-SEQ-001--string-sequence-number.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-seq-string")
    events = s.numbered()
    event = events[index_of(events, "response.function_call_arguments.delta", 3)]
    event["sequence_number"] = str(event["sequence_number"])
    return s.sse(events)


@capture("responses/openai/broken/RSP-SEQ-002--starts-at-one.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-seq-from-1")
    return s.sse(s.numbered(start=1))


@capture("responses/openai/broken/RSP-SEQ-003--gap.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-seq-gap")
    events = s.numbered()
    for event in events[index_of(events, "response.function_call_arguments.delta", 4):]:
        event["sequence_number"] += 1  # number 6 is never sent
    return s.sse(events)


@capture("responses/openai/broken/RSP-SEQ-003--not-increasing.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-seq-repeat")
    events = s.numbered()
    for event in events[index_of(events, "response.function_call_arguments.delta", 4):]:
        event["sequence_number"] -= 1  # the counter repeats one number
    return s.sse(events)


@capture("responses/openai/broken/RSP-LIFE-001--missing-created.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-no-created")
    del s.events[0]
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-002--missing-terminal-event.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-no-terminal")
    s.events.pop()
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-003--event-after-terminal.sse")
def _() -> bytes:
    # The last output_item.done is flushed a second time after response.completed.
    s = rsp_one_call("rsp-after-terminal")
    s.events.append(copy.deepcopy(s.events[index_of(s.events, "response.output_item.done", -1)]))
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-004--delta-before-item-added.sse")
def _() -> bytes:
    # The first (empty) argument fragment is written before the item is announced.
    s = rsp_one_call("rsp-delta-first")
    added = index_of(s.events, "response.output_item.added")
    item = s.events[added]["item"]
    s.events.insert(added, {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                            "output_index": s.events[added]["output_index"], "delta": "",
                            "obfuscation": "q3Xz"})
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-005--arguments-done-after-item-done.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-after-item-done")
    args_done = s.events[index_of(s.events, "response.function_call_arguments.done")]
    s.events.insert(index_of(s.events, "response.output_item.done") + 1, copy.deepcopy(args_done))
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-006--item-never-done.sse")
def _() -> bytes:
    # The gateway forgets output_item.done for the last call (and builds output from the closed items).
    s = RspStream("rsp-never-done").start()
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    del s.events[index_of(s.events, "response.output_item.done", -1)]
    s.output.pop()
    return s.completed().sse()


@capture("responses/openai/broken/RSP-LIFE-007--no-arguments-done.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-no-args-done")
    del s.events[index_of(s.events, "response.function_call_arguments.done")]
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-008--text-without-content-part.sse")
def _() -> bytes:
    s = rsp_text_only("rsp-no-part")
    del s.events[index_of(s.events, "response.content_part.added")]
    return s.sse()


@capture("responses/openai/broken/RSP-LIFE-009--completed-with-status-in-progress.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-status")
    s.events[-1]["response"]["status"] = "in_progress"
    return s.sse()


@capture("responses/openai/broken/RSP-ID-001--interleaved-delta-with-wrong-output-index.sse")
def _() -> bytes:
    s = rsp_interleaved("rsp-wrong-index")
    deltas = [e for e in s.events if e["type"] == "response.function_call_arguments.delta"]
    deltas[5]["output_index"] = 1 - deltas[5]["output_index"]
    return s.sse()


@capture("responses/openai/broken/RSP-ID-001--interleaved-delta-with-wrong-item-id.sse")
def _() -> bytes:
    # An (empty) fragment of call 1 is labelled with the item_id of call 0, its output_index is right.
    s = rsp_interleaved("rsp-wrong-item-id")
    deltas = [e for e in s.events if e["type"] == "response.function_call_arguments.delta"]
    i = s.events.index(deltas[4])
    s.events.insert(i, {"type": "response.function_call_arguments.delta", "item_id": deltas[0]["item_id"],
                        "output_index": deltas[1]["output_index"], "delta": "", "obfuscation": "k2P"})
    return s.sse()


@capture("responses/openai/broken/RSP-ID-002--output-index-skips-one.sse")
def _() -> bytes:
    s = rsp_parallel("rsp-index-gap")
    second = s.events[index_of(s.events, "response.output_item.added", 1)]["item"]["id"]
    for event in s.events:
        if event.get("item_id") == second or event.get("item", {}).get("id") == second:
            event["output_index"] = 2
    return s.sse()


@capture("responses/openai/broken/RSP-ID-003--duplicate-item-id.sse")
def _() -> bytes:
    # Item ids derived from the upstream message id: both parallel calls get the same fc_ id.
    s = RspStream("rsp-dup-item")
    s.item_id = lambda prefix, output_index: hex_id(prefix, "rsp-dup-item/upstream")  # type: ignore[method-assign]
    s.start()
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    return s.completed().sse()


@capture("responses/openai/broken/RSP-ID-004--missing-call-id.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-no-call-id")
    for item in _call_items(s):
        del item["call_id"]
    return s.sse()


@capture("responses/openai/broken/RSP-ID-004--empty-call-id.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-empty-call-id")
    for item in _call_items(s):
        item["call_id"] = ""
    return s.sse()


def _call_items(s: RspStream) -> Iterator[Event]:
    """Every function_call item of the stream: in added/done events and in the terminal response."""
    for event in s.events:
        item = event.get("item")
        if isinstance(item, dict) and item.get("type") == "function_call":
            yield item
        response = event.get("response")
        if isinstance(response, dict):
            yield from (o for o in response["output"] if o.get("type") == "function_call")


@capture("responses/openai/broken/RSP-ID-005--empty-name-on-added.sse")
def _() -> bytes:
    # The name is only known at the end: output_item.added says "".
    s = rsp_one_call("rsp-empty-name")
    s.events[index_of(s.events, "response.output_item.added")]["item"]["name"] = ""
    return s.sse()


@capture("responses/openai/broken/RSP-ID-006--call-id-changes-on-done.sse")
def _() -> bytes:
    # A new call_id minted when the item is closed (the final response repeats the new one).
    s = rsp_one_call("rsp-call-id-changes")
    fresh = s.new_call_id()
    s.events[index_of(s.events, "response.output_item.done")]["item"]["call_id"] = fresh
    s.events[-1]["response"]["output"][0]["call_id"] = fresh
    return s.sse()


@capture("responses/openai/broken/RSP-ID-007--name-differs-on-arguments-done.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-name-differs")
    s.events[index_of(s.events, "response.function_call_arguments.done")]["name"] = "functions.get_weather"
    return s.sse()


@capture("responses/openai/broken/RSP-ID-008--duplicate-call-id.sse")
def _() -> bytes:
    # call_ids synthesized per stream instead of per call: both parallel calls get the same one.
    s = RspStream("rsp-dup-call-id")
    s.new_call_id = lambda: "call_0"  # type: ignore[method-assign]
    s.start()
    s.call("get_weather", PARIS)
    s.call("get_weather", TOKYO)
    return s.completed().sse()


@capture("responses/openai/broken/RSP-ID-009--completed-with-empty-output.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-empty-output")
    s.events[-1]["response"]["output"] = []
    return s.sse()


@capture("responses/openai/broken/RSP-ID-010--response-id-changes.sse")
def _() -> bytes:
    s = rsp_one_call("rsp-id-changes")
    s.events[-1]["response"]["id"] = hex_id("resp_", "rsp-id-changes/upstream")
    return s.sse()


@capture("responses/openai/broken/RSP-ARGS-001--arguments-done-differs-from-deltas.sse")
def _() -> bytes:
    # One fragment is lost in transit; arguments.done, the done item and the final response are complete.
    s = rsp_one_call("rsp-lost-delta")
    del s.events[index_of(s.events, "response.function_call_arguments.delta", 5)]
    return s.sse()


@capture("responses/openai/broken/RSP-ARGS-002--item-done-arguments-differ.sse")
def _() -> bytes:
    # The done item (and the final response built from it) says "{}" although other arguments were streamed.
    s = rsp_one_call("rsp-item-args")
    s.events[index_of(s.events, "response.output_item.done")]["item"]["arguments"] = "{}"
    s.events[-1]["response"]["output"][0]["arguments"] = "{}"
    return s.sse()


@capture("responses/openai/broken/RSP-ARGS-003--final-arguments-reserialized.sse")
def _() -> bytes:
    # The final response re-serializes the arguments JSON (same value, different string).
    s = rsp_one_call("rsp-final-args")
    final = s.events[-1]["response"]["output"][0]
    final["arguments"] = json.dumps(json.loads(final["arguments"]))
    return s.sse()


@capture("responses/openai/broken/RSP-ARGS-004--empty-arguments.sse")
def _() -> bytes:
    s = RspStream("rsp-empty-string-args").start()
    s.call("get_current_time", [])
    return s.completed().sse()


@capture("responses/openai/broken/RSP-TEXT-001--text-done-differs-from-deltas.sse")
def _() -> bytes:
    s = rsp_text_only("rsp-lost-text")
    del s.events[index_of(s.events, "response.output_text.delta", 3)]
    return s.sse()


@capture("responses/openai/broken/RSP-TEXT-002--final-text-differs.sse")
def _() -> bytes:
    # The final response carries only the last text fragment instead of the accumulated text.
    s = rsp_text_only("rsp-final-text")
    s.events[-1]["response"]["output"][0]["content"][0]["text"] = HELLO[-1]
    return s.sse()


# -- open-responses rules ------------------------------------------------------------------------------------
@capture("responses/open-responses/broken/RSP-FRAME-002--missing-done-sentinel.sse")
def _() -> bytes:
    return rsp_one_call("or-no-done", "open-responses").sse(done=False)


@capture("responses/open-responses/broken/RSP-FRAME-003--sse-id-fields.sse")
def _() -> bytes:
    s = rsp_one_call("or-sse-ids", "open-responses")
    frames = rsp_frames(s.numbered(), done=True)
    for number, frame in enumerate(frames[:-1]):
        frame.id = str(number)
    return encode(frames)


@capture("responses/open-responses/broken/RSP-LIFE-010--error-then-completed.sse")
def _() -> bytes:
    # The gateway reports the upstream error, then closes the response as if nothing happened.
    return RspStream("or-error-completed", "open-responses").start().error().completed().sse()


@capture("responses/open-responses/broken/RSP-SCHEMA-001--flat-openai-error.sse")
def _() -> bytes:
    s = RspStream("or-flat-error", "open-responses").start()
    s.emit("error", code="server_error", message=SERVER_ERROR, param=None)
    return s.failed().sse()


@capture("responses/open-responses/broken/RSP-SCHEMA-002--openai-reasoning-text-events.sse")
def _() -> bytes:
    s = RspStream("or-reasoning-text", "open-responses").start()
    s.reasoning(THINKING)
    s.call("get_weather", PARIS)
    for event in s.events:
        event["type"] = event["type"].replace("response.reasoning.", "response.reasoning_text.")
    return s.completed().sse()


# -- lenient rules -------------------------------------------------------------------------------------------
@capture("responses/lenient/broken/RSP-LIFE-005--arguments-done-after-item-done.sse")
def _() -> bytes:
    s = rsp_one_call("lenient-late-args-done", "lenient")
    args_done = s.events.pop(index_of(s.events, "response.function_call_arguments.done"))
    s.events.insert(index_of(s.events, "response.output_item.done") + 1, args_done)
    return s.sse()


@capture("responses/lenient/broken/RSP-ARGS-002--empty-arguments-on-item-done.sse")
def _() -> bytes:
    s = rsp_one_call("lenient-item-args", "lenient")
    s.events[index_of(s.events, "response.output_item.done")]["item"]["arguments"] = ""
    s.events[-1]["response"]["output"][0]["arguments"] = ""
    return s.sse()


# ============================================================================================================
# Chat Completions front
# ============================================================================================================
def chat_one_call(seed: str) -> ChatStream:
    return ChatStream(seed).call(0, "get_weather", PARIS).finish("tool_calls")


def chat_parallel(seed: str) -> ChatStream:
    return ChatStream(seed).call(0, "get_weather", PARIS).call(1, "get_weather", TOKYO).finish("tool_calls")


@capture("chat/openai/ok/text-only.sse")
def _() -> bytes:
    return ChatStream("chat-text-only").text(HELLO).finish("stop").sse()


@capture("chat/openai/ok/one-call.sse")
def _() -> bytes:
    return chat_one_call("chat-one-call").sse()


@capture("chat/openai/ok/parallel-calls.sse")
def _() -> bytes:
    return chat_parallel("chat-parallel").sse()


@capture("chat/openai/ok/interleaved-parallel-calls.sse")
def _() -> bytes:
    s = ChatStream("chat-interleaved").interleaved_calls([("get_weather", PARIS), ("get_weather", TOKYO)])
    return s.finish("tool_calls").sse()


@capture("chat/openai/ok/empty-arguments.sse")
def _() -> bytes:
    return ChatStream("chat-empty-args").call(0, "get_current_time", NO_ARGS).finish("tool_calls").sse()


@capture("chat/openai/ok/text-before-and-after-calls.sse")
def _() -> bytes:
    s = ChatStream("chat-text-and-calls").text(BEFORE)
    s.call(0, "get_weather", PARIS).call(1, "get_weather", TOKYO).text(AFTER)
    return s.finish("tool_calls").sse()


@capture("chat/openai/ok/incomplete-length.sse")
def _() -> bytes:
    s = ChatStream("chat-length").text(BEFORE).call(0, "get_weather", PARIS_TRUNCATED)
    return s.finish("length").sse()


@capture("chat/openai/ok/tool-calls.json")
def _() -> bytes:
    s = ChatStream("chat-body")
    calls = [
        {"id": s.new_call_id(), "type": "function",
         "function": {"name": "get_weather", "arguments": "".join(args)}}
        for args in (PARIS, TOKYO)
    ]
    body = {
        "id": s.id,
        "object": "chat.completion",
        "created": T0,
        "model": CHAT_MODEL,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": None, "tool_calls": calls, "refusal": None,
                        "annotations": []},
            "logprobs": None,
            "finish_reason": "tool_calls",
        }],
        "usage": {
            "prompt_tokens": 142, "completion_tokens": 51, "total_tokens": 193,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": s.fingerprint,
    }
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode()


@capture("chat/openai/broken/SSE-003--keep-alive-data.sse")
def _() -> bytes:
    s = chat_one_call("chat-keep-alive")
    frames = s.frames()
    frames.insert(4, Frame("keep-alive"))
    return encode(frames)


@capture("chat/openai/broken/CHAT-FRAME-001--missing-done.sse")
def _() -> bytes:
    return chat_one_call("chat-no-done").sse(done=False)


@capture("chat/openai/broken/CHAT-SCHEMA-001--usage-chunk-without-choices.sse")
def _() -> bytes:
    s = chat_one_call("chat-no-choices")
    del s.chunks[-1]["choices"]
    return s.sse()


@capture("chat/openai/broken/CHAT-SCHEMA-002--arguments-as-object.json")
def _() -> bytes:
    body = json.loads(CAPTURES["chat/openai/ok/tool-calls.json"]())
    function = body["choices"][0]["message"]["tool_calls"][0]["function"]
    function["arguments"] = json.loads(function["arguments"])
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode()


@capture("chat/openai/broken/CHAT-ID-001--usage-chunk-with-other-id.sse")
def _() -> bytes:
    s = chat_one_call("chat-other-id")
    s.chunks[-1]["id"] = b62_id("chatcmpl-", "chat-other-id/usage", 29)
    return s.sse()


@capture("chat/openai/broken/CHAT-TC-001--missing-call-id.sse")
def _() -> bytes:
    s = chat_one_call("chat-no-id")
    del s.chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"]
    return s.sse()


@capture("chat/openai/broken/CHAT-TC-002--missing-name.sse")
def _() -> bytes:
    s = chat_one_call("chat-no-name")
    del s.chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"]
    return s.sse()


@capture("chat/openai/broken/CHAT-TC-003--name-fragmented.sse")
def _() -> bytes:
    # The tool name arrives in two pieces, "get_" then "weather" (clients concatenate it).
    s = ChatStream("chat-name-split")
    s.call_start(0, "get_")
    s.delta({"tool_calls": [{"index": 0, "function": {"name": "weather", "arguments": ""}}]})
    for chunk in PARIS:
        s.call_fragment(0, chunk)
    return s.finish("tool_calls").sse()


@capture("chat/openai/broken/CHAT-TC-003--id-repeated.sse")
def _() -> bytes:
    s = chat_one_call("chat-id-repeated")
    call_id = s.chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"]
    for chunk in s.chunks[1:]:
        for call in chunk["choices"][0]["delta"].get("tool_calls", []) if chunk["choices"] else []:
            call["id"] = call_id
    return s.sse()


@capture("chat/openai/broken/CHAT-TC-004--duplicate-call-id.sse")
def _() -> bytes:
    s = ChatStream("chat-dup-id")
    s.new_call_id = lambda: "call_0"  # type: ignore[method-assign]
    return s.call(0, "get_weather", PARIS).call(1, "get_weather", TOKYO).finish("tool_calls").sse()


@capture("chat/openai/broken/CHAT-TC-005--index-starts-at-one.sse")
def _() -> bytes:
    return ChatStream("chat-index-1").call(1, "get_weather", PARIS).finish("tool_calls").sse()


@capture("chat/openai/broken/CHAT-TC-006--empty-arguments.sse")
def _() -> bytes:
    return ChatStream("chat-empty-string-args").call(0, "get_current_time", []).finish("tool_calls").sse()


@capture("chat/openai/broken/CHAT-FIN-001--no-finish-reason.sse")
def _() -> bytes:
    s = chat_one_call("chat-no-finish")
    del s.chunks[-2]  # the `delta: {}` chunk with finish_reason "tool_calls"
    return s.sse()


@capture("chat/openai/broken/CHAT-FIN-002--tool-calls-finish-with-stop.sse")
def _() -> bytes:
    return ChatStream("chat-finish-stop").call(0, "get_weather", PARIS).finish("stop").sse()


# ============================================================================================================
# Anthropic Messages front
# ============================================================================================================
def ant_one_tool(seed: str) -> AntStream:
    return AntStream(seed).start().tool("get_weather", ANT_PARIS).finish("tool_use")


def ant_text_and_tool(seed: str) -> AntStream:
    return AntStream(seed).start().text(BEFORE).tool("get_weather", ANT_PARIS).finish("tool_use")


@capture("anthropic/openai/ok/text-only.sse")
def _() -> bytes:
    return AntStream("ant-text-only").start().text(HELLO).finish("end_turn").sse()


@capture("anthropic/openai/ok/one-call.sse")
def _() -> bytes:
    return ant_one_tool("ant-one-call").sse()


@capture("anthropic/openai/ok/parallel-calls.sse")
def _() -> bytes:
    s = AntStream("ant-parallel").start().tool("get_weather", ANT_PARIS).tool("get_weather", ANT_TOKYO)
    return s.finish("tool_use").sse()


@capture("anthropic/openai/ok/interleaved-parallel-calls.sse")
def _() -> bytes:
    s = AntStream("ant-interleaved").start().interleaved_tools([("get_weather", ANT_PARIS),
                                                                ("get_weather", ANT_TOKYO)])
    return s.finish("tool_use").sse()


@capture("anthropic/openai/ok/empty-arguments.sse")
def _() -> bytes:
    return AntStream("ant-empty-args").start().tool("get_current_time", ["", "{}"]).finish("tool_use").sse()


@capture("anthropic/openai/ok/text-before-and-after-calls.sse")
def _() -> bytes:
    s = AntStream("ant-text-and-calls").start().text(BEFORE)
    s.tool("get_weather", ANT_PARIS).tool("get_weather", ANT_TOKYO).text(AFTER)
    return s.finish("tool_use").sse()


@capture("anthropic/openai/ok/incomplete-max-tokens.sse")
def _() -> bytes:
    s = AntStream("ant-max-tokens").start().text(BEFORE).tool("get_weather", ANT_PARIS_TRUNCATED)
    return s.finish("max_tokens").sse()


@capture("anthropic/openai/ok/error-overloaded.sse")
def _() -> bytes:
    s = AntStream("ant-overloaded").start()
    index = s.tool_start("get_weather")
    s.tool_delta(index, ANT_PARIS[0])
    s.tool_delta(index, ANT_PARIS[1])
    return s.error().sse()


@capture("anthropic/openai/ok/tool-use.json")
def _() -> bytes:
    s = AntStream("ant-body")
    body = {
        "id": s.id,
        "type": "message",
        "role": "assistant",
        "model": ANT_MODEL,
        "content": [
            {"type": "text", "text": "".join(BEFORE)},
            {"type": "tool_use", "id": s.new_tool_id(), "name": "get_weather",
             "input": json.loads("".join(ANT_PARIS))},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                  "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                  "output_tokens": 89, "service_tier": "standard"},
    }
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode()


@capture("anthropic/openai/broken/SSE-002--trailing-ping-without-blank-line.sse")
def _() -> bytes:
    # A keep-alive written while the connection closes: its blank line never arrives, so it is no event.
    return ant_one_tool("ant-trailing").sse() + ant_frame(PING).encode()[:-1]


@capture("anthropic/openai/broken/SSE-004--event-name-differs-from-type.sse")
def _() -> bytes:
    s = ant_one_tool("ant-event-name")
    frames = s.frames()
    for frame, event in zip(frames, s.events, strict=True):
        if event["type"] == "content_block_delta":
            frame.event = event["delta"]["type"]  # `event: input_json_delta`
    return encode(frames)


@capture("anthropic/openai/broken/SSE-005--event-without-data.sse")
def _() -> bytes:
    s = ant_one_tool("ant-no-data")
    frames = s.frames()
    frames.insert(3, Frame(None, event="ping"))
    return encode(frames)


@capture("anthropic/openai/broken/ANT-FRAME-001--done-sentinel.sse")
def _() -> bytes:
    return encode([*ant_one_tool("ant-done").frames(), DONE])


@capture("anthropic/openai/broken/ANT-SCHEMA-001--message-delta-without-usage.sse")
def _() -> bytes:
    s = ant_one_tool("ant-no-usage")
    del s.events[index_of(s.events, "message_delta")]["usage"]
    return s.sse()


@capture("anthropic/openai/broken/ANT-SCHEMA-002--unknown-event-type.sse")
def _() -> bytes:
    s = ant_one_tool("ant-unknown")
    s.events.insert(index_of(s.events, "content_block_stop"), {"type": "keepalive"})
    return s.sse()


@capture("anthropic/openai/broken/ANT-SCHEMA-003--tool-input-as-string.json")
def _() -> bytes:
    body = json.loads(CAPTURES["anthropic/openai/ok/tool-use.json"]())
    body["content"][1]["input"] = dumps(body["content"][1]["input"])
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode()


@capture("anthropic/openai/broken/ANT-LIFE-001--ping-before-message-start.sse")
def _() -> bytes:
    s = ant_one_tool("ant-ping-first")
    s.events.insert(0, copy.deepcopy(PING))
    return s.sse()


@capture("anthropic/openai/broken/ANT-LIFE-002--missing-message-stop.sse")
def _() -> bytes:
    s = ant_one_tool("ant-no-stop")
    s.events.pop()
    return s.sse()


@capture("anthropic/openai/broken/ANT-LIFE-002--event-after-message-stop.sse")
def _() -> bytes:
    s = ant_one_tool("ant-after-stop")
    s.events.append(copy.deepcopy(PING))
    return s.sse()


@capture("anthropic/openai/broken/ANT-LIFE-003--no-message-delta.sse")
def _() -> bytes:
    s = ant_one_tool("ant-no-message-delta")
    del s.events[index_of(s.events, "message_delta")]
    return s.sse()


@capture("anthropic/openai/broken/ANT-BLOCK-001--index-skips-one.sse")
def _() -> bytes:
    s = ant_text_and_tool("ant-index-gap")
    for event in s.events:
        if event.get("index") == 1:
            event["index"] = 2
    return s.sse()


@capture("anthropic/openai/broken/ANT-BLOCK-002--block-stopped-twice.sse")
def _() -> bytes:
    s = ant_one_tool("ant-stop-twice")
    i = index_of(s.events, "content_block_stop")
    s.events.insert(i, copy.deepcopy(s.events[i]))
    return s.sse()


@capture("anthropic/openai/broken/ANT-BLOCK-003--block-not-stopped.sse")
def _() -> bytes:
    s = ant_text_and_tool("ant-not-stopped")
    del s.events[index_of(s.events, "content_block_stop", -1)]
    return s.sse()


@capture("anthropic/openai/broken/ANT-BLOCK-004--tool-input-as-text-delta.sse")
def _() -> bytes:
    s = ant_one_tool("ant-text-delta")
    for event in s.events:
        if event["type"] == "content_block_delta":
            event["delta"] = {"type": "text_delta", "text": event["delta"]["partial_json"]}
    return s.sse()


@capture("anthropic/openai/broken/ANT-TOOL-001--empty-tool-id.sse")
def _() -> bytes:
    s = ant_one_tool("ant-empty-id")
    s.events[index_of(s.events, "content_block_start")]["content_block"]["id"] = ""
    return s.sse()


@capture("anthropic/openai/broken/ANT-TOOL-001--duplicate-tool-id.sse")
def _() -> bytes:
    s = AntStream("ant-dup-id")
    s.new_tool_id = lambda: "toolu_01"  # type: ignore[method-assign]
    s.start().tool("get_weather", ANT_PARIS).tool("get_weather", ANT_TOKYO)
    return s.finish("tool_use").sse()


@capture("anthropic/openai/broken/ANT-TOOL-002--truncated-input.sse")
def _() -> bytes:
    s = AntStream("ant-truncated").start().tool("get_weather", ANT_PARIS_TRUNCATED)
    return s.finish("tool_use").sse()


@capture("anthropic/openai/broken/ANT-STOP-001--tool-use-with-end-turn.sse")
def _() -> bytes:
    return AntStream("ant-end-turn").start().tool("get_weather", ANT_PARIS).finish("end_turn").sse()


# ============================================================================================================
def generate(root: Path = HERE) -> list[Path]:
    """Write every capture under `root` and delete stale capture files there; the paths written, sorted."""
    written = []
    for relative, build in sorted(CAPTURES.items()):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = build()
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        written.append(path)
    keep = set(written)
    for front in FRONT_DIRS:
        for stale in sorted((root / front).glob("*/*/*")):
            if stale.parent.name in KINDS and stale.suffix in (".sse", ".json") and stale not in keep:
                stale.unlink()
    return written


def main() -> int:
    written = generate()
    counts: dict[str, int] = {}
    for path in written:
        key = str(path.relative_to(HERE).parent)
        counts[key] = counts.get(key, 0) + 1
    for key, count in sorted(counts.items()):
        print(f"{count:3d}  {key}")
    print(f"{len(written):3d}  captures in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
