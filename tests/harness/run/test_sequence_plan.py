"""Scenarios with legs are not planned by the harness: one case is one front request (gateway mode) or one adapter
turn with retries off (client mode, CALLPROOF_MAX_RETRIES=0), so a sequence could never be played to its end; a
gateway that does not retry is not wrong. They are for tests that drive the mock (docs/mock.md#sequences)."""

from __future__ import annotations

import pytest

from callproof.harness.run import run_scenarios
from callproof.harness.run._plan import plan_cases

SCENARIOS = run_scenarios(())
SEQUENCES = {s.id for s in SCENARIOS.values() if s.legs}


def test_the_bundled_corpus_has_sequences() -> None:
    assert {"retry_429_twice_then_stream", "retry_503_once_then_text", "agent_loop_tool_result"} <= SEQUENCES


@pytest.mark.parametrize("mode", ["gateway", "client"])
def test_sequences_are_not_planned(mode: str) -> None:
    planned = {spec.scenario for spec in plan_cases(SCENARIOS, mode, "chat", "responses", "responses")}
    assert planned and not planned & SEQUENCES
    assert "one_call" in planned
