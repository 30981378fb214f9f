"""The byte-level helpers of the SSE parser: line-end modes for cutting whole blocks, the BOM, the fields of a whole
block and the `retry:` field's value (WHATWG HTML §9.2.6)."""

from __future__ import annotations

__all__ = [
    "BOM",
    "CR",
    "CRLF_MODE",
    "CR_MODE",
    "LF",
    "LF_MODE",
    "Mode",
    "WINDOW",
    "block_fields",
    "line_mode",
    "retry_value",
]

BOM = b"\xef\xbb\xbf"
LF = 0x0A
CR = 0x0D
#: A buffer whose line ends are all of one kind: the line end, the blank-line separator, the line end
#: decoded, and its last byte, raw and decoded (with one kind of line end, each of those marks one line end).
Mode = tuple[bytes, bytes, str, bytes, str]
LF_MODE: Mode = (b"\n", b"\n\n", "\n", b"\n", "\n")
CRLF_MODE: Mode = (b"\r\n", b"\r\n\r\n", "\r\n", b"\n", "\n")
CR_MODE: Mode = (b"\r", b"\r\r", "\r", b"\r", "\r")
#: Whole blocks are split off at most this many bytes at a time, so one huge feed needs little extra memory.
WINDOW = 256 * 1024


def retry_value(value: str, previous: int | None) -> int | None:
    """The reconnection time a `retry:` value sets: only ASCII digits count, else the field is ignored."""
    if value.isdigit() and value.isascii():
        try:
            return int(value)
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits): ignore it
            return previous
    return previous


def line_mode(buf: bytes, start: int) -> Mode:
    """The line ends to cut whole blocks of buf[start:] at: LF or CR when only that one occurs, else CRLF.
    CRLF is a guess (line ends may be mixed): the parser's fast path checks each block and leaves a mixed one to
    its line-by-line path."""
    if buf.find(b"\r", start) < 0:
        return LF_MODE
    if buf.find(b"\n", start) < 0:
        return CR_MODE
    return CRLF_MODE


def block_fields(lines: list[str], last_id: str | None) -> tuple[str, str | None, str | None, int | None]:
    """(event type, data or None when no `data:` line, last event ID, retry) of one whole block's lines, none of
    them empty (§9.2.6 "process the field" for each; `last_id` is the ID before the block)."""
    type_ = ""
    retry: int | None = None
    values: list[str] = []
    for line in lines:  # a comment (":...") has the name "", which is no field's
        name, _, value = line.partition(":")
        if value and value[0] == " ":
            value = value[1:]
        if name == "data":
            values.append(value)
        elif name == "event":
            type_ = value
        elif name == "id":
            if "\x00" not in value:
                last_id = value
        elif name == "retry":
            retry = retry_value(value, retry)
    return type_, "\n".join(values) if values else None, last_id, retry
