"""The check pipeline itself, shared by the three fronts: incremental feeding, decoded events, bounded evidence,
framing issues and oversize events. Each front's own rules: test_responses.py, test_chat.py, test_anthropic.py."""

from __future__ import annotations

import re

from callproof.harness import StreamChecker, check_bytes, check_events, parse_sse
from callproof.harness.check._front import KEEP_PER_RULE
from tests.harness.check.support import captures, decoded, fed_byte_by_byte, violations

OK = captures("responses", "ok")
BROKEN = captures("responses", "broken")


def test_one_byte_at_a_time_gives_the_same_report() -> None:
    for path in [*OK[:3], *BROKEN[:12]]:
        data = path.read_bytes()
        assert violations(fed_byte_by_byte(data, "responses")) == violations(check_bytes(data)), path.name


def test_close_is_idempotent() -> None:
    checker = StreamChecker()
    checker.feed(OK[0].read_bytes())
    assert checker.close() is checker.close()


def test_decoded_events_are_checked_without_framing_rules() -> None:
    events = decoded(OK[0].read_bytes())
    report = check_events(events)
    assert report.kind == "events" and report.events == len(events)
    assert report.failed_rules == ()
    framing = [r for r in report.results if r.rule.family == "framing"]
    assert framing and all(r.outcome == "not-applicable" for r in framing)


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
