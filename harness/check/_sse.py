"""Incremental Server-Sent Events parser: WHATWG HTML §9.2.5 (the `text/event-stream` format) and §9.2.6
(interpreting an event stream), exactly.

Feed bytes as they arrive, split anywhere; the same events come out for every split. Lines are split at the
byte level (CR and LF never occur inside a UTF-8 sequence) on LF, CRLF or a lone CR, mixed freely, and each
complete line is decoded once, so a code point or a CRLF split across two feeds is read correctly. One leading
BOM is stripped. Where a browser's EventSource silently drops or repairs something, the parser does the same
and also records a `FramingIssue`:

- invalid UTF-8 decodes with U+FFFD as the spec's decoder does (`invalid-utf8`: the first bad byte of a line);
- an event block still open at end of stream is discarded, never dispatched (`trailing-event`);
- a block with a non-empty `event:` field but no data dispatches nothing (`empty-data-block`); the OpenAI SDK
  dispatches such blocks and fails on them (the Anthropic SDK skips them), so servers should not send them;
- a block larger than `max_event_bytes` (its lines' bytes plus one per line end) is discarded, its `id:`
  included (`oversize-event`), so memory stays bounded by that limit plus one chunk.

Offsets count bytes of the raw stream, a leading BOM included. A CR ends a line by itself, so an event is
dispatched as soon as the first byte of its blank line's end-of-line arrives, without waiting to see whether
an LF follows: `SSEEvent.end` is just after that byte (for a CRLF blank line, the offset of its LF), whatever
the split.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ._sse_lines import BOM, CR, LF, WINDOW, Mode, block_fields, line_mode, retry_value
from ._sse_types import (
    FramingIssue,
    SSEEvent,
    empty_data_block,
    invalid_utf8,
    oversize_event,
    trailing_event,
)

__all__ = ["FramingIssue", "SSEEvent", "SSEParser", "parse_sse"]


class SSEParser:
    """Incremental event-stream parser: `feed()` bytes as they arrive, `close()` at end of stream.

    `clock` stamps each feed() that is given no `arrival`. `max_event_bytes` bounds one event block; a larger
    block is discarded and reported.
    """

    __slots__ = (
        "_clock", "_closed", "_cr", "_data", "_fields", "_head", "_id_before", "_issues", "_last_id", "_line",
        "_max", "_oversize", "_retry", "_seen", "_size", "_start", "_start_line", "_tail", "_tail_len",
        "_tail_start", "_type", "dropped", "max_issues",
    )

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_event_bytes: int = 32 * 1024 * 1024,
        max_issues: int = 1000,
    ) -> None:
        if max_event_bytes < 1:
            raise ValueError(f"max_event_bytes must be at least 1, got {max_event_bytes}")
        self._clock = clock
        self._max = max_event_bytes
        self._issues: list[FramingIssue] = []
        #: Issues beyond the first `max_issues` are counted here by kind, not stored (bounded memory).
        self.max_issues = max_issues
        self.dropped: dict[str, int] = {}
        self._seen = 0
        self._head: bytes | None = b""  # the first bytes while they may still be a BOM; None once decided
        self._cr = False  # the last byte fed was a CR line end: an LF right after it belongs to it
        self._line = 1  # 1-based number of the line being read
        self._last_id: str | None = None
        self._closed = False
        # The open event block; _start < 0 when there is none.
        self._start = -1
        self._start_line = 0
        self._size = 0
        self._data: list[str] = []
        self._type = ""
        self._retry: int | None = None
        self._fields = False  # a field line (not only comments) was seen
        self._id_before: str | None = None
        self._oversize = False
        # The line read so far without its line end; _tail_start < 0 when there is none.
        self._tail: list[bytes] = []
        self._tail_len = 0
        self._tail_start = -1

    @property
    def issues(self) -> list[FramingIssue]:
        """All issues so far, in stream order: the parser's own list, appended to as it parses."""
        return self._issues

    @property
    def bytes_seen(self) -> int:
        """Bytes fed so far, a BOM included."""
        return self._seen

    def feed(self, chunk: bytes, arrival: float | None = None) -> list[SSEEvent]:
        """Parse the next bytes of the stream; return the events they complete, in order."""
        if self._closed:
            raise ValueError("SSEParser.feed() after close(): use a new parser for a new stream")
        if not chunk:
            return []
        if arrival is None:
            arrival = self._clock()
        buf = bytes(chunk)
        base = self._seen
        self._seen = base + len(buf)
        i = 0
        if self._head is not None:
            if self._head:
                base -= len(self._head)
                buf = self._head + buf
            if len(buf) < 3 and BOM.startswith(buf):
                self._head = buf
                return []
            self._head = None
            if buf.startswith(BOM):
                i = 3
        elif self._cr:
            self._cr = False
            if buf[0] == LF:
                i = 1
        out: list[SSEEvent] = []
        if i < len(buf):
            self._run(buf, base, i, arrival, out)
            self._cr = buf[-1] == CR
        return out

    def close(self) -> list[FramingIssue]:
        """End of stream: report an event block left open (the spec discards it); return all issues."""
        if self._closed:
            return list(self._issues)
        self._closed = True
        if self._head:  # one or two bytes of a would-be BOM and nothing else: an unterminated line
            self._partial(self._head, 0)
        self._head = None
        if self._tail_start >= 0:
            if not self._oversize:
                text = self._decode(b"".join(self._tail), self._tail_start)
                self._fields = self._fields or text[0] != ":"
            self._drop_tail()
        if self._start >= 0 and (self._fields or self._oversize):
            self._issue(trailing_event(self._start, self._start_line))
        self._reset_block()
        return list(self._issues)

    # -- parsing -------------------------------------------------------------------------------------------

    def _run(self, buf: bytes, base: int, i: int, arrival: float, out: list[SSEEvent]) -> None:
        """Parse buf[i:] (buf[0] is at stream offset `base`); i starts a line or continues the tail."""
        n = len(buf)
        mode = line_mode(buf, i)
        nl, sep = mode[0], mode[1]
        # Cutting at a blank line is right whatever the line ends: after "\r\n\r\n", "\n\n" or "\r\r" no
        # block is open. The lines in between have the mode's line ends, unless CRLF was a guess (_fast).
        if self._start >= 0:  # finish the block left open by the previous feed line by line
            if self._tail_start < 0 and buf.startswith(nl, i):
                stop = i + len(nl)
            else:
                k = buf.find(sep, i)
                stop = n if k < 0 else k + 2 * len(nl)
            self._lines(buf, base, i, stop, arrival, out)
            i = stop
        if i < n:
            i = self._fast(buf, base, i, mode, arrival, out)
        if i < n:
            self._lines(buf, base, i, n, arrival, out)

    def _lines(self, buf: bytes, base: int, i: int, stop: int, arrival: float, out: list[SSEEvent]) -> None:
        """Parse buf[i:stop] line by line; keep an unterminated last line as the tail."""
        lf = cr = -1
        while i < stop:
            if lf < i:
                lf = buf.find(b"\n", i, stop)
                if lf < 0:
                    lf = stop
            if cr < i:
                cr = buf.find(b"\r", i, stop)
                if cr < 0:
                    cr = stop
            end = lf if lf < cr else cr
            if end == stop:
                self._partial(buf[i:stop], base + i)
                return
            self._line_end(buf, base, i, end, arrival, out)
            self._line += 1
            i = end + 1
            if end == cr and i < stop and buf[i] == LF:
                i += 1

    def _fast(self, buf: bytes, base: int, i: int, mode: Mode, arrival: float, out: list[SSEEvent]) -> int:
        """Parse the whole event blocks of buf[i:] (no block open), at most WINDOW bytes of them at a time; return
        the offset in buf after the last one."""
        sep, eol = mode[1], mode[3]
        pair = 2 * len(mode[0])
        counted = i  # self._line is the number of the line at buf[counted]
        n = len(buf)
        while i < n:
            k = buf.rfind(sep, i, i + WINDOW)
            if k < 0:
                k = buf.find(sep, i)
                if k < 0:
                    break
            stop = k + pair
            pieces = (buf if i == 0 and stop == n else buf[i:stop]).split(sep)
            pieces.pop()  # what follows the last separator: b"" or one blank line
            counted = self._blocks(pieces, buf, base, base + i, counted, mode, arrival, out)
            i = stop
        self._line += buf.count(eol, counted, i)
        return i

    def _blocks(
        self, pieces: list[bytes], buf: bytes, base: int, pos: int, counted: int, mode: Mode, arrival: float,
        out: list[SSEEvent],
    ) -> int:
        """Dispatch the blocks `pieces` (buf split at blank lines; the first at stream offset `pos`); return the
        new `counted` offset (self._line is the number of the line at buf[counted]). A block that does not decode
        cleanly, may be oversize, or (in CRLF mode) holds a lone CR or LF goes line by line."""
        nl, _, text_nl, eol, last = mode
        step = len(nl)
        blank = nl[0]
        push = out.append
        limit = self._max
        last_id = self._last_id
        for piece in pieces:
            if piece and piece[0] == blank and piece.startswith(nl):  # a blank line, no block open: no-op
                pos += step
                piece = piece[step:]
            if not piece:  # two blank lines
                pos += 2 * step
                continue
            size = len(piece)
            try:
                text = piece.decode() if size < limit else None
            except UnicodeDecodeError:
                text = None
            type_ = ""
            retry: int | None = None
            data: str | None = None
            # The shapes of nearly every LLM event, "data: X" and "event: T" + "data: X", then any block. A lone
            # CR is no line end of these shapes in any mode: "\r" must not occur.
            if text is None:
                pass
            elif text.startswith("data: ") and last not in text and "\r" not in text:
                data = text[6:]
            elif (
                text.startswith("event: ")
                and (q := text.find(last)) > 0
                and text.startswith("data: ", q + 1)
                and text.find(last, q + 1) < 0
                and (step == 1 or (text[q - 1] == "\r" and text.count("\r") == 1))
            ):
                type_ = text[7 : q + 1 - step]
                data = text[q + 7 :]
            elif step == 1 or text.count("\r") == text.count("\n") == text.count(text_nl):
                type_, data, last_id, retry = block_fields(text.split(text_nl), last_id)
                if data is None and type_:
                    counted = self._empty_at(buf, base, pos, counted, eol, type_)
            else:  # a lone CR or LF among CRLFs
                text = None
            if text is None:  # invalid UTF-8, maybe oversize, mixed line ends: go line by line
                self._last_id = last_id
                counted = self._by_lines(buf, base, pos - base, size + 2 * step, counted, eol, arrival, out)
                last_id = self._last_id
            elif data is not None:
                push(SSEEvent(type_ or "message", data, last_id, retry, pos, pos + size + step + 1, arrival,
                              bool(type_)))
            pos += size + 2 * step
        self._last_id = last_id
        return counted

    def _by_lines(
        self, buf: bytes, base: int, at: int, size: int, counted: int, eol: bytes, arrival: float,
        out: list[SSEEvent],
    ) -> int:
        """Parse the block buf[at:at + size] (its blank line included) line by line; return the offset after it."""
        self._line += buf.count(eol, counted, at)
        self._lines(buf, base, at, at + size, arrival, out)
        return at + size

    def _empty_at(self, buf: bytes, base: int, pos: int, counted: int, eol: bytes, type_: str) -> int:
        """Report an empty-data block at stream offset `pos` (buf[pos - base]); return that offset in buf."""
        at = pos - base
        self._line += buf.count(eol, counted, at)
        self._empty_block(pos, self._line, type_)
        return at

    def _line_end(self, buf: bytes, base: int, i: int, end: int, arrival: float, out: list[SSEEvent]) -> None:
        """A line ends at buf[end] (its first line-end byte); buf[i:end] is its last part."""
        tail = self._tail_start >= 0
        if not tail and end == i:
            if self._start >= 0:
                self._dispatch(base + end + 1, arrival, out)
            return
        offset = self._tail_start if tail else base + i
        if self._start < 0:
            self._begin(offset)
        if self._oversize:
            self._drop_tail()
            return
        if tail:
            self._tail.append(buf[i:end])
            content = b"".join(self._tail)
            self._drop_tail()
        else:
            content = buf[i:end]
        size = self._size + len(content) + 1
        if size > self._max:
            self._overflow()
            return
        self._size = size
        self._field(self._decode(content, offset))

    def _partial(self, part: bytes, offset: int) -> None:
        """Keep `part` (at stream offset `offset`), a line without its end yet, bounded by max_event_bytes."""
        if self._tail_start < 0:
            self._tail_start = offset
            if self._start < 0:
                self._begin(offset)
        if self._oversize:
            return
        tail_len = self._tail_len + len(part)
        if self._size + tail_len + 1 > self._max:
            self._overflow()
            return
        self._tail.append(part)
        self._tail_len = tail_len

    def _field(self, line: str) -> None:
        """Process one non-empty line of a block (§9.2.6 "process the field")."""
        if line[0] == ":":
            return
        self._fields = True
        name, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id":
            if "\x00" not in value:
                self._last_id = value
        elif name == "retry":
            self._retry = retry_value(value, self._retry)

    def _decode(self, content: bytes, offset: int) -> str:
        try:
            return content.decode()
        except UnicodeDecodeError as exc:
            self._issue(invalid_utf8(offset + exc.start, self._line, content[exc.start : exc.end]))
            return content.decode("utf-8", "replace")

    # -- event blocks --------------------------------------------------------------------------------------

    def _begin(self, offset: int) -> None:
        self._start = offset
        self._start_line = self._line
        self._id_before = self._last_id

    def _dispatch(self, end: int, arrival: float, out: list[SSEEvent]) -> None:
        if not self._oversize:
            if self._data:
                type_ = self._type
                out.append(SSEEvent(type_ or "message", "\n".join(self._data), self._last_id, self._retry,
                                    self._start, end, arrival, bool(type_)))
            elif self._type:
                self._empty_block(self._start, self._start_line, self._type)
        self._reset_block()

    def _reset_block(self) -> None:
        self._start = -1
        self._size = 0
        self._data = []
        self._type = ""
        self._retry = None
        self._fields = False
        self._oversize = False

    def _drop_tail(self) -> None:
        self._tail = []
        self._tail_len = 0
        self._tail_start = -1

    def _overflow(self) -> None:
        """The open block outgrew max_event_bytes: discard it (its `id:` too) and skip to its blank line."""
        self._oversize = True
        self._data = []
        self._tail = []
        self._tail_len = 0
        self._last_id = self._id_before
        self._issue(oversize_event(self._start, self._start_line, self._max))

    def _empty_block(self, offset: int, line: int, type_: str) -> None:
        self._issue(empty_data_block(offset, line, type_))

    def _issue(self, issue: FramingIssue) -> None:
        if len(self._issues) < self.max_issues:
            self._issues.append(issue)
        else:
            self.dropped[issue.kind] = self.dropped.get(issue.kind, 0) + 1


def parse_sse(data: bytes) -> tuple[list[SSEEvent], list[FramingIssue]]:
    """Parse a whole captured stream: its events and framing issues."""
    parser = SSEParser(clock=lambda: 0.0)
    events = parser.feed(data, 0.0)
    return events, parser.close()
