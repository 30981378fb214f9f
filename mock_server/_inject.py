"""How the mock plays each fault kind: `INJECTORS` maps every kind of the fault table (harness/scenario/_faults.py)
to the functions that apply it while an answer is planned, and the stage they apply at.

Planning (mock_server/_planning.py) runs in stages, and within a stage the injectors of the faults that fired in
the order of `INJECTORS`, an order that matters for the bytes:
- `answer`, before any stream or body: the first byte's offset (`slow_first_byte`), an HTTP error instead
  (`http_error`);
- `frames`, what is rendered (`stream_error`; a raw scenario's frames are played as written);
- `events`, on the scheduled frames, counted in events: `malformed`, `stall`, then the cut of `disconnect` or
  `truncate` (the first that fired ends the stream);
- `bytes`, on the frames' bytes: `keepalive` comments, `framing`, `crlf`; then the stream's end fault cuts at its
  `after_bytes`, counted on the wire;
- `writes`, on the coalesced writes: `fragment`.
A non-stream answer runs the same stages on its body with each kind's `body` function, where it has one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import Fault, Scenario, fault_param

from ._framing import reframe
from ._player import Plan, Write, _json_bytes, error_plan
from .dialects import Frame, RenderContext, Renderer

__all__ = [
    "INJECTORS",
    "WS_FAULTS",
    "Answer",
    "BodyDraft",
    "Injector",
    "Item",
    "Stage",
    "StreamDraft",
    "WsPlay",
]

Stage = Literal["answer", "frames", "events", "bytes", "writes"]

_DEFAULT_MESSAGES = {
    400: "The request is invalid (injected by the callproof mock).",
    401: "Incorrect API key provided (injected by the callproof mock).",
    403: "You are not allowed to sample from this model (injected by the callproof mock).",
    404: "The model does not exist (injected by the callproof mock).",
    408: "Request timed out (injected by the callproof mock).",
    413: "Request too large (injected by the callproof mock).",
    429: "Rate limit reached for requests (injected by the callproof mock).",
    500: "The server had an error while processing your request (injected by the callproof mock).",
    502: "Bad gateway (injected by the callproof mock).",
    503: "The engine is currently overloaded, please try again later (injected by the callproof mock).",
    529: "Overloaded (injected by the callproof mock).",
}
_STREAM_ERROR = {"code": "server_error", "message": "The upstream failed mid-stream (injected by the callproof mock)."}
_SEQUENCE = re.compile(rb'"sequence_number":\s*\d+')


# -- what the injectors change -----------------------------------------------------------------------------


@dataclass(slots=True)
class Answer:
    """The answer to one request while it is planned: what is played, for whom, and what every fault may change
    before a stream or body (the first byte's offset, an HTTP error instead)."""

    scenario: Scenario
    renderer: Renderer
    ctx: RenderContext
    headers: Sequence[tuple[str, str]]
    #: The kinds of the faults that fired, in the fault table's order (the plan reports them).
    applied: tuple[str, ...]
    #: 1/speed: every scripted delay is scaled by it.
    scale: float
    first_byte: float
    error: Plan | None = None
    #: The request's headers as received (credentials included) and its URL: an `http_error` with `echo_request`
    #: echoes them in its body, as some upstreams and proxies do (GW-FAULT-005).
    request_headers: Sequence[tuple[str, str]] = ()
    request_url: str = ""


@dataclass(slots=True)
class Item:
    """One frame (or keep-alive comment, not an `event`) scheduled `at` seconds after the stream start."""

    at: float
    data: bytes
    event: bool = True


@dataclass(slots=True)
class StreamDraft:
    """A stream being planned: its frames (None until rendered), then its scheduled items and their writes, where
    it ends, and the fault that ends it short (`abort`: by dropping the connection)."""

    answer: Answer
    frames: list[Frame] | None = None
    items: list[Item] = field(default_factory=list)
    #: The number of frames scheduled (events), before any cut.
    events: int = 0
    end_at: float = 0.0
    end: Fault | None = None
    abort: bool = False
    writes: list[Write] = field(default_factory=list)

    @property
    def middle(self) -> int:
        """The default position of an event-level fault: the middle of the stream."""
        return self.events // 2


@dataclass(slots=True)
class BodyDraft:
    """A non-stream answer being planned: its complete body (None until rendered), the bytes sent of it, and
    whether it goes out as writes (a byte-level fault) rather than with a Content-Length."""

    answer: Answer
    body: bytes | None = None
    data: bytes = b""
    end: Fault | None = None
    abort: bool = False
    streamed: bool = False
    writes: list[Write] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Injector:
    """How one fault kind is played: its stage, and its function for that stage: `answer` (stage `answer`, for a
    stream and a body alike), else `stream` and `body` (None: the kind leaves a non-stream body as it is)."""

    stage: Stage
    answer: Callable[[Answer, Fault], None] | None = None
    stream: Callable[[StreamDraft, Fault], None] | None = None
    body: Callable[[BodyDraft, Fault], None] | None = None


# -- parameters --------------------------------------------------------------------------------------------


def _value(fault: Fault, name: str, fallback: int | None = None) -> int | float | str:
    value = fault_param(fault, name, fallback)
    if value is None:
        raise ValueError(f"fault {fault.kind!r}: parameter {name!r} has no value and no default; give it in the "
                         "scenario (`callproof docs scenario-schema#fault`)")
    return value


def _int(fault: Fault, name: str, fallback: int | None = None) -> int:
    return int(_value(fault, name, fallback))


def _given(fault: Fault, name: str) -> bool:
    return fault_param(fault, name) is not None


# -- answer ------------------------------------------------------------------------------------------------


def _slow_first_byte(answer: Answer, fault: Fault) -> None:
    answer.first_byte += float(_value(fault, "ms")) * answer.scale / 1000.0


def _http_error(answer: Answer, fault: Fault) -> None:
    status = _int(fault, "status")
    message = str(fault_param(fault, "message", _DEFAULT_MESSAGES.get(status, "Injected error.")))
    retry = fault_param(fault, "retry_after")
    echo = {"url": answer.request_url, "headers": dict(answer.request_headers)} if _int(fault, "echo_request") else None
    if echo is not None:
        message += f" Request: POST {echo['url']} with headers {json.dumps(echo['headers'])}."
    answer.error = error_plan(answer.renderer, status, message, retry_after=None if retry is None else float(retry),
                              first_byte=answer.first_byte, headers=answer.headers, faults=answer.applied)
    if echo is not None and answer.error.body is not None:
        body = json.loads(answer.error.body)
        body["error"]["request"] = echo
        answer.error = replace(answer.error, body=_json_bytes(body))


# -- frames ------------------------------------------------------------------------------------------------


def _failed(scenario: Scenario, fault: Fault) -> Scenario:
    error = dict(scenario.error or _STREAM_ERROR)
    for key in ("code", "message", "type"):
        if key in fault.params:
            error[key] = str(fault.params[key])
    return replace(scenario, ending="failed", error=error)


def _only_sent_items(tail: Frame, sent: Sequence[Frame]) -> Frame:
    """A Responses failure frame whose `response.output` keeps only the items done among the `sent` frames."""
    done: set[str] = set()
    for frame in sent:
        if b'"response.output_item.done"' in frame.data:
            item = json.loads(frame.data.split(b"data: ", 1)[1]).get("item", {})
            done.add(item.get("id"))
    head, data = tail.data.split(b"data: ", 1)
    payload = json.loads(data)
    response = payload.get("response")
    if isinstance(response, dict) and isinstance(response.get("output"), list):
        response["output"] = [o for o in response["output"] if isinstance(o, dict) and o.get("id") in done]
    encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return replace(tail, data=head + b"data: " + encoded + b"\n\n")


def _renumber(frame: Frame, sequence: int) -> Frame:
    return replace(frame, data=_SEQUENCE.sub(b'"sequence_number":%d' % sequence, frame.data, count=1))


def _stream_error(draft: StreamDraft, fault: Fault) -> None:
    """The failed ending; with `after_events`, the first frames, then the dialect's failure frame (a Responses
    stream keeps its numbering; a Chat error object followed by `[DONE]`, `chat.done_after_error`, keeps both)."""
    answer = draft.answer
    frames = list(answer.renderer.stream(_failed(answer.scenario, fault), answer.ctx).frames)
    ending = len(frames) - 1
    while ending > 0 and frames[ending - 1].ending and frames[-1].ending:
        ending -= 1
    cut = fault_param(fault, "after_events")
    if cut is not None and int(cut) < ending:
        tail = frames[ending:]
        if DIALECTS[answer.renderer.dialect].terminal_restates_output:
            tail = [_renumber(_only_sent_items(tail[0], frames[: int(cut)]), int(cut))]
        frames = [*frames[: int(cut)], *tail]
    draft.frames = frames


def _stream_error_body(draft: BodyDraft, fault: Fault) -> None:
    answer = draft.answer
    draft.body = _json_bytes(answer.renderer.body(_failed(answer.scenario, fault), answer.ctx))


# -- events ------------------------------------------------------------------------------------------------


def _malformed_data(data: bytes) -> bytes:
    """The frame with every `data:` value cut in half: invalid JSON, still framed as an event."""
    lines = data.split(b"\n")
    out = []
    for line in lines:
        if line.startswith(b"data:"):
            value = line[5:].decode("utf-8", "replace")
            half = value[: max(1, len(value) // 2)]
            line = b"data:" + (half.encode() if half.strip() else b' {"type":')
        out.append(line)
    return b"\n".join(out)


def _malformed(draft: StreamDraft, fault: Fault) -> None:
    """The frame at `after_events` (default: the middle), or the one holding byte `after_bytes`, malformed."""
    items, count = draft.items, draft.events
    if not items:
        return
    index = min(_int(fault, "after_events", draft.middle), count - 1)
    if _given(fault, "after_bytes"):
        index, size = count - 1, 0
        for i, item in enumerate(items):
            size += len(item.data)
            if size > _int(fault, "after_bytes"):
                index = i
                break
    items[index].data = _malformed_data(items[index].data)


def _malformed_body(draft: BodyDraft, fault: Fault) -> None:
    draft.data = draft.data[: len(draft.data) // 2]
    draft.streamed = True


def _stall(draft: StreamDraft, fault: Fault) -> None:
    """No bytes for `ms` after `after_events` frames (default: the middle)."""
    after = min(_int(fault, "after_events", draft.middle), draft.events)
    pause = float(_value(fault, "ms")) * draft.answer.scale / 1000.0
    for item in draft.items[after:]:
        item.at += pause
    draft.end_at += pause


def _end_stream(draft: StreamDraft, fault: Fault, *, abort: bool, default: int) -> None:
    """`fault` ends the stream: after `after_events` frames (else `default`), or later at `after_bytes`."""
    draft.end, draft.abort = fault, abort
    if _given(fault, "after_bytes"):
        return
    cut = min(_int(fault, "after_events", default), draft.events)
    if cut < draft.events:
        draft.end_at = draft.items[cut].at
        draft.items = draft.items[:cut]


def _disconnect(draft: StreamDraft, fault: Fault) -> None:
    """The connection drops (by default mid-stream)."""
    _end_stream(draft, fault, abort=True, default=draft.middle)


def _truncate(draft: StreamDraft, fault: Fault) -> None:
    """The stream ends cleanly, by default without the frames that end it (a `disconnect` that fired wins)."""
    if draft.end is not None:
        return
    ending = next((i for i, frame in enumerate(draft.frames or ()) if frame.ending), max(draft.events - 1, 0))
    _end_stream(draft, fault, abort=False, default=ending)


def _end_body(draft: BodyDraft, fault: Fault, *, abort: bool) -> None:
    """`fault` ends the body after `after_bytes` (default: half of it), unless another fault already did."""
    if draft.end is not None:
        return
    body = draft.body or b""
    draft.end, draft.abort, draft.streamed = fault, abort, True
    draft.data = draft.data[: _int(fault, "after_bytes", len(body) // 2)]


def _disconnect_body(draft: BodyDraft, fault: Fault) -> None:
    _end_body(draft, fault, abort=True)


def _truncate_body(draft: BodyDraft, fault: Fault) -> None:
    _end_body(draft, fault, abort=False)


# -- bytes -------------------------------------------------------------------------------------------------


def _keepalive(draft: StreamDraft, fault: Fault) -> None:
    """A `: comment` after every `every_events` frames (not an event)."""
    every = max(1, _int(fault, "every_events"))
    comment = f": {_value(fault, 'comment')}\n\n".encode()
    spaced: list[Item] = []
    for i, item in enumerate(draft.items):
        spaced.append(item)
        if (i + 1) % every == 0:
            spaced.append(Item(item.at, comment, event=False))
    draft.items = spaced


def _framing(draft: StreamDraft, fault: Fault) -> None:
    items = draft.items
    for item, data in zip(items, reframe([i.data for i in items], str(_value(fault, "style"))), strict=True):
        item.data = data


def _crlf(draft: StreamDraft, fault: Fault) -> None:
    for item in draft.items:
        item.data = item.data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


# -- writes ------------------------------------------------------------------------------------------------


def _split(writes: Sequence[Write], size: int) -> list[Write]:
    """Every write split into writes of at most `size` bytes, at the same offset."""
    size = max(1, size)
    return [Write(w.at, w.data[i : i + size]) for w in writes for i in range(0, len(w.data), size)]


def _fragment(draft: StreamDraft, fault: Fault) -> None:
    draft.writes = _split(draft.writes, _int(fault, "bytes"))


def _fragment_body(draft: BodyDraft, fault: Fault) -> None:
    draft.writes = _split(draft.writes, _int(fault, "bytes"))
    draft.streamed = True


#: Every fault kind's injector, in the order they apply within a stage.
_INJECTORS: dict[str, Injector] = {
    "slow_first_byte": Injector("answer", answer=_slow_first_byte),
    "http_error": Injector("answer", answer=_http_error),
    "stream_error": Injector("frames", stream=_stream_error, body=_stream_error_body),
    "malformed": Injector("events", stream=_malformed, body=_malformed_body),
    "stall": Injector("events", stream=_stall),
    "disconnect": Injector("events", stream=_disconnect, body=_disconnect_body),
    "truncate": Injector("events", stream=_truncate, body=_truncate_body),
    "keepalive": Injector("bytes", stream=_keepalive),
    "framing": Injector("bytes", stream=_framing),
    "crlf": Injector("bytes", stream=_crlf),
    "fragment": Injector("writes", stream=_fragment, body=_fragment_body),
}
#: The injectors by fault kind (read-only).
INJECTORS: Mapping[str, Injector] = MappingProxyType(_INJECTORS)

#: How each fault kind plays over the Responses WebSocket mode (mock_server/_websocket.py,
#: docs/mock.md#websocket-mode): `events` as in the stream (the events the SSE rendering carries, at its
#: offsets: stalls, a late first event, the failed ending, a malformed event's cut JSON as a text message);
#: `close` closes the socket after the events sent (its `close_code`, default 1011); `error_event` answers with an
#: error event carrying the HTTP status instead of the response; `ignored`: SSE framing only, no part of a message.
WsPlay = Literal["events", "close", "error_event", "ignored"]
_WS_FAULTS: dict[str, WsPlay] = {
    "http_error": "error_event",
    "stream_error": "events",
    "disconnect": "close",
    "truncate": "close",
    "malformed": "events",
    "stall": "events",
    "keepalive": "ignored",
    "fragment": "ignored",
    "crlf": "ignored",
    "framing": "ignored",
    "slow_first_byte": "events",
}
#: Every fault kind of the fault table (harness/scenario/_faults.py) and how it plays over a socket.
WS_FAULTS: Mapping[str, WsPlay] = MappingProxyType(_WS_FAULTS)
