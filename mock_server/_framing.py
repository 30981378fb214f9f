"""The `framing` fault: the same events, framed in another way the SSE standard allows (docs/spec/sse.md §5.1,
§5.2). A conformant parser dispatches exactly the events of the plain stream; a naive one breaks.

Styles:
- `no_space`: `data:{...}` and `event:name`, without the optional space after the colon;
- `multiline_data`: each event's data split after every comma outside a JSON string, one `data:` line per piece
  (a parser joins them with LF, which is JSON whitespace there, so the joined data is the same JSON value);
- `cr_only`: every line ended by a lone CR;
- `comments_and_fields`: a comment line before each event block, and `id:` (numbered from 1) and `retry:` fields
  in it, which a parser must not take for data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from callproof.harness.scenario import FRAMING_STYLES

__all__ = ["FRAMING_STYLES", "reframe"]

_NO_SPACE = re.compile(rb"(?m)^(data|event): ")


def reframe(frames: Sequence[bytes], style: str) -> list[bytes]:
    """`frames` (each whole SSE event blocks, LF line ends) framed in `style`; keep-alive comments included."""
    if style not in FRAMING_STYLES:
        raise ValueError(f"unknown framing style {style!r}; use one of {', '.join(FRAMING_STYLES)}")
    if style == "no_space":
        return [_NO_SPACE.sub(rb"\1:", frame) for frame in frames]
    if style == "cr_only":
        return [frame.replace(b"\r\n", b"\n").replace(b"\n", b"\r") for frame in frames]
    if style == "multiline_data":
        return [b"\n".join(_split_data(line) for line in frame.split(b"\n")) for frame in frames]
    counter = [0]
    return [_with_fields(frame, counter) for frame in frames]


def _split_data(line: bytes) -> bytes:
    """A `data: ` line as several, split after each comma outside a JSON string."""
    if not line.startswith(b"data: "):
        return line
    value = line[6:]
    pieces: list[bytes] = []
    start, in_string, escaped = 0, False, False
    for index, byte in enumerate(value):
        if escaped:
            escaped = False
        elif byte == 0x5C and in_string:  # backslash
            escaped = True
        elif byte == 0x22:  # quote
            in_string = not in_string
        elif byte == 0x2C and not in_string:  # comma
            pieces.append(value[start : index + 1])
            start = index + 1
    pieces.append(value[start:])
    return b"\n".join(b"data: " + piece for piece in pieces)


def _with_fields(frame: bytes, counter: list[int]) -> bytes:
    """Each event block of `frame` with a comment before it and `id:`/`retry:` lines before its first data line."""
    blocks = frame.split(b"\n\n")
    out: list[bytes] = []
    for block in blocks:
        if not block or block.startswith(b":"):  # the tail after the last blank line, or a keep-alive comment
            out.append(block)
            continue
        counter[0] += 1
        lines = block.split(b"\n")
        at = next((i for i, line in enumerate(lines) if line.startswith(b"data")), len(lines))
        fields = [b"id: evt_%d" % counter[0], b"retry: 3000"]
        out.append(b"\n".join([b": callproof comment", *lines[:at], *fields, *lines[at:]]))
    return b"\n\n".join(out)
