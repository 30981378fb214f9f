"""Client cases of the seed rows, through the harness against a real mock: a usage scenario whose adapter reports no
usage leaves CLI-009 not judged and says why in the case's details (never a CLI-009 that passed); an adapter that
reports usage is judged, and the seed events a correct client ignores (response.done, ping, required_action, legacy
tool-call events) leave the reference client's cases passed."""

from __future__ import annotations

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import UNREPORTED_USAGE, CaseSpec
from callproof.harness.run import Harness, RunConfig

USAGE_CASES = ["usage_responses_parallel_calls::client", "usage_cached_tokens::client"]


def _judge(client: str, cases: list[str], dialect: Dialect = "responses") -> list[tuple[str, str, list[str], object]]:
    with Harness(RunConfig(client=client, client_dialect=dialect, case_timeout=15)) as harness:
        results = [harness.judge(CaseSpec(*case.split("::"))) for case in cases]
    return [(r.spec.id, r.outcome, [x.rule.id for x in r.results if x.outcome != "not-applicable"],
             r.details.get("not_judged")) for r in results]


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_usage_not_reported_is_not_judged_and_says_why(dialect: Dialect) -> None:
    cases = USAGE_CASES if dialect == "responses" else USAGE_CASES[1:]
    for case, outcome, judged, not_judged in _judge("tests.fakes.seed_clients:run_without_usage", cases, dialect):
        assert outcome == "passed" and "CLI-009" not in judged, (case, judged)
        assert not_judged == {"CLI-009": UNREPORTED_USAGE}, case


def test_usage_reported_is_judged() -> None:
    for case, outcome, judged, not_judged in _judge("tests.fakes.clients:run", USAGE_CASES):
        assert outcome == "passed" and "CLI-009" in judged and not_judged is None, case


def test_the_reference_client_ignores_the_seed_events_and_keeps_the_valid_call() -> None:
    cases = ["raw_responses_done_event::client", "raw_responses_legacy_tool_call_events::expected",
             "raw_responses_required_action_ping::expected", "malformed_beside_valid::client"]
    results = _judge("tests.fakes.clients:run", cases)
    assert [(case, outcome) for case, outcome, _, _ in results] == [(case, "passed") for case in cases]
    assert "CLI-020" in results[-1][2]
