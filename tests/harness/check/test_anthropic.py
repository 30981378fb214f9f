"""The Anthropic Messages front checker (harness/check/_anthropic.py): incremental feeding, decoded events, the body
rules, and evidence that points at the event at fault. Every rule's broken capture: tests/examples/test_captures.py.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from callproof.harness import check_body, check_bytes, check_events
from tests.harness.check.support import CAPTURES, captures, decoded, fed_byte_by_byte, violations

PARALLEL = CAPTURES / "anthropic" / "openai" / "ok" / "parallel-calls.sse"


@pytest.mark.parametrize("path", [*captures("anthropic", "ok"), *captures("anthropic", "broken")],
                         ids=lambda p: p.name)
def test_one_byte_at_a_time_gives_the_same_report(path: Path) -> None:
    data = path.read_bytes()
    assert violations(fed_byte_by_byte(data, "anthropic")) == violations(check_bytes(data, front="anthropic"))


def test_decoded_events_are_checked_without_framing_rules() -> None:
    report = check_events(decoded(PARALLEL.read_bytes()), front="anthropic")
    assert report.kind == "events" and report.failed_rules == ()
    not_applicable = {r.rule.id for r in report.results if r.outcome == "not-applicable"}
    assert {"ANT-FRAME-001", "SSE-001", "SSE-004"} <= not_applicable


@pytest.mark.parametrize(("dropped", "rule"), [("message_stop", "ANT-LIFE-002"), ("message_delta", "ANT-LIFE-003")])
def test_a_missing_message_event_is_caught_in_decoded_events(dropped: str, rule: str) -> None:
    events = [e for e in decoded(PARALLEL.read_bytes()) if e["type"] != dropped]
    assert check_events(events, front="anthropic").failed_rules == (rule,)


def test_a_duplicate_tool_id_points_at_the_second_block() -> None:
    events = copy.deepcopy(decoded(PARALLEL.read_bytes()))
    (_, first), (second_index, second) = (
        (i, e) for i, e in enumerate(events) if e["type"] == "content_block_start"
    )
    second["content_block"]["id"] = first["content_block"]["id"]
    report = check_events(events, front="anthropic")
    assert report.failed_rules == ("ANT-TOOL-001",)
    (violation,) = report.failed[0].violations
    assert violation.evidence.event_index == second_index and violation.evidence.path == "$.content_block.id"


def test_body_rules_only_apply_to_bodies() -> None:
    (body,) = captures("anthropic", "ok", ".json")
    report = check_body(body.read_bytes(), front="anthropic")
    assert report.kind == "json" and report.failed_rules == ()
    applied = {r.rule.id for r in report.results if r.outcome != "not-applicable"}
    assert "ANT-SCHEMA-003" in applied and not applied & {"ANT-FRAME-001", "ANT-LIFE-002", "ANT-BLOCK-001"}
