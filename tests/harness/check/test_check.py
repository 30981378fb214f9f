"""The check pipeline itself: incremental feeding, decoded events, bodies, bounded evidence."""

from __future__ import annotations

import json
import re
from pathlib import Path

from callproof.harness import StreamChecker, check_body, check_bytes, check_events, parse_sse
from callproof.harness.check._front import KEEP_PER_RULE

CAPTURES = Path(__file__).resolve().parents[3] / "examples" / "captures"
OK = sorted((CAPTURES / "responses" / "openai" / "ok").glob("*.sse"))
BROKEN = sorted((CAPTURES / "responses" / "openai" / "broken").glob("*.sse"))


def _violations(report: object) -> list[tuple[str, str, object]]:
    from callproof.harness import CheckReport

    assert isinstance(report, CheckReport)
    return [(r.rule.id, v.message, v.evidence) for r in report.results for v in r.violations]


def test_one_byte_at_a_time_gives_the_same_report() -> None:
    for path in [*OK[:3], *BROKEN[:12]]:
        data = path.read_bytes()
        whole = check_bytes(data)
        checker = StreamChecker("responses", "openai")
        for i in range(len(data)):
            checker.feed(data[i : i + 1])
        assert _violations(checker.close()) == _violations(whole), path.name


def test_close_is_idempotent() -> None:
    checker = StreamChecker()
    checker.feed(OK[0].read_bytes())
    assert checker.close() is checker.close()


def test_decoded_events_are_checked_without_framing_rules() -> None:
    events = [json.loads(e.data) for e in parse_sse(OK[0].read_bytes())[0]]
    report = check_events(events)
    assert report.kind == "events" and report.events == len(events)
    assert report.failed_rules == ()
    framing = [r for r in report.results if r.rule.family == "framing"]
    assert framing and all(r.outcome == "not-applicable" for r in framing)


def test_decoded_events_still_fail_stream_rules() -> None:
    events = [json.loads(e.data) for e in parse_sse(OK[0].read_bytes())[0]]
    report = check_events(events[:-1])  # the terminal event dropped
    assert report.failed_rules == ("RSP-LIFE-002",)


def test_body_rules_only_apply_to_bodies() -> None:
    body = next((CAPTURES / "responses" / "openai" / "ok").glob("*.json")).read_bytes()
    report = check_body(body)
    assert report.kind == "json" and report.conformant and report.failed_rules == ()
    applied = {r.rule.id for r in report.results if r.outcome != "not-applicable"}
    assert "RSP-SCHEMA-003" in applied and "RSP-SEQ-003" not in applied


def test_evidence_is_bounded_but_every_violation_is_counted() -> None:
    data = OK[0].read_bytes()
    renumbered = re.sub(rb'"sequence_number":\s*\d+', b'"sequence_number": 7', data)
    report = check_bytes(renumbered)
    seq = next(r for r in report.results if r.rule.id == "RSP-SEQ-003")
    events = len(parse_sse(data)[0])
    assert seq.count == events - 1  # event #0 fails RSP-SEQ-002 instead; every later one follows 7 with 7
    assert len(seq.violations) == min(KEEP_PER_RULE, seq.count)
    assert seq.violations[0].evidence.expected == 8 and seq.violations[0].evidence.actual == 7


def test_framing_issues_beyond_the_parser_cap_are_still_counted() -> None:
    bad_lines = b"".join(b": \xff comment " + str(i).encode() + b"\n" for i in range(1500))
    report = check_bytes(bad_lines + OK[0].read_bytes())
    utf8 = next(r for r in report.results if r.rule.id == "SSE-001")
    assert utf8.count == 1500
    assert len(utf8.violations) == KEEP_PER_RULE
    assert report.failed_rules == ("SSE-001",)


def test_an_event_over_the_size_limit_is_skipped_and_reported() -> None:
    """SSE-006 (INFO): a 33 MiB event is discarded unchecked; the stream around it is still checked."""
    data = OK[0].read_bytes()
    first_end = data.index(b"\n\n") + 2
    oversize = b"event: keepalive\ndata: " + b"x" * (32 * 1024 * 1024 + 1024) + b"\n\n"
    report = check_bytes(data[:first_end] + oversize + data[first_end:])
    assert report.failed_rules == ("SSE-006",)
    assert report.conformant  # INFO never fails a check
    (violation,) = next(r for r in report.results if r.rule.id == "SSE-006").violations
    assert violation.evidence.offset == first_end


def test_lenient_accepts_the_open_responses_error_then_failed_ending() -> None:
    capture = CAPTURES / "responses" / "open-responses" / "ok" / "error-then-failed.sse"
    data = capture.read_bytes().replace(b"data: [DONE]\n\n", b"")
    assert check_bytes(data, profile="lenient").failed_rules == ()
    assert "RSP-LIFE-003" in check_bytes(data, profile="openai").failed_rules
