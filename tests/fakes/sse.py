"""The fake clients' SSE parser (WHATWG SSE section 9.2.5), with knobs for the mistakes real clients make: the
reference clients call `iter_sse` as it is; the framing defects of `framing_clients.py` turn one knob each."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

__all__ = ["field", "iter_sse", "lines"]

_EOL = re.compile(rb"\r\n|\r|\n")


def lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """Lines of a byte stream split at LF, CRLF or a lone CR, each decoded on its own (WHATWG SSE section 9.2.5)."""
    buf = bytearray()
    scan = 0
    first = True
    for chunk in chunks:
        buf += chunk
        while (match := _EOL.search(buf, scan)) is not None:
            if match.group() == b"\r" and match.end() == len(buf):  # the LF of a CRLF may be in the next chunk
                break
            line = bytes(buf[: match.start()])
            if first:
                line, first = line.removeprefix(b"\xef\xbb\xbf"), False
            yield line.decode("utf-8", "replace")
            del buf[: match.end()]
            scan = 0
        else:
            scan = len(buf)
    if buf.endswith(b"\r"):
        yield bytes(buf[:-1]).decode("utf-8", "replace")
    # Anything else left is an unterminated line: the spec discards it with its event block.


def field(line: str) -> tuple[str, str]:
    """A field line's name and value: split at the first colon, one leading space of the value dropped."""
    name, _, value = line.partition(":")
    return name, value.removeprefix(" ")


def iter_sse(chunks: Iterable[bytes], on_comment: Callable[[str], None], *,
             split: Callable[[Iterable[bytes]], Iterable[str]] = lines,
             join: Callable[[list[str]], str] = "\n".join,
             read_field: Callable[[str], tuple[str, str]] = field) -> Iterator[tuple[str, str]]:
    """(event type, data) for each dispatched event; comment lines (`: ...`) go to `on_comment`. The knobs: how
    the stream is `split` into lines, the `join` of an event's data lines, and how a line is read as a field."""
    event, data = "", list[str]()
    for line in split(chunks):
        if not line:
            if data:
                yield event or "message", join(data)
            event, data = "", []
        elif line.startswith(":"):
            on_comment(line)
        else:
            name, value = read_field(line)
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
