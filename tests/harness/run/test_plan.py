"""Planning in client mode: the mock serves the client its own dialect (`--client-dialect`), so the raw scenarios
of that dialect are played and those of the others are not."""

from __future__ import annotations

import pytest

from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.run._groups import CLIENT_GROUPS
from callproof.harness.run._plan import ISOLATION, plan_cases
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
RAW = {s.id: next(iter(s.raw)) for s in SCENARIOS.values() if s.raw}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_client_mode_plays_the_raw_scenarios_of_the_client_dialect(dialect: Dialect) -> None:
    specs = plan_cases(SCENARIOS, "client", "chat", front="responses", client_dialect=dialect)
    planned = {s.scenario for s in specs}
    assert {r for r, d in RAW.items() if d == dialect} <= planned
    assert not {r for r, d in RAW.items() if d != dialect} & planned
    # sequences are planned (tests/harness/run/test_sequence_plan.py), scenarios of other `dialects` are not, nor
    # stateful ones (a gateway's Responses front only, docs/spec/stateful.md §5); concurrent::isolation is (CLI-012)
    assert planned - {ISOLATION} == {s for s in SCENARIOS if (s not in RAW or RAW[s] == dialect)
                                     and "stateful" not in SCENARIOS[s].tags and SCENARIOS[s].plays_in(dialect)
                                     and "cancellation" not in SCENARIOS[s].tags}
    assert {s.group for s in specs if s.scenario != ISOLATION} == {*CLIENT_GROUPS, "loop"}
    assert [s.id for s in specs if s.scenario == ISOLATION] == ["concurrent::isolation"]


def test_the_client_dialect_does_not_change_a_gateway_plan() -> None:
    gateway = plan_cases(SCENARIOS, "gateway", "chat", "responses", "responses")
    assert plan_cases(SCENARIOS, "gateway", "chat", front="responses", client_dialect="anthropic") == gateway
