"""Framing rules whose level depends on the profile (docs/spec/sse.md §5.5): a data-less `event:` block is SSE-007
(MUST) where openai-python is the reference and SSE-005 (SHOULD) elsewhere, never both; an event without an
`event:` line is RSP-FRAME-004 (MUST, open-responses), RSP-FRAME-005 (SHOULD, openai), ANT-FRAME-002 (MUST,
anthropic) and nothing under lenient or on the Chat front."""

from __future__ import annotations

import pytest

from callproof.harness import Dialect, check_bytes
from callproof.harness.catalogue import Profile
from tests.harness.check.support import CAPTURES

ONE_CALL: dict[Dialect, bytes] = {
    front: (CAPTURES / front / "openai" / "ok" / "one-call.sse").read_bytes()
    for front in ("responses", "chat", "anthropic")
}
NAMELESS = ("RSP-FRAME-004", "RSP-FRAME-005", "ANT-FRAME-002")


def _blocks(data: bytes) -> list[bytes]:
    return data.split(b"\n\n")[:-1]


def _join(blocks: list[bytes]) -> bytes:
    return b"".join(block + b"\n\n" for block in blocks)


def _with_empty_block(front: Dialect) -> bytes:
    blocks = _blocks(ONE_CALL[front])
    return _join([*blocks[:1], b"event: ping", *blocks[1:]])


def _without_event_lines(front: Dialect) -> bytes:
    blocks = _blocks(ONE_CALL[front])
    return _join([b"\n".join(line for line in b.split(b"\n") if not line.startswith(b"event:")) for b in blocks])


@pytest.mark.parametrize(("front", "profile", "rule"), [
    ("responses", "openai", "SSE-007"),
    ("chat", "openai", "SSE-007"),
    ("responses", "open-responses", "SSE-005"),
    ("responses", "lenient", "SSE-005"),
    ("chat", "lenient", "SSE-005"),
    ("anthropic", "openai", "SSE-005"),
])
def test_a_data_less_event_block_fails_one_rule_by_profile(front: Dialect, profile: Profile, rule: str) -> None:
    report = check_bytes(_with_empty_block(front), front=front, profile=profile)
    framing = {r for r in report.failed_rules if r in ("SSE-005", "SSE-007")}
    assert framing == {rule}
    found = next(r for r in report.results if r.rule.id == rule).violations
    assert "event: ping" in found[0].message and found[0].evidence.offset is not None


@pytest.mark.parametrize(("front", "profile", "rule"), [
    ("responses", "open-responses", "RSP-FRAME-004"),
    ("responses", "openai", "RSP-FRAME-005"),
    ("responses", "lenient", None),
    ("anthropic", "openai", "ANT-FRAME-002"),
    ("anthropic", "lenient", "ANT-FRAME-002"),
    ("chat", "openai", None),
])
def test_events_without_event_lines_fail_the_profiles_rule(front: Dialect, profile: Profile, rule: str | None) -> None:
    data = _without_event_lines(front)
    report = check_bytes(data, front=front, profile=profile)
    assert {r for r in report.failed_rules if r in NAMELESS} == ({rule} if rule else set())
    if rule is not None:
        result = next(r for r in report.results if r.rule.id == rule)
        assert result.count == report.events  # every event counted, the first one kept with its evidence
        assert len(result.violations) == 1 and result.violations[0].evidence.event_index == 0
    named = check_bytes(ONE_CALL[front], front=front, profile=profile)
    assert not {r for r in named.failed_rules if r in NAMELESS}
