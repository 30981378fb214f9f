"""WebSocket transcripts (docs/spec/websocket.md §7.8, §7.9): the RSP rules per turn minus SSE framing, the RSP-WS
rules of the mode, the transcript forms (bare, with client lines, wrapped), auto-detection and the errors of a
capture that cannot be read as one."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from callproof.harness._errors import InputError
from callproof.harness.check import (
    TranscriptChecker,
    check_bytes,
    check_capture,
    check_websocket_messages,
    check_websocket_transcript,
    is_transcript,
    transport_rules,
)
from tests.harness.check.support import CAPTURES, captures, decoded, violations

OK_SSE = CAPTURES / "responses" / "openai" / "ok"
LOOP = OK_SSE / "websocket-tool-loop.jsonl"


def _messages(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _jsonl(messages: list[Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def _turn(name: str = "one-call.sse", rid: str = "resp_a", previous: str | None = None) -> list[dict[str, Any]]:
    events = decoded((OK_SSE / name).read_bytes())
    for event in events:
        if isinstance(event.get("response"), dict):
            event["response"]["id"] = rid
            event["response"]["previous_response_id"] = previous
    return events


def _error(code: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", **extra,
            "error": {"type": "invalid_request_error", "code": code, "message": "m", "param": None}}


# -- the rules that apply ---------------------------------------------------------------------------------------
def test_a_transcript_is_judged_without_the_sse_framing_rules_and_with_the_websocket_rules() -> None:
    ids = {rule.id for rule in transport_rules("responses", "openai", "websocket")}
    assert {"RSP-WS-001", "RSP-WS-002", "RSP-WS-003", "RSP-WS-004"} <= ids
    assert not any(i.startswith(("SSE-", "RSP-FRAME-")) for i in ids)
    assert {"RSP-SEQ-003", "RSP-LIFE-002", "RSP-ID-004", "RSP-ARGS-001"} <= ids


def test_an_sse_report_does_not_list_the_websocket_rules() -> None:
    report = check_bytes((OK_SSE / "one-call.sse").read_bytes())
    assert not any(r.rule.id.startswith("RSP-WS-") for r in report.results)


def test_the_same_events_pass_as_a_transcript() -> None:
    """Every ok SSE capture's events pass as a transcript, but the flat SSE error event (RSP-WS-002 below)."""
    for path in captures("responses", "ok"):
        if path.name == "error-event.sse":
            continue
        report = check_websocket_transcript(_jsonl(decoded(path.read_bytes())))
        assert report.failed_rules == (), (path.name, violations(report))
        assert report.kind == "websocket" and report.to_json()["input"] == "websocket"


def test_an_sse_rule_fails_the_same_way_per_turn() -> None:
    """A broken SSE capture's own rule (not a framing one) fails the same in a transcript turn."""
    path = CAPTURES / "responses" / "openai" / "broken" / "RSP-SEQ-003--gap.sse"
    report = check_websocket_transcript(_jsonl(decoded(path.read_bytes())))
    assert report.failed_rules == ("RSP-SEQ-003",)


def test_each_turn_numbers_its_events_from_zero() -> None:
    report = check_websocket_messages([*_turn(rid="resp_a"), *_turn("text-only.sse", "resp_b", "resp_a")])
    assert report.failed_rules == ()


def test_a_bom_and_blank_lines_are_skipped() -> None:
    data = b"\xef\xbb\xbf" + _jsonl(_turn()).replace(b"\n", b"\n\n", 3)
    assert check_websocket_transcript(data).failed_rules == ()


def test_an_empty_transcript_fails_as_an_empty_stream() -> None:
    report = check_websocket_messages([])
    assert set(report.failed_rules) == {"RSP-LIFE-001", "RSP-LIFE-002"}


def test_a_turn_without_its_terminal_event_fails() -> None:
    report = check_websocket_messages(_turn()[:-1])
    assert report.failed_rules == ("RSP-LIFE-002",)


def test_an_event_after_the_terminal_event_fails() -> None:
    turn = _turn()
    report = check_websocket_messages([*turn, turn[3]])
    assert "RSP-LIFE-003" in report.failed_rules


# -- RSP-WS-001 ---------------------------------------------------------------------------------------------------
def test_a_second_response_in_flight_fails_ws001_once_without_a_missing_terminal() -> None:
    report = check_websocket_messages([*_turn()[:3], *_turn("text-only.sse", "resp_b")])
    assert report.failed_rules == ("RSP-WS-001",)
    (violation,) = next(r for r in report.failed if r.rule.id == "RSP-WS-001").violations
    assert violation.evidence.event_index == 3 and violation.evidence.event_type == "response.created"
    assert "line 4" in violation.message and "'resp_a'" in violation.message and "line 1" in violation.message


def test_an_already_in_flight_error_mid_response_passes_and_leaves_the_response_alone() -> None:
    turn = _turn()
    report = check_websocket_messages([*turn[:4], _error("response_already_in_flight", status=400), *turn[4:]])
    assert report.failed_rules == ()


def test_evidence_names_the_right_line_when_lanes_interleave() -> None:
    a = [{**e, "stream_id": "a"} for e in _turn(rid="resp_a")]
    b = [{**e, "stream_id": "b"} for e in _turn("text-only.sse", "resp_b")]
    b[6]["sequence_number"] = 60  # message b[6] sits on line 14 (a, b alternate), b[7] on line 16
    interleaved = [m for pair in zip(a, b, strict=False) for m in pair] + a[len(b):] + b[len(a):]
    report = check_websocket_transcript(_jsonl(interleaved))
    assert report.failed_rules == ("RSP-SEQ-003",)
    assert [v.message.split(":")[0] for v in report.failed[0].violations] == ["line 14", "line 16"]


def test_the_connection_limit_error_is_not_part_of_the_response_in_flight() -> None:
    turn = _turn()
    limit = _error("websocket_connection_limit_reached", status=400)
    assert check_websocket_messages([*turn, limit]).failed_rules == ()
    assert check_websocket_messages([*turn[:4], limit]).failed_rules == ("RSP-LIFE-002",)


def test_lanes_are_independent() -> None:
    a = [{**e, "stream_id": "a"} for e in _turn(rid="resp_a")]
    b = [{**e, "stream_id": "b"} for e in _turn("text-only.sse", "resp_b")]
    interleaved = [m for pair in zip(a, b, strict=False) for m in pair] + a[len(b):] + b[len(a):]
    assert check_websocket_messages(interleaved).failed_rules == ()
    same_lane = [*a[:3], *({**e, "stream_id": "a"} for e in b)]
    assert check_websocket_messages(same_lane).failed_rules == ("RSP-WS-001",)


# -- RSP-WS-002 ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("message", "path"), [
    ({"type": "error", "code": "previous_response_not_found", "message": "m", "param": None, "sequence_number": 0},
     "$.error"),
    (_error("previous_response_not_found"), "$.status"),
    (_error("previous_response_not_found", status=200), "$.status"),
    ({**_error("x", status=400), "error": {"type": "invalid_request_error", "message": "m"}}, "$.error.code"),
    ({**_error("x", status=400), "error": {"type": "invalid_request_error", "code": "", "message": "m"}},
     "$.error.code"),
    ({**_error("x", status=400), "error": {"code": "x", "message": "m"}}, "$.error.type"),
])
def test_a_malformed_error_answer_fails_ws002(message: dict[str, Any], path: str) -> None:
    report = check_websocket_messages([message])
    assert report.failed_rules == ("RSP-WS-002",)
    assert report.failed[0].violations[0].evidence.path == path


def test_an_error_ending_a_response_needs_its_sequence_number_and_continues_the_numbering() -> None:
    turn = _turn()
    good = check_websocket_messages([*turn[:4], _error("server_error", sequence_number=4)])
    assert good.failed_rules == ()
    without = check_websocket_messages([*turn[:4], _error("server_error")])
    assert without.failed_rules == ("RSP-WS-002",)
    gap = check_websocket_messages([*turn[:4], _error("server_error", sequence_number=9)])
    assert gap.failed_rules == ("RSP-SEQ-003",)


def test_a_refused_continuation_then_a_fresh_turn_passes() -> None:
    messages = _messages(OK_SSE / "websocket-previous-not-found.jsonl")
    assert check_websocket_messages(messages).failed_rules == ()


# -- RSP-WS-003 ---------------------------------------------------------------------------------------------------
def test_a_continuation_must_name_the_previous_response() -> None:
    ok = check_websocket_messages([*_turn(rid="resp_a"), *_turn("text-only.sse", "resp_b", "resp_a")])
    assert ok.failed_rules == ()
    wrong = check_websocket_messages([*_turn(rid="resp_a"), *_turn("text-only.sse", "resp_b", "resp_z")])
    assert wrong.failed_rules == ("RSP-WS-003",)
    evidence = wrong.failed[0].violations[0].evidence
    assert (evidence.path, evidence.expected, evidence.actual) == (
        "$.response.previous_response_id", "resp_a", "resp_z")


def test_an_error_without_a_code_of_its_own_says_null() -> None:
    refused = {**_error("x", status=400), "error": {"type": "invalid_request_error", "code": None, "message": "m"}}
    assert check_websocket_messages([refused]).failed_rules == ()


def test_a_response_that_reuses_an_earlier_id_fails_ws003() -> None:
    """As the mock once did over a sequence: the second leg's response had the first's id and continued itself."""
    report = check_websocket_messages([*_turn(rid="resp_a"), *_turn("text-only.sse", "resp_a", "resp_a")])
    assert report.failed_rules == ("RSP-WS-003",)
    assert report.failed[0].violations[0].evidence.path == "$.response.id"


def test_the_first_response_may_continue_a_stored_one() -> None:
    assert check_websocket_messages(_turn(previous="resp_stored")).failed_rules == ()


def test_the_client_message_decides_what_the_continuation_must_name() -> None:
    create = {"type": "response.create", "model": "m", "input": "hi"}
    older = [create, *_turn(rid="resp_a"), create, *_turn("text-only.sse", "resp_b"),
             {**create, "previous_response_id": "resp_a"}, *_turn("text-only.sse", "resp_c", "resp_a")]
    assert check_websocket_messages(older).failed_rules == ()  # the client chose resp_a: allowed
    dropped = [create, *_turn(rid="resp_a"), {**create, "previous_response_id": "resp_a"},
               *_turn("text-only.sse", "resp_b")]
    report = check_websocket_messages(dropped)
    assert report.failed_rules == ("RSP-WS-003",)
    assert "dropped" in report.failed[0].violations[0].message


# -- RSP-WS-004 and the forms -------------------------------------------------------------------------------------
def test_a_line_that_is_not_a_json_object_fails_ws004() -> None:
    data = _jsonl(_turn()) + b"[1, 2]\n" + b"data: {}\n"
    report = check_websocket_transcript(data)
    assert report.failed_rules == ("RSP-WS-004",)
    result = report.failed[0]
    assert result.count == 2
    assert "line 19" in result.violations[0].message and "SSE" in result.violations[1].message


def test_the_three_forms_give_the_same_verdicts() -> None:
    bare = check_websocket_transcript(LOOP.read_bytes())
    wrapped = check_websocket_transcript((OK_SSE / "websocket-wrapped.jsonl").read_bytes())
    server_only = check_websocket_transcript((OK_SSE / "websocket-server-only.jsonl").read_bytes())
    assert bare.failed_rules == wrapped.failed_rules == server_only.failed_rules == ()
    assert bare.events == wrapped.events == server_only.events  # client lines are not counted as events


def test_evidence_names_the_line_and_its_byte_offset() -> None:
    lines = LOOP.read_bytes().splitlines(keepends=True)
    broken = json.loads(lines[5])
    broken["sequence_number"] = 40
    lines[5] = json.dumps(broken).encode() + b"\n"
    report = check_websocket_transcript(b"".join(lines))
    assert report.failed_rules == ("RSP-SEQ-003",)
    evidence = report.failed[0].violations[0].evidence
    assert evidence.offset == len(b"".join(lines[:5]))
    assert report.failed[0].violations[0].message.startswith("line 6: ")


def test_incremental_feeding_matches_the_whole() -> None:
    data = (CAPTURES / "responses" / "openai" / "broken" / "RSP-WS-001--second-response-in-flight.jsonl").read_bytes()
    checker = TranscriptChecker()
    offset = 0
    for line in data.splitlines(keepends=True):
        checker.line(line, offset)
        offset += len(line)
    assert violations(checker.close()) == violations(check_websocket_transcript(data))


# -- detection and capture reading --------------------------------------------------------------------------------
def test_detection_of_json_lines() -> None:
    assert is_transcript(LOOP.read_bytes())
    assert is_transcript(json.dumps(_turn()[0]).encode())  # one response.* message
    assert not is_transcript((OK_SSE / "one-call.sse").read_bytes())
    assert not is_transcript((OK_SSE / "text-and-calls.json").read_bytes())  # a pretty-printed body
    assert not is_transcript(b'{"type": "error", "error": {"type": "x", "message": "m"}}')  # a body's shape


def test_check_capture_detects_a_transcript_by_content_and_by_name() -> None:
    data = LOOP.read_bytes()
    assert check_capture(io.BytesIO(data), "t.txt").kind == "websocket"
    lone = json.dumps(_error("previous_response_not_found", status=400)).encode()
    assert check_capture(io.BytesIO(lone), "x.json").kind == "json"
    assert check_capture(io.BytesIO(lone), "x.jsonl").kind == "websocket"
    assert check_capture(io.BytesIO(lone), "x.json", transport="websocket").failed_rules == ()
    assert check_capture(io.BytesIO(data), "t.jsonl", transport="sse").kind != "websocket"


def test_a_first_line_longer_than_a_read_is_still_detected() -> None:
    create = {"type": "response.create", "model": "m", "input": [
        {"type": "message", "role": "user", "content": "x" * 200_000}]}
    data = _jsonl([create, *_turn()])
    report = check_capture(io.BytesIO(data), "<stdin>")
    assert report.kind == "websocket" and report.failed_rules == ()


def test_check_capture_reads_a_transcript_in_small_chunks() -> None:
    data = LOOP.read_bytes()

    class Trickle(io.BytesIO):
        """The first read is whole (detection reads one chunk), the rest come 7 bytes at a time."""

        def read(self, size: int | None = -1) -> bytes:
            if self.tell() == 0:
                return super().read(data.index(b"\n") + 3)
            return super().read(7 if size is None or size < 0 else min(size, 7))

    assert violations(check_capture(Trickle(data), "t")) == violations(check_websocket_transcript(data))


@pytest.mark.parametrize(("data", "name", "kwargs", "says"), [
    (b"event: response.created\ndata: {}\n\n", "x.jsonl", {}, "is named as a WebSocket transcript"),
    (b"event: response.created\ndata: {}\n\n", "x.sse", {"transport": "websocket"}, "not a WebSocket transcript"),
    (b'{"type": "response.created"}\n', "x.jsonl", {"front": "chat"}, "--front chat has no WebSocket transport"),
])
def test_a_capture_that_cannot_be_read_as_a_transcript_is_an_input_error(
    data: bytes, name: str, kwargs: dict[str, Any], says: str,
) -> None:
    with pytest.raises(InputError, match=says):
        check_capture(io.BytesIO(data), name, **kwargs)
