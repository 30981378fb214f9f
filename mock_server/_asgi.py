"""The upstream path's plain ASGI I/O: reading a request's body, decoding its JSON, and playing a plan on the wire
(its headers, then a complete body or each write at its offset, journaled as it goes). `_upstream` decides what to
answer; this module sends it, as Starlette's Response and StreamingResponse would have."""

from __future__ import annotations

import asyncio
import json

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Send

from callproof.harness import JSONData, JSONValue

from ._clock import Clock
from ._journal import Journal, Outcome
from ._player import JSON_MEDIA_TYPE, Plan

__all__ = ["ScriptedDisconnect", "json_plan", "loads_body", "play_plan", "read_body", "send_plan"]


class ScriptedDisconnect(Exception):
    """Raised inside a response stream to drop the connection without a terminal chunk (a `disconnect` fault)."""


async def send_plan(plan: Plan, request_id: int | None, start: float, send: Send, clock: Clock,
                    journal: Journal) -> None:
    """Sends `plan` on `send` from `start`, journaling its writes under `request_id` (None: not journaled): the
    headers at `first_byte`, then a complete body, or each write at its offset (the last one carries the end of the
    body when nothing is scheduled after it: one write less per stream). The headers are the ones Starlette's
    Response / StreamingResponse would send."""
    try:
        await clock.sleep_until(start + plan.first_byte)
    except asyncio.CancelledError:  # the client left before the first byte (play_plan): journaled as later on
        if request_id is not None and plan.streamed:
            journal.record_end(request_id, "cancelled", clock.now())
        raise
    raw = list(plan.raw_headers)
    if request_id is not None:
        raw.append((b"x-callproof-request", str(request_id).encode()))
    if not plan.streamed:
        assert plan.body is not None
        if request_id is not None:
            journal.record_write(request_id, plan.body, clock.now())
            journal.record_end(request_id, "completed", clock.now())
        raw.append((b"content-length", str(len(plan.body)).encode("latin-1")))
        raw.append((b"content-type", _content_type(plan.media_type)))
        await send({"type": "http.response.start", "status": plan.status, "headers": raw})
        await send({"type": "http.response.body", "body": plan.body})
        return
    assert request_id is not None
    raw.append((b"content-type", _content_type(plan.media_type)))
    outcome: Outcome = "cancelled"
    ended = False

    def end(how: Outcome) -> None:
        # Recorded before the body's end goes out, so a client that has read the whole body finds its end journaled.
        nonlocal outcome, ended
        outcome, ended = how, True
        journal.record_end(request_id, how, clock.now())

    try:
        await send({"type": "http.response.start", "status": plan.status, "headers": raw})
        writes = plan.writes
        last = len(writes) - 1
        finish = start + plan.end_at
        for i, write in enumerate(writes):
            due = start + write.at
            await clock.sleep_until(due)
            journal.record_write(request_id, write.data, clock.now())
            final = i == last and not plan.abort and finish <= due
            if final:
                end("completed")
            await send({"type": "http.response.body", "body": write.data, "more_body": not final})
        if ended:
            return
        await clock.sleep_until(finish)
        if plan.abort:
            end("aborted")
            raise ScriptedDisconnect(f"request {request_id}: scripted disconnect")
        end("completed")
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        if not ended:
            journal.record_end(request_id, outcome, clock.now())


async def play_plan(plan: Plan, request_id: int | None, start: float, send: Send, receive: Receive, clock: Clock,
                    journal: Journal) -> None:
    """`send_plan`, stopped when the client goes away: a streamed answer is played while `receive` is watched for
    the client's disconnect, and a disconnect before the answer's end stops the play there, its end journaled
    `cancelled` at that instant (docs/spec/cancellation.md §2: the instant is the evidence that a gateway closed
    its upstream request). Without the watch the close would show only at the next write, and on uvicorn not even
    then (its `send` drops messages for a client that left without a word): the answer would play on and be
    journaled `completed`. A stream with nothing scheduled after its start (no first-byte wait, no gap) is sent
    at once, with nothing to stop: it is played unwatched (a watch costs short streams ~10% of the mock's rate)."""
    if not plan.streamed or (plan.first_byte <= 0 and plan.end_at <= 0):
        await send_plan(plan, request_id, start, send, clock, journal)
        return
    play = asyncio.ensure_future(send_plan(plan, request_id, start, send, clock, journal))
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait((play, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not play.done():  # the client left first (or this task is cancelled): send_plan journals `cancelled`
            play.cancel()
            await asyncio.wait((play,))
    if not play.cancelled():
        play.result()  # a ScriptedDisconnect (or a failure) of the play goes on to the server


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone away (the body was read already: only `http.disconnect` comes)."""
    while (await receive())["type"] != "http.disconnect":
        pass


_CONTENT_TYPES: dict[str, bytes] = {}


def loads_body(raw: bytes) -> JSONData:
    """The request body's JSON: orjson where it decodes it (several times json.loads' speed), json.loads for what
    it refuses (NaN, integers beyond 64 bits, lone surrogates, syntax errors: json.loads' values and messages)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def _content_type(media_type: str) -> bytes:
    """The content-type header Starlette gives `media_type` (text types get charset=utf-8)."""
    value = _CONTENT_TYPES.get(media_type)
    if value is None:
        text = media_type
        if text.startswith("text/") and "charset=" not in text.lower():
            text += "; charset=utf-8"
        value = _CONTENT_TYPES[media_type] = text.encode("latin-1")
    return value


def json_plan(status: int, body: JSONValue) -> Plan:
    """A complete JSON body, as Starlette's JSONResponse renders it."""
    data = json.dumps(body, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()
    return Plan(status, (), JSON_MEDIA_TYPE, body=data)


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The body, or None when it is over `limit` bytes (the rest is read and dropped so the 413 reaches the client).
    A client that leaves before sending all of it raises ClientDisconnect (as Starlette's Request.stream does)."""
    chunks: list[bytes] = []
    size = 0
    over = False
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            over = True
            chunks = []
        elif not over and chunk:
            chunks.append(chunk)
        if not message.get("more_body", False):
            return None if over else b"".join(chunks)
