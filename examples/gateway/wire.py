"""Wire helpers shared by fronts and upstreams: reading an upstream's SSE body, writing SSE events, fresh ids,
message content as text."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx

from .model import Json, UpstreamCut, UpstreamError

__all__ = ["encode_sse", "new_id", "parse_json_event", "read_sse", "sse_lines", "text_of", "upstream_error"]

#: SSE line ends (WHATWG HTML 9.2.6): CRLF, LF or CR, nothing else.
SSE_EOL = re.compile(r"\r\n|\r|\n")


def new_id(prefix: str, separator: str = "_") -> str:
    return f"{prefix}{separator}{secrets.token_hex(24)}"


def text_of(content: Any) -> str:
    """Message content or a tool output as one string (text parts joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else json.dumps(content)


def encode_sse(payload: Json, event: str | None = None) -> bytes:
    """One SSE event: an `event:` line when `event` is given, one compact `data:` line, a blank line."""
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {data}\n\n".encode()


async def sse_lines(upstream: httpx.Response) -> AsyncIterator[str]:
    """The body's lines, ended by CRLF, LF or CR only (WHATWG SSE). Not httpx's aiter_lines(): it also breaks at
    U+2028, U+2029 and U+0085, which JSON strings may carry raw, and would cut a `data:` line in two."""
    buffer = ""
    async for text in upstream.aiter_text():
        buffer += text
        cut = len(buffer) - 1 if buffer.endswith("\r") else len(buffer)  # a final CR may be half of a CRLF
        *lines, rest = SSE_EOL.split(buffer[:cut])
        buffer = rest + buffer[cut:]
        for line in lines:
            yield line
    for line in SSE_EOL.split(buffer)[:-1]:  # lines the body ended; an unterminated last line is dropped
        yield line


async def read_sse(upstream: httpx.Response) -> AsyncIterator[str]:
    """The `data:` of each SSE event of the upstream body; a dropped connection raises UpstreamCut."""
    data: list[str] = []
    try:
        async for line in sse_lines(upstream):
            if line:
                name, _, value = line.partition(":")
                if name == "data":
                    data.append(value.removeprefix(" "))
            elif data:
                yield "\n".join(data)
                data = []
    except httpx.HTTPError as exc:
        raise UpstreamCut(f"the upstream connection failed mid-stream: {exc!r}") from None


def parse_json_event(data: str) -> Json | None:
    """One event's JSON object (None for another JSON value); malformed JSON fails the answer."""
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise UpstreamError("bad_upstream_response", f"malformed upstream event: {exc}") from None
    return value if isinstance(value, dict) else None


def upstream_error(error: Any, code_field: str) -> UpstreamError:
    """An error object the upstream sent with status 200 (OpenAI: {code, message}; Anthropic: {type, message})."""
    code = error.get(code_field) if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return UpstreamError(str(code or "upstream_error"), str(message or "The upstream failed."))
