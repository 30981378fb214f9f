"""The first checks of a capture (harness/check/_capture.py), made alike by `callproof check` (check_capture) and the
capture import (harness.capture.read_capture): a byte order mark and leading whitespace skipped, a NUL byte is a
binary file, `{` or `[` a JSON body, anything else an SSE stream; each reader keeps its own messages."""

from __future__ import annotations

import io

import pytest

from callproof.harness._errors import InputError
from callproof.harness.capture import read_capture
from callproof.harness.check import capture_kind, capture_text, check_capture, nul_offset

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(("data", "text", "kind"), [
    (b"", b"", "sse"),
    (b" \r\n\t", b"", "sse"),
    (BOM, b"", "sse"),
    (BOM + b"\n {\"a\": 1}", b"{\"a\": 1}", "json"),
    (b"  [1]", b"[1]", "json"),
    (b"data: {}\n\n", b"data: {}\n\n", "sse"),
    (b"\n\nevent: x\ndata: {}\n\n", b"event: x\ndata: {}\n\n", "sse"),
    (b" " + BOM + b"{}", BOM + b"{}", "sse"),  # a byte order mark counts only as the very first bytes
])
def test_a_capture_is_read_past_its_bom_and_leading_whitespace(data: bytes, text: bytes, kind: str) -> None:
    assert capture_text(data) == text
    assert capture_kind(data) == kind


@pytest.mark.parametrize(("data", "offset"), [(b"", None), (b"data: x\n\n", None), (b"\x00", 0), (b"ab\x00c\x00", 2)])
def test_the_first_nul_byte_marks_a_binary_file(data: bytes, offset: int | None) -> None:
    assert nul_offset(data) == offset


def test_both_readers_refuse_a_binary_file_by_the_same_offset() -> None:
    data = b"\x7fELF\x02\x01\x01\x00\x00\x00binary"
    with pytest.raises(InputError, match=r"looks binary \(NUL byte at offset 7\); callproof check reads"):
        check_capture(io.BytesIO(data), "capture.bin")
    with pytest.raises(InputError, match=r"looks binary \(a NUL byte at offset 7\); import reads"):
        read_capture(data, "capture.bin")


def test_both_readers_take_a_json_body_after_a_bom() -> None:
    data = BOM + b'\n{"object": "chat.completion", "choices": []}'
    assert check_capture(io.BytesIO(data), "body.json").front == "chat"
    assert read_capture(data, "body.json").kind == "json"
