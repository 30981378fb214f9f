"""A capture (an SSE body or a non-stream JSON body of any dialect, from curl, a bug report or `callproof record`)
turned into a scenario in the normal file format (schemas/scenario.schema.json) that replays it.

The scenario holds the structured parts read back by `_import_parse` (output items with their fragments exactly as
chunked, the order across items, ending, error, usage, call ids): every other dialect renders from them. Its own
dialect replays the capture verbatim (`raw.<dialect>` frames for a stream, `raw_body.<dialect>` for a body), since a
renderer invents ids and fields of its own; `raw=False` leaves that out, so the structured parts render there too.
A stream that does not read as its dialect keeps only the raw frames. An HTTP error becomes an `http_error` fault.
`read_capture` makes the first checks of `callproof check` (harness.check: byte order mark, binary, JSON or SSE).
Pure: callproof record (mock_server/_record.py) and `callproof scenarios import` call it."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness._errors import InputError
from callproof.harness._types import Dialect, JSONData
from callproof.harness.check import (
    SSEEvent,
    capture_kind,
    capture_text,
    check_body,
    check_bytes,
    detect_front,
    is_transcript,
    nul_offset,
    parse_sse,
)
from callproof.harness.dialects import DIALECTS
from callproof.harness.outcome import result_of_body, result_of_events
from callproof.harness.scenario import request_facts

from ._import_parse import Structured, Unstructured, structure_body, structure_events

__all__ = ["Capture", "HTTP_ERROR_STATUSES", "import_capture", "read_capture", "request_match", "scenario_file"]

#: The statuses an `http_error` fault can script (schemas/scenario.schema.json#/$defs/fault).
HTTP_ERROR_STATUSES = frozenset((400, 401, 403, 404, 408, 413, 429, 500, 502, 503, 529))
_ERROR_STATUS = {
    "rate_limit_error": 429, "rate_limit_exceeded": 429, "requests": 429, "overloaded_error": 529,
    "authentication_error": 401, "invalid_api_key": 401, "permission_error": 403, "not_found_error": 404,
    "model_not_found": 404, "request_too_large": 413, "invalid_request_error": 400, "timeout": 408,
    "api_error": 500, "server_error": 500,
}


@dataclass(frozen=True, slots=True)
class Capture:
    """A response body read back: `kind` sse (its `events`) or json (its `body`), in `dialect`."""

    data: bytes
    kind: Literal["sse", "json"]
    dialect: Dialect
    events: tuple[SSEEvent, ...] = ()
    body: JSONData = None


def read_capture(data: bytes, name: str, front: Dialect | None = None) -> Capture:
    """`data` as a capture; InputError (one line) when it is empty or neither SSE nor JSON."""
    text = capture_text(data)
    if not text:
        raise InputError(f"{name} is empty: nothing to import; capture a response body, e.g. "
                         "`curl -sN URL -d @request.json > capture.sse`")
    nul = nul_offset(data)
    if nul is not None:
        raise InputError(f"{name} looks binary (a NUL byte at offset {nul}); import reads an SSE stream or a JSON "
                         "response body")
    if is_transcript(data):
        raise InputError(f"{name} is a Responses WebSocket transcript (JSON lines): import reads an SSE stream or a "
                         "JSON response body; check the transcript with `callproof check`, or import one turn "
                         "written as SSE (`event: <type>` and `data: <message>` lines)")
    if capture_kind(data) == "json":
        try:
            body = json.loads(text)
        except ValueError as exc:
            raise InputError(f"{name} starts like JSON but is not valid JSON ({exc})") from None
        if not isinstance(body, dict):
            raise InputError(f"{name} is JSON but not an object: import reads a response body")
        return Capture(data, "json", front or detect_front(text, "json"), body=body)
    events, _ = parse_sse(data)
    if not events:
        raise InputError(f"{name} is neither an SSE stream (no event in it) nor a JSON body")
    return Capture(data, "sse", front or detect_front(data, "sse"), events=tuple(events))


def _frames(chunks: Sequence[tuple[float, bytes]]) -> list[Any]:
    """Raw frames, one per chunk, each with its delay after the previous one (ms)."""
    frames: list[Any] = []
    last = chunks[0][0] if chunks else 0.0
    for at, data in chunks:
        delay = round(max(0.0, at - last), 3)
        last = at
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            frames.append({"base64": base64.b64encode(data).decode("ascii"), "delay_ms": delay})
            continue
        frames.append({"text": text, "delay_ms": delay} if delay else text)
    return frames


def _blocks(data: bytes) -> list[tuple[float, bytes]]:
    """The bytes cut after every blank line (an event block each), joined back they are `data` exactly."""
    out: list[tuple[float, bytes]] = []
    start = i = 0
    while i < len(data):
        for end in (b"\r\n\r\n", b"\n\n", b"\r\r"):
            if data.startswith(end, i):
                i += len(end)
                out.append((0.0, data[start:i]))
                start = i
                break
        else:
            i += 1
    if start < len(data):
        out.append((0.0, data[start:]))
    return out


def _delays(structured: Structured, events: Sequence[SSEEvent], chunks: Sequence[tuple[float, bytes]]) -> list[float]:
    """The measured delay before each content event: the time since the event before it arrived."""
    ends: list[int] = []
    total = 0
    for _, data in chunks:
        total += len(data)
        ends.append(total)

    def time_of(event: SSEEvent) -> float:
        for (at, _), end in zip(chunks, ends, strict=True):
            if event.end <= end:
                return at
        return chunks[-1][0]

    times = [time_of(e) for e in events]
    start = chunks[0][0]
    return [round(max(0.0, times[n] - (times[n - 1] if n else start)), 3) for n in structured.content]


def _expect(capture: Capture, status: int, structured: Structured | None) -> dict[str, Any]:
    if status >= 400:
        return {"status": "error", "http_status": status}
    result = (result_of_events(capture.events, capture.dialect) if capture.kind == "sse"
              else result_of_body(capture.body, status, capture.dialect))
    out: dict[str, Any] = {"status": result.status}
    if result.text:
        out["text"] = result.text
    if result.calls:
        out["tool_calls"] = [{"name": call.name, "arguments": _parsed(call.arguments)} for call in result.calls]
    return out


def _parsed(arguments: str) -> JSONData:
    """Arguments as the parsed JSON an expectation compares; "" as {} (a correct client normalises it)."""
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _error_status(body: JSONData) -> tuple[int, str] | None:
    """The HTTP status an error body stands for (by its type or code) and its message, None if not an error."""
    if not isinstance(body, Mapping) or not isinstance(body.get("error"), Mapping) or "choices" in body:
        return None
    error = body["error"]
    status = _ERROR_STATUS.get(str(error.get("code")), _ERROR_STATUS.get(str(error.get("type")), 500))
    return status, str(error.get("message") or "")


def _breaks(capture: Capture) -> dict[str, list[str]]:
    report = (check_bytes(capture.data, front=capture.dialect) if capture.kind == "sse"
              else check_body(capture.data, front=capture.dialect))
    failed = sorted(set(report.failed_rules))
    return {capture.dialect: failed} if failed else {}


def import_capture(
    capture: Capture,
    *,
    scenario_id: str,
    description: str,
    status: int = 200,
    retry_after: float | None = None,
    chunks: Sequence[tuple[float, bytes]] | None = None,
    first_byte_ms: float | None = None,
    raw: bool = True,
    request: Mapping[str, Any] | None = None,
    tags: Sequence[str] = ("imported",),
) -> dict[str, Any]:
    """The scenario (as a file writes it) that replays `capture`. `status` is the HTTP status it came with (an
    error status, or an error body, becomes an `http_error` fault); `chunks` are the body's writes as they arrived
    (ms since the response headers, bytes), kept as raw frames with their delays and measured for `timing`;
    `request` is the request that caused it (its text, tools and stream flag become the scenario's request)."""
    scenario: dict[str, Any] = {"id": scenario_id, "description": description[:100], "tags": list(tags)}
    timing: dict[str, Any] = {}
    if first_byte_ms:
        timing["first_byte_ms"] = round(first_byte_ms, 3)
    error = _error_status(capture.body) if capture.kind == "json" else None
    if status < 400 and error is not None and status == 200:
        status = error[0]
    structured: Structured | None = None
    if status >= 400:
        scenario.update(output=[], faults=[_http_error(capture, status, error, retry_after)])
    else:
        structured = _replay(capture, scenario, timing, chunks, raw)
    if timing:
        scenario["timing"] = timing
    scenario["request"] = _request(capture.dialect, request, capture.kind == "sse")
    scenario["expect"] = _expect(capture, status, structured)
    if retry_after is not None and status >= 400:
        scenario["expect"]["retry_after"] = retry_after
    return scenario


def _http_error(
    capture: Capture, status: int, error: tuple[int, str] | None, retry_after: float | None
) -> dict[str, Any]:
    """The `http_error` fault of a capture that came with an error status or is an error body (`error`)."""
    if status not in HTTP_ERROR_STATUSES:
        raise InputError(f"HTTP status {status} cannot be scripted (an http_error fault takes "
                         f"{', '.join(map(str, sorted(HTTP_ERROR_STATUSES)))})")
    fault: dict[str, Any] = {"kind": "http_error", "status": status}
    message = error[1] if error is not None else (_error_status(capture.body) or (0, ""))[1]
    if message:
        fault["message"] = message
    if retry_after is not None:
        fault["retry_after"] = retry_after
    return fault


def _replay(
    capture: Capture, scenario: dict[str, Any], timing: dict[str, Any],
    chunks: Sequence[tuple[float, bytes]] | None, raw: bool,
) -> Structured | None:
    """Adds to `scenario` (and `timing`) what replays an answer that is not an error: its structured parts (None
    when it does not read as its dialect), its raw frames or body, the rules it breaks."""
    dialect = capture.dialect
    structured: Structured | None
    try:
        structured = (structure_events(capture.events, dialect) if capture.kind == "sse"
                      else structure_body(capture.body, dialect))
    except Unstructured as exc:
        if not raw and capture.kind == "sse":
            raise InputError(f"the stream does not read as {dialect} ({exc}); import it with its raw "
                             "frames") from None
        scenario["comment"] = f"not structured: {exc}"
        scenario["output"] = []
        structured = None
    else:
        scenario.update(structured.scenario_parts())
        if chunks and capture.kind == "sse" and structured.content:
            timing["delays_ms"] = _delays(structured, capture.events, chunks)
    if raw or structured is None:
        if capture.kind == "sse":
            scenario["raw"] = {dialect: _frames(chunks or _blocks(capture.data))}
        else:
            scenario["raw_body"] = {dialect: capture.body}
    breaks = _breaks(capture)
    if breaks:
        scenario["breaks"] = breaks
    return structured


# -- the request --


def _input(dialect: Dialect, body: Mapping[str, Any]) -> list[dict[str, str]]:
    items: list[dict[str, str]] = []
    messages = body.get(DIALECTS[dialect].messages_key)
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping) or message.get("role") not in ("user", "assistant", "system", "developer"):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else "".join(
            str(p.get("text", "")) for p in content or () if isinstance(p, Mapping) and isinstance(p.get("text"), str))
        items.append({"role": str(message["role"]), "text": text})
    return items or [{"role": "user", "text": request_facts(dialect, body).user_text}]


def _tools(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, Mapping):
            continue
        function: Mapping[str, Any] = tool["function"] if isinstance(tool.get("function"), Mapping) else tool
        name = function.get("name")
        if not isinstance(name, str) or not name:
            continue
        parameters = function.get("parameters", function.get("input_schema", {"type": "object"}))
        entry: dict[str, Any] = {"name": name, "parameters": parameters if isinstance(parameters, Mapping) else {}}
        if isinstance(function.get("description"), str):
            entry["description"] = function["description"]
        tools.append(entry)
    return tools


def _request(dialect: Dialect, body: Mapping[str, Any] | None, stream: bool) -> dict[str, Any]:
    if body is None:
        return {"input": [{"role": "user", "text": ""}], "stream": stream}
    out: dict[str, Any] = {"input": _input(dialect, body)}
    tools = _tools(body)
    if tools:
        out["tools"] = tools
    out["stream"] = body.get("stream") is True
    return out


def request_match(dialect: Dialect, body: Mapping[str, Any]) -> dict[str, Any]:
    """The `match` block that selects a recorded exchange again: the last user text, the model, the tool names,
    the dialect and the stream flag."""
    facts = request_facts(dialect, body)
    match: dict[str, Any] = {"user_text": {"equals": facts.user_text}}
    if isinstance(body.get("model"), str):
        match["model"] = body["model"]
    match["tools"] = sorted(facts.tools)
    match["dialect"] = dialect
    stream = {"path": "$.stream", "equals": body["stream"]} if "stream" in body else {"path": "$.stream",
                                                                                      "exists": False}
    match["json"] = [stream]
    return match


def scenario_file(feature: str, description: str, scenarios: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A scenario file holding `scenarios`; its name must be `<feature>.json`."""
    return {"feature": feature, "description": description[:150], "scenarios": list(scenarios)}
