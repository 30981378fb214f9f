"""Long, valid Responses streams for the memory and scale benchmarks, written as they are generated.

One stream is one response: `response.created`, `response.in_progress`, then function calls opened `parallel` at a
time with their argument deltas interleaved round-robin across the open calls (as OpenAI streams parallel calls),
each call closed by `function_call_arguments.done` and `output_item.done`, and `response.completed` carrying every
item. The Response object and the event shapes are those of the bundled capture
examples/captures/responses/openai/ok/interleaved-parallel-calls.sse (which passes every rule); only ids, indexes,
sequence numbers and arguments change. The checker keeps each open call's arguments and the final event holds them
all, so its state grows as a real long response's would.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "captures" / "responses" / "openai" / "ok" / "interleaved-parallel-calls.sse"
#: Words the arguments are made of (plain ASCII, so a delta is a JSON string without escapes beyond quotes).
_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo")


@dataclass(frozen=True, slots=True)
class Shape:
    """The shape of one generated stream: `calls` function calls of about `arguments` bytes each, split into deltas
    of `delta` characters, `parallel` calls open (and interleaved) at a time."""

    calls: int
    arguments: int = 8192
    delta: int = 16
    parallel: int = 4


@dataclass(frozen=True, slots=True)
class Written:
    events: int
    bytes: int
    calls: int
    argument_bytes: int


@cache
def _template() -> dict[str, Any]:
    """The Response object of the template capture's `response.completed` (every field the openai profile expects)."""
    for line in TEMPLATE.read_text(encoding="utf-8").splitlines():
        if line.startswith("data: ") and '"response.completed"' in line:
            response: dict[str, Any] = json.loads(line[6:])["response"]
            return response
    raise SystemExit(f"{TEMPLATE}: no response.completed event (the capture is committed; restore it from git)")


def _hex(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:48]


def _arguments(index: int, size: int) -> str:
    """A JSON object of about `size` bytes: {"call": n, "words": "alpha bravo ..."}."""
    words: list[str] = []
    length = 0
    i = index
    while length < size - 32:
        word = _WORDS[i % len(_WORDS)]
        words.append(word)
        length += len(word) + 1
        i += 7
    return json.dumps({"call": index, "words": " ".join(words)}, separators=(",", ":"))


def _event(kind: str, payload: dict[str, Any]) -> bytes:
    return b"event: " + kind.encode() + b"\ndata: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def write_stream(out: BinaryIO, shape: Shape, *, seed: str = "bench") -> Written:
    """Write one complete, valid Responses stream of `shape` to `out`."""
    base = _template()
    response = copy.deepcopy(base)
    response.update(id=f"resp_{_hex(seed)}", status="in_progress", completed_at=None, output=[], usage=None)
    seq = 0
    size = 0
    events = 0

    def emit(data: bytes) -> None:
        nonlocal size, events
        out.write(data)
        size += len(data)
        events += 1

    for kind in ("response.created", "response.in_progress"):
        emit(_event(kind, {"type": kind, "sequence_number": seq, "response": response}))
        seq += 1
    items: list[dict[str, Any]] = []
    argument_bytes = 0
    delta_kind = b"response.function_call_arguments.delta"
    for first in range(0, shape.calls, shape.parallel):
        group = range(first, min(first + shape.parallel, shape.calls))
        opened: list[tuple[int, str, str, list[str]]] = []
        for index in group:
            item_id = f"fc_{_hex(f'{seed}:item:{index}')}"
            call_id = f"call_{_hex(f'{seed}:call:{index}')[:24]}"
            arguments = _arguments(index, shape.arguments)
            argument_bytes += len(arguments)
            pieces = [arguments[i : i + shape.delta] for i in range(0, len(arguments), shape.delta)]
            item = {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "",
                    "call_id": call_id, "name": "get_weather"}
            emit(_event("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq,
                                                       "output_index": index, "item": item}))
            seq += 1
            opened.append((index, item_id, arguments, pieces))
        # Deltas round-robin across the open calls, written by hand: they are nearly every byte of the stream.
        longest = max(len(p) for _, _, _, p in opened)
        buf = io.BytesIO()
        for step in range(longest):
            for index, item_id, _, pieces in opened:
                if step >= len(pieces):
                    continue
                obfuscation = "abcdefghijklmnop"[: 4 + (seq % 11)]
                buf.write(b"event: " + delta_kind + b"\ndata: {\"type\":\"" + delta_kind + b"\",\"sequence_number\":"
                          + str(seq).encode() + b",\"item_id\":\"" + item_id.encode() + b"\",\"output_index\":"
                          + str(index).encode() + b",\"delta\":" + json.dumps(pieces[step]).encode()
                          + b",\"obfuscation\":\"" + obfuscation.encode() + b"\"}\n\n")
                seq += 1
                events += 1
        data = buf.getvalue()
        out.write(data)
        size += len(data)
        for index, item_id, arguments, _ in opened:
            emit(_event("response.function_call_arguments.done", {
                "type": "response.function_call_arguments.done", "sequence_number": seq, "item_id": item_id,
                "name": "get_weather", "output_index": index, "arguments": arguments}))
            seq += 1
            done = {"id": item_id, "type": "function_call", "status": "completed", "arguments": arguments,
                    "call_id": f"call_{_hex(f'{seed}:call:{index}')[:24]}", "name": "get_weather"}
            emit(_event("response.output_item.done", {"type": "response.output_item.done", "sequence_number": seq,
                                                      "output_index": index, "item": done}))
            seq += 1
            items.append(done)
    final = copy.deepcopy(base)
    final.update(id=response["id"], output=items)
    final["usage"] = {"input_tokens": 142, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                      "output_tokens": argument_bytes // 4,
                      "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 142 + argument_bytes // 4}
    emit(_event("response.completed", {"type": "response.completed", "sequence_number": seq, "response": final}))
    return Written(events, size, shape.calls, argument_bytes)


def events_per_call(shape: Shape) -> int:
    """Events one call adds to a stream (added, its deltas, arguments.done, output_item.done)."""
    return 3 + -(-len(_arguments(0, shape.arguments)) // shape.delta)


def stream_bytes(shape: Shape, *, seed: str = "bench") -> tuple[bytes, Written]:
    """The whole stream in memory (for streams of a few MB)."""
    buf = io.BytesIO()
    written = write_stream(buf, shape, seed=seed)
    return buf.getvalue(), written
