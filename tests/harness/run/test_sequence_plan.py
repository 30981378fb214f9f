"""Every scenario with legs is planned, in gateway and client mode, for every front x upstream (and every client
dialect): its final answer's groups and the `loop` group (docs/spec/loops.md §1). None is left unplanned. The
stateful sequences (tagged `stateful`: continuations by previous_response_id) are played and judged by their own
`stateful` case, on a Responses front (docs/spec/stateful.md)."""

from __future__ import annotations

import pytest

from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.catalogue import STREAM_FAMILIES
from callproof.harness.run import run_scenarios
from callproof.harness.run._plan import plan_cases

SCENARIOS = run_scenarios(())
SEQUENCES = {s.id for s in SCENARIOS.values() if s.legs and "stateful" not in s.tags}
STATEFUL = {s.id for s in SCENARIOS.values() if s.legs and "stateful" in s.tags}
PAIRS = [(front, upstream) for front in DIALECTS for upstream in DIALECTS]


def test_the_bundled_corpus_has_sequences() -> None:
    assert {"retry_429_twice_then_stream", "retry_503_once_then_text", "agent_loop_tool_result",
            "agent_loop_three_turns", "agent_loop_parallel_results", "agent_loop_failed_tool",
            "retry_429_waits_retry_after"} <= SEQUENCES


@pytest.mark.parametrize(("front", "upstream"), PAIRS)
def test_every_sequence_is_planned_in_gateway_mode(front: Dialect, upstream: Dialect) -> None:
    specs = plan_cases(SCENARIOS, "gateway", upstream, front, "responses")
    groups = {s: {spec.group for spec in specs if spec.scenario == s} for s in SEQUENCES}
    for scenario, planned in groups.items():
        assert {"loop", "expected"} <= planned, (scenario, planned)
        assert planned <= {"loop", "expected", *STREAM_FAMILIES}, (scenario, planned)
    assert "one_call" in {spec.scenario for spec in specs}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_sequence_is_planned_in_client_mode(dialect: Dialect) -> None:
    specs = plan_cases(SCENARIOS, "client", "chat", "responses", dialect)
    for scenario in SEQUENCES:
        assert {spec.group for spec in specs if spec.scenario == scenario} == {"expected", "loop"}, scenario


def test_a_sequence_gets_the_stream_families_of_its_last_leg_in_gateway_mode() -> None:
    """A retry sequence ends in a stream: its final answer is judged by the stream families too."""
    specs = plan_cases(SCENARIOS, "gateway", "chat", "responses", "responses")
    planned = {spec.group for spec in specs if spec.scenario == "retry_429_twice_then_stream"}
    assert set(STREAM_FAMILIES) & planned


def test_the_stateful_sequences_are_planned_in_their_own_case() -> None:
    specs = plan_cases(SCENARIOS, "gateway", "chat", "responses", "responses")
    assert {(s, "stateful") for s in STATEFUL} <= {(spec.scenario, spec.group) for spec in specs}
