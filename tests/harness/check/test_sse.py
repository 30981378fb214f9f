"""The incremental SSE parser against WHATWG HTML §9.2.5-9.2.6, rule by rule, then by property: every split of
any stream gives the same events and issues, equal to a literal transcription of the spec's algorithm."""

from __future__ import annotations

import dataclasses
import itertools
import re
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from callproof.harness.check._sse import FramingIssue, SSEEvent, SSEParser, parse_sse

BOM = b"\xef\xbb\xbf"


def parse(data: bytes, **kwargs: int) -> tuple[list[SSEEvent], list[FramingIssue]]:
    """Parse in one feed, and check that one-byte feeds (the parser's other code path) give the same."""
    parser = SSEParser(clock=lambda: 0.0, **kwargs)
    events = parser.feed(data, 0.0)
    issues = parser.close()
    slow_events, slow_issues = bytewise(data, **kwargs)
    assert (timeless(slow_events), slow_issues) == (events, issues)
    return events, issues


def parse_chunks(chunks: list[bytes], **kwargs: int) -> tuple[list[SSEEvent], list[FramingIssue]]:
    parser = SSEParser(clock=lambda: 0.0, **kwargs)
    events = [event for index, chunk in enumerate(chunks) for event in parser.feed(chunk, float(index))]
    return events, parser.close()


def bytewise(data: bytes, **kwargs: int) -> tuple[list[SSEEvent], list[FramingIssue]]:
    return parse_chunks([data[k : k + 1] for k in range(len(data))], **kwargs)


def datas(data: bytes) -> list[str]:
    return [event.data for event in parse(data)[0]]


def kinds(issues: list[FramingIssue]) -> list[tuple[str, int]]:
    return [(issue.kind, issue.offset) for issue in issues]


def timeless(events: list[SSEEvent]) -> list[SSEEvent]:
    return [dataclasses.replace(event, arrival=0.0) for event in events]


# -- examples from the spec text (§9.2.5 and the authoring notes of §9.2) ------------------------------------


def test_spec_example_stock_ticker_multiline_data() -> None:
    assert datas(b"data: YHOO\ndata: +2\ndata: 10\n\n") == ["YHOO\n+2\n10"]


def test_spec_example_comment_then_id_and_empty_id() -> None:
    stream = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    events, issues = parse(stream)
    assert [(e.data, e.id) for e in events] == [
        ("first event", "1"), ("second event", ""), (" third event", "")
    ]
    assert issues == []


def test_spec_example_last_block_needs_its_blank_line() -> None:
    events, issues = parse(b"data: first event\n\ndata:  third event")
    assert [e.data for e in events] == ["first event"]
    assert kinds(issues) == [("trailing-event", 19)]


def test_spec_example_empty_data_and_single_newline() -> None:
    events, issues = parse(b"data\n\ndata\ndata\n\ndata:")
    assert [e.data for e in events] == ["", "\n"]
    assert kinds(issues) == [("trailing-event", 17)]


def test_spec_example_space_after_colon_is_optional() -> None:
    assert datas(b"data:test\n\ndata: test\n\n") == ["test", "test"]


def test_spec_example_event_types_add_remove() -> None:
    stream = b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"
    events = parse(stream)[0]
    assert [(e.type, e.data, e.explicit_type) for e in events] == [
        ("add", "73857293", True), ("remove", "2153", True), ("add", "113411", True)
    ]


def test_spec_example_authoring_messages() -> None:
    stream = (b"data: This is the first message.\n\ndata: This is the second message, it\n"
              b"data: has two lines.\n\ndata: This is the third message.\n\n")
    assert datas(stream) == [
        "This is the first message.", "This is the second message, it\nhas two lines.",
        "This is the third message.",
    ]


# -- line ends ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_each_line_end_kind(eol: bytes) -> None:
    stream = b"event: a" + eol + b"data: 1" + eol + b"data: 2" + eol + eol + b"data: 3" + eol + eol
    events = parse(stream)[0]
    assert [(e.type, e.data) for e in events] == [("a", "1\n2"), ("message", "3")]
    assert timeless(bytewise(stream)[0]) == events


def test_mixed_line_ends() -> None:
    stream = b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r"
    assert datas(stream) == ["a\nb\nc", "d"]


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        (b"data: a\ndata: b\r\n\r\n", [("message", "a\nb")]),
        (b"data: a\rdata: b\r\n\r\n", [("message", "a\nb")]),
        (b"event: a\rb\r\ndata: x\r\n\r\n", [("a", "x")]),
        (b"event: a\r\ndata: x\ry\r\n\r\n", [("a", "x")]),
        (b"event: a\ndata: x\r\n\r\n", [("a", "x")]),
        (b"event: ab\ndata: x\ry\r\n\r\n", [("ab", "x")]),
        (b"event: a\r\nid: 1\rdata: x\r\n\r\n", [("a", "x")]),
        (b"data: z\r\n\r\n\rdata: b\r\n\r\n", [("message", "z"), ("message", "b")]),
        (b"data: z\r\n\r\n\ndata: b\r\n\r\n", [("message", "z"), ("message", "b")]),
        (b"data: z\r\n\r\n\r\r\n\r\ndata: b\r\n\r\n", [("message", "z"), ("message", "b")]),
    ],
    ids=["LF-in-data", "CR-in-data", "CR-in-event", "CR-after-data", "LF-after-event", "LF-and-CR",
         "CR-after-id", "CR-blank-line", "LF-blank-line", "CR-then-CRLF-blank"],
)
def test_stray_line_end_among_crlf(stream: bytes, expected: list[tuple[str, str]]) -> None:
    assert [(e.type, e.data) for e in parse(stream)[0]] == expected


def test_crlf_split_across_feeds_counts_once() -> None:
    events, issues = parse_chunks([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\ndata: c\r", b"\n\r\n"])
    assert [e.data for e in events] == ["a\nb", "c"]
    assert [(e.offset, e.end) for e in events] == [(0, 19), (20, 30)]
    assert issues == []


def test_cr_then_lf_in_next_feed_is_not_a_blank_line() -> None:
    events = parse_chunks([b"data: a\r", b"\n", b"data: b\r", b"\n", b"\r", b"\n"])[0]
    assert [e.data for e in events] == ["a\nb"]


def test_cr_blank_line_dispatches_without_waiting_for_the_next_byte() -> None:
    parser = SSEParser()
    assert [e.data for e in parser.feed(b"data: a\r\r", 1.0)] == ["a"]
    assert parser.feed(b"\ndata: b\n\n", 2.0)[0].data == "b"


def test_line_numbers_count_crlf_once() -> None:
    issues = parse_chunks([b"data: a\r", b"\n\r", b"\n: c\r\xff\n\n"])[1]
    assert kinds(issues) == [("invalid-utf8", 15)]
    assert "line 4" in issues[0].detail


# -- BOM ---------------------------------------------------------------------------------------------------


def test_leading_bom_is_stripped_and_counted_in_offsets() -> None:
    events = parse(BOM + b"data: x\n\n")[0]
    assert [(e.data, e.offset, e.end) for e in events] == [("x", 3, 12)]


def test_bom_split_across_feeds_is_stripped() -> None:
    events = parse_chunks([b"\xef", b"\xbb", b"\xbf", b"data: x\n\n"])[0]
    assert [(e.data, e.offset) for e in events] == [("x", 3)]


def test_only_one_bom_is_stripped() -> None:
    events, issues = parse(BOM + BOM + b"data: x\n\ndata: y\n\n")
    assert [e.data for e in events] == ["y"]  # the first field name is "\ufeffdata": unknown, ignored
    assert issues == []


def test_bom_after_stream_start_is_data() -> None:
    assert datas(b"data: \xef\xbb\xbfx\n\n" + BOM) == ["\ufeffx"]


def test_incomplete_bom_prefix_is_not_stripped() -> None:
    events, issues = parse(b"\xef\xbbdata: x\n\ndata: y\n\n")
    assert [e.data for e in events] == ["y"]
    assert kinds(issues) == [("invalid-utf8", 0)]


# -- comments and fields -----------------------------------------------------------------------------------


def test_comment_lines_are_ignored() -> None:
    events, issues = parse(b": keep-alive\n\n:\ndata: a\n: inside\ndata: b\n\n")
    assert [(e.data, e.offset) for e in events] == [("a\nb", 14)]
    assert issues == []


def test_unknown_fields_are_ignored() -> None:
    events, issues = parse(b"foo: bar\nData: x\ndata : y\n\ndata: z\nevents: q\n\n")
    assert [(e.type, e.data) for e in events] == [("message", "z")]
    assert issues == []


def test_line_without_colon_is_a_field_with_empty_value() -> None:
    events = parse(b"data\n\nevent\ndata\ndata: x\n\n")[0]
    assert [(e.type, e.data, e.explicit_type) for e in events] == [
        ("message", "", False), ("message", "\nx", False)
    ]


def test_exactly_one_leading_space_is_removed() -> None:
    assert datas(b"data:  two\n\ndata:no\n\ndata: \n\ndata:\t tab\n\n") == [" two", "no", "", "\t tab"]


def test_value_keeps_colons_after_the_first() -> None:
    events = parse(b"event: a:b\ndata: {\"k\": \"v:w\"}\n\n")[0]
    assert [(e.type, e.data) for e in events] == [("a:b", '{"k": "v:w"}')]


def test_event_type_last_one_wins_and_empty_means_message() -> None:
    events = parse(b"event: a\nevent: b\ndata: 1\n\nevent: a\nevent:\ndata: 2\n\n")[0]
    assert [(e.type, e.explicit_type) for e in events] == [("b", True), ("message", False)]


def test_event_type_does_not_leak_into_the_next_event() -> None:
    events = parse(b"event: a\ndata: 1\n\ndata: 2\n\n")[0]
    assert [e.type for e in events] == ["a", "message"]


def test_id_persists_across_events_and_blocks_without_data() -> None:
    events = parse(b"data: 1\n\nid: 7\ndata: 2\n\ndata: 3\n\nid: 8\n\ndata: 4\n\nid\ndata: 5\n\n")[0]
    assert [(e.data, e.id) for e in events] == [("1", None), ("2", "7"), ("3", "7"), ("4", "8"), ("5", "")]


def test_id_containing_nul_is_ignored() -> None:
    events = parse(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")[0]
    assert [e.id for e in events] == ["1", "1"]


def test_retry_ascii_digits_only() -> None:
    stream = (b"retry: 1500\ndata: a\n\nretry: 15a\ndata: b\n\nretry:\ndata: c\n\n"
              b"retry:  5\ndata: d\n\nretry: \xd9\xa1\xd9\xa2\ndata: e\n\nretry: 007\ndata: f\n\n")
    events = parse(stream)[0]
    assert [(e.data, e.retry) for e in events] == [
        ("a", 1500), ("b", None), ("c", None), ("d", None), ("e", None), ("f", 7)
    ]


def test_retry_belongs_to_its_block_only() -> None:
    events = parse(b"retry: 10\ndata: a\n\ndata: b\n\nretry: 20\n\ndata: c\n\n")[0]
    assert [e.retry for e in events] == [10, None, None]


def test_retry_too_long_to_convert_is_ignored() -> None:
    events = parse(b"retry: " + b"9" * 5000 + b"\ndata: a\n\n")[0]
    assert [(e.data, e.retry) for e in events] == [("a", None)]


def test_blank_lines_without_a_block_dispatch_nothing() -> None:
    events, issues = parse(b"\n\n\r\n\rdata: a\n\n\n\n")
    assert [(e.data, e.offset) for e in events] == [("a", 5)]
    assert issues == []


# -- UTF-8 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_code_point_split_across_feeds(cut: int) -> None:
    emoji = "😀".encode()
    events, issues = parse_chunks([b"data: " + emoji[:cut], emoji[cut:] + b"\xe2\x82", b"\xac\n\n"])
    assert [e.data for e in events] == ["😀€"]
    assert issues == []


def test_invalid_utf8_is_replaced_and_reported() -> None:
    events, issues = parse(b"data: ok\n\ndata: a\xffb\xc3\n\n")
    assert [e.data for e in events] == ["ok", "a\ufffdb\ufffd"]
    assert kinds(issues) == [("invalid-utf8", 17)]
    assert "byte 17" in issues[0].detail and "line 3" in issues[0].detail and "UTF-8" in issues[0].detail


def test_invalid_utf8_one_issue_per_line() -> None:
    issues = parse(b"event: \xed\xa0\x80\ndata: \xf0\x9f\x98\ndata: fine\n\n")[1]
    assert kinds(issues) == [("invalid-utf8", 7), ("invalid-utf8", 17)]


def test_invalid_utf8_in_a_comment_is_reported() -> None:
    assert kinds(parse(b": \x80\ndata: a\n\n")[1]) == [("invalid-utf8", 2)]


def test_truncated_code_point_at_end_of_stream() -> None:
    events, issues = parse(b"data: a\n\ndata: \xe2\x82")
    assert [e.data for e in events] == ["a"]
    assert kinds(issues) == [("invalid-utf8", 15), ("trailing-event", 9)]


# -- offsets and arrival times -----------------------------------------------------------------------------


def test_offset_and_end_of_each_event() -> None:
    stream = b": hi\ndata: a\n\n\ndata: b\r\n\r\nevent: x\rdata: c\r\r"
    events = parse(stream)[0]
    assert [(e.offset, e.end) for e in events] == [(0, 14), (15, 25), (26, 44)]
    assert [stream[e.end - 1 : e.end] for e in events] == [b"\n", b"\r", b"\r"]


def test_end_of_crlf_blank_line_is_its_lf_whatever_the_split() -> None:
    stream = b"data: a\r\n\r\ndata: b\r\n\r\n"
    whole = parse(stream)[0]
    assert [(e.offset, e.end) for e in whole] == [(0, 10), (11, 21)]
    assert timeless(bytewise(stream)[0]) == whole


def test_arrival_is_that_of_the_completing_feed() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\n\nda", 1.5)[0].arrival == 1.5
    assert parser.feed(b"ta: b\n", 2.5) == []
    assert [(e.data, e.arrival) for e in parser.feed(b"\ndata: c\n\n", 3.5)] == [("b", 3.5), ("c", 3.5)]


def test_arrival_defaults_to_the_clock() -> None:
    ticks = iter([10.0, 20.0])
    parser = SSEParser(clock=lambda: next(ticks))
    assert parser.feed(b"data: a\n") == []
    assert [e.arrival for e in parser.feed(b"\n")] == [20.0]


def test_bytes_seen_counts_every_byte_including_bom() -> None:
    parser = SSEParser()
    parser.feed(b"\xef\xbb", 0.0)
    parser.feed(b"\xbfdata: a\n", 0.0)
    parser.feed(b"", 0.0)
    assert parser.bytes_seen == 11


# -- framing issues ----------------------------------------------------------------------------------------


def test_trailing_event_is_reported_not_dispatched() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\n\nid: 4\ndata: b\n", 0.0)[0].data == "a"
    issues = parser.close()
    assert kinds(issues) == [("trailing-event", 9)]
    assert "byte 9" in issues[0].detail and "line 3" in issues[0].detail and "\\n\\n" in issues[0].detail


def test_trailing_event_without_final_line_end() -> None:
    assert kinds(parse(b"data: a\n\nevent: x")[1]) == [("trailing-event", 9)]


def test_trailing_comment_is_not_an_event() -> None:
    assert parse(b"data: a\n\n: bye\n")[1] == []
    assert parse(b"data: a\n\n: bye")[1] == []


def test_close_is_idempotent() -> None:
    parser = SSEParser()
    parser.feed(b"data: a", 0.0)
    first = parser.close()
    assert parser.close() == first == parser.issues
    assert len(first) == 1


def test_feed_after_close_is_refused() -> None:
    parser = SSEParser()
    parser.close()
    with pytest.raises(ValueError, match="after close"):
        parser.feed(b"data: a\n\n")


def test_empty_data_block_with_event_field_is_reported() -> None:
    events, issues = parse(b"event: ping\n\ndata: a\n\n")
    assert [e.data for e in events] == ["a"]
    assert kinds(issues) == [("empty-data-block", 0)]
    assert "event: ping" in issues[0].detail and "line 1" in issues[0].detail


def test_empty_data_block_without_event_field_is_silent() -> None:
    events, issues = parse(b"id: 3\n\nretry: 5\n\n: c\n\nevent:\n\nfoo\n\ndata: a\n\n")
    assert [(e.data, e.id, e.retry) for e in events] == [("a", "3", None)]
    assert issues == []


def test_issues_property_grows_with_each_feed() -> None:
    parser = SSEParser()
    parser.feed(b"event: a\n\n", 0.0)
    assert kinds(parser.issues) == [("empty-data-block", 0)]
    parser.feed(b"data: \xff\n\n", 0.0)
    assert kinds(parser.issues) == [("empty-data-block", 0), ("invalid-utf8", 16)]


# -- oversize events ---------------------------------------------------------------------------------------


def test_oversize_event_is_discarded_and_parsing_continues() -> None:
    stream = b"data: a\n\nid: 9\ndata: " + b"x" * 100 + b"\ndata: y\n\ndata: b\n\n"
    events, issues = parse(stream, max_event_bytes=64)
    assert [(e.data, e.id) for e in events] == [("a", None), ("b", None)]
    assert kinds(issues) == [("oversize-event", 9)]
    assert "64 bytes" in issues[0].detail and "line 3" in issues[0].detail


def test_oversize_limit_counts_line_bytes_plus_one_per_line_end() -> None:
    stream = b"data: x\r\n: c\r\n\r\n"  # 7 + 1 + 3 + 1 = 12 bytes
    assert datas(stream) == ["x"]
    assert [e.data for e in parse(stream, max_event_bytes=12)[0]] == ["x"]
    assert kinds(parse(stream, max_event_bytes=11)[1]) == [("oversize-event", 0)]


def test_oversize_detected_while_a_line_is_still_arriving() -> None:
    parser = SSEParser(max_event_bytes=100)
    parser.feed(b"data: " + b"x" * 50, 0.0)
    assert parser.issues == []
    parser.feed(b"x" * 50, 0.0)
    assert kinds(parser.issues) == [("oversize-event", 0)]
    assert [e.data for e in parser.feed(b"xx\n\ndata: ok\n\n", 0.0)] == ["ok"]


def test_oversize_trailing_block_is_also_reported_as_trailing() -> None:
    issues = parse(b"data: " + b"x" * 100, max_event_bytes=10)[1]
    assert kinds(issues) == [("oversize-event", 0), ("trailing-event", 0)]


def test_memory_stays_bounded_by_the_event_limit() -> None:
    limit, chunk = 256 * 1024, b"x" * (64 * 1024)
    parser = SSEParser(max_event_bytes=limit)
    tracemalloc.start()
    try:
        parser.feed(b"data: ", 0.0)
        for _ in range(128):  # one 8 MiB line
            parser.feed(chunk, 0.0)
        events = parser.feed(b"\n\ndata: after\n\n", 0.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [e.data for e in events] == ["after"]
    assert kinds(parser.issues) == [("oversize-event", 0)]
    assert peak < limit + 4 * len(chunk)


def test_max_event_bytes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_event_bytes"):
        SSEParser(max_event_bytes=0)


# -- the event values --------------------------------------------------------------------------------------


def test_parsed_events_equal_constructed_events() -> None:
    stream = b"event: a\ndata: 1\n\ndata: 2\n\nid: 5\nretry: 3\ndata: 3\n\n"
    expected = [
        SSEEvent("a", "1", None, None, 0, 18, 0.0, True),
        SSEEvent("message", "2", None, None, 18, 27, 0.0, False),
        SSEEvent("message", "3", "5", 3, 27, 51, 0.0, False),
    ]
    for events in (parse(stream)[0], bytewise(stream)[0]):
        assert timeless(events) == expected
        assert type(events[0]) is SSEEvent and hash(timeless(events)[0]) == hash(expected[0])
        assert repr(timeless(events)[2]) == repr(expected[2])
        with pytest.raises(dataclasses.FrozenInstanceError):
            events[0].data = "changed"  # type: ignore[misc]


def test_parse_sse_convenience() -> None:
    events, issues = parse_sse(b"data: a\n\ndata: b")
    assert [e.data for e in events] == ["a"]
    assert kinds(issues) == [("trailing-event", 9)]


def test_large_capture_in_one_feed_matches_small_feeds() -> None:
    block = b"event: response.output_text.delta\ndata: {\"delta\": \"h\\u00e9\"}\n\n"
    stream = b"data: first\n\n" + block * 3000 + b"data: caf\xc3\xa9\n\n" + block * 3000 + b"\xff\n\n" + block
    whole = parse(stream)
    assert len(whole[0]) == 6003
    assert timeless(parse_chunks([stream[k : k + 1000] for k in range(0, len(stream), 1000)])[0]) == whole[0]


# -- properties --------------------------------------------------------------------------------------------

_LINE_RE = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")


def reference(data: bytes) -> tuple[list[SSEEvent], list[tuple[str, int]]]:
    """A literal transcription of §9.2.6 over the whole stream, plus the issues callproof reports."""
    events: list[SSEEvent] = []
    issues: list[tuple[str, int]] = []
    buffer: list[str] = []
    type_, last_id, retry = "", None, None
    start: int | None = None
    fields = False

    def decode(raw: bytes, offset: int) -> str:
        try:
            return raw.decode()
        except UnicodeDecodeError as exc:
            issues.append(("invalid-utf8", offset + exc.start))
            return raw.decode("utf-8", "replace")

    pos = 3 if data.startswith(BOM) else 0
    for match in _LINE_RE.finditer(data, pos):
        pos = match.end()
        if not match.group(1):
            if start is not None:
                if buffer:
                    events.append(SSEEvent(type_ or "message", "\n".join(buffer), last_id, retry, start,
                                           match.start(2) + 1, 0.0, bool(type_)))
                elif type_:
                    issues.append(("empty-data-block", start))
            buffer, type_, retry, start, fields = [], "", None, None, False
            continue
        if start is None:
            start = match.start()
        line = decode(match.group(1), match.start())
        if line.startswith(":"):
            continue
        fields = True
        name, colon, value = line.partition(":")
        value = value.removeprefix(" ") if colon else ""
        if name == "data":
            buffer.append(value)
        elif name == "event":
            type_ = value
        elif name == "id" and "\x00" not in value:
            last_id = value
        elif name == "retry" and value and all("0" <= c <= "9" for c in value):
            retry = int(value)
    if pos < len(data):
        if start is None:
            start = pos
        last_line = decode(data[pos:], pos)
        fields = fields or not last_line.startswith(":")
    if start is not None and fields:
        issues.append(("trailing-event", start))
    return events, issues


_WORDS = st.sampled_from(["", " ", ":", "  x", "{\"a\": 1}", "é", "😀", "𝄞", "\x00", "\ufeff", "[DONE]", "7"])
_TEXT = st.lists(st.one_of(_WORDS, st.text(st.characters(exclude_characters="\r\n",
                                                         exclude_categories=["Cs"]), max_size=6)),
                 max_size=4).map("".join)
_RAW = st.sampled_from([b"\xff", b"data: \xc3", b"data: \xf0\x9f\x98", b"event: \xed\xa0\x80", b"id: \x80x",
                        b": \xfe", b"\xef\xbb"])


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["field"] * 6 + ["blank"] * 3 + ["comment", "raw"]))
    if kind == "blank":
        return b""
    if kind == "comment":
        return b":" + draw(_TEXT).encode()
    if kind == "raw":
        return draw(_RAW)
    name = draw(st.sampled_from(["data"] * 4 + ["event", "id", "retry", "", "dat", "data ", "Data", "foo"]))
    sep = draw(st.sampled_from(["", ":", ": ", ":  "]))
    value = draw(st.one_of(_TEXT, st.integers(0, 10**6).map(str))) if sep else ""
    return (name + sep + value).encode()


@st.composite
def _streams(draw: st.DrawFn) -> bytes:
    """Arbitrary streams: random fields, comments, bad bytes, mixed line ends, a BOM, no final line end."""
    eols = draw(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=1, max_size=3))
    lines = draw(st.lists(_line(), max_size=25))
    body = b"".join(line + draw(st.sampled_from(eols)) for line in lines)
    prefix = draw(st.sampled_from([b"", b"", BOM, BOM + BOM, b"\xef\xbb"]))
    suffix = draw(st.sampled_from([b"", b"", b"", b"data: tail", b":", b"\xe2\x82"]))
    return prefix + body + suffix


@st.composite
def _llm_streams(draw: st.DrawFn) -> bytes:
    """Streams of the shapes real servers send (the parser's fast path), with one kind of line end but for
    an occasional stray one."""
    main = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    stray = st.sampled_from([b"\n", b"\r\n", b"\r"])

    def eol() -> bytes:
        return draw(stray) if draw(st.integers(0, 15)) == 0 else main

    blocks = []
    for _ in range(draw(st.integers(0, 12))):
        lines = []
        if draw(st.booleans()):
            lines.append(b"event: " + draw(_TEXT).encode())
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from([b"id: 1", b": ping", b"retry: 30", b"\xff", b"event:"])))
        for _ in range(draw(st.sampled_from([1, 1, 1, 0, 2]))):
            lines.append(b"data: " + draw(_TEXT).encode())
        blocks.append(b"".join(line + eol() for line in lines) + eol() * draw(st.sampled_from([1, 1, 1, 2])))
    return b"".join(blocks)


@st.composite
def _chunked(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    data = draw(st.one_of(_streams(), _llm_streams()))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=12))))
    return data, [data[a:b] for a, b in itertools.pairwise([0, *cuts, len(data)])]


#: The suite's examples a property (200; 25 under `make check`: tests/conftest.py's profiles).
_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_chunked())
def test_any_rechunking_gives_identical_events_and_issues(case: tuple[bytes, list[bytes]]) -> None:
    data, chunks = case
    whole = parse(data)  # also checks one-byte feeds
    events, issues = parse_chunks(chunks)
    assert (timeless(events), issues) == whole


@_SETTINGS
@given(st.one_of(_streams(), _llm_streams()))
def test_events_and_issues_match_the_spec_algorithm(data: bytes) -> None:
    events, issues = parse(data)
    assert (events, kinds(issues)) == reference(data)


@_SETTINGS
@given(_chunked(), st.integers(1, 40))
def test_oversize_handling_is_split_independent(case: tuple[bytes, list[bytes]], limit: int) -> None:
    data, chunks = case
    whole = parse(data, max_event_bytes=limit)  # also checks one-byte feeds
    assert all(len(e.data.encode()) < limit for e in whole[0])
    events, issues = parse_chunks(chunks, max_event_bytes=limit)
    assert (timeless(events), issues) == whole
