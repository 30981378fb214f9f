"""docs/scenarios.md's hand-written `## Seed coverage` section: `make docs` keeps it, and every row names a seed of
the legend, a behaviour, scenario ids that exist and rule ids that exist, or says why there are none. A row's rules
must be ones its scenarios can fail: a client rule needs a scenario played to clients, a gateway rule one played to
gateways, and a rule judged only on some scenarios (arguments that are not JSON, usage, id-less or several calls, an
incomplete or failed end, a sequence) needs a cited scenario it is judged on."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from callproof.harness.catalogue import RULES
from callproof.harness.cli._docs import SEED_COVERAGE, hand_written_tail, scenarios_document
from callproof.harness.judge import has_calls_beside_malformed, has_malformed_arguments, has_usage_rules
from callproof.harness.run._plan import ISOLATION
from callproof.harness.scenario import Scenario
from callproof.mock_server import bundled_scenarios

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
RULE_ID = re.compile(r"\b(?:SSE|RSP|CHAT|ANT|EXP|GW|CLI)(?:-[A-Z]+)?-\d{3}\b")
SCENARIO_ID = re.compile(r"`([a-z][a-z0-9_]*(?:::[a-z]+)?)`")
SCENARIOS = bundled_scenarios()
#: Features never played to clients (a gateway's stateful fields, its cancellation) or to gateways (raw frames).
NOT_CLIENT, NOT_GATEWAY = ("stateful", "cancellation"), ("raw",)


def _idless(scenario: Scenario) -> int:
    return sum(1 for call in scenario.calls if not call.call_id)


#: Rules judged only on some scenarios (the judge's own conditions, docs/spec/contracts.md §7.8, §7.9): a row citing
#: one must cite a scenario it is judged on.
JUDGED_ON: dict[str, Callable[[Scenario], bool]] = {
    "GW-ARGS-001": has_malformed_arguments,
    "CLI-008": has_malformed_arguments,
    "CLI-020": has_calls_beside_malformed,
    "GW-USAGE-001": has_usage_rules,
    "CLI-009": has_usage_rules,
    "CLI-003": lambda s: bool(s.calls) and s.expect.status != "completed",
    "CLI-005": lambda s: s.expect.status == "incomplete",
    "CLI-007": lambda s: _idless(s) >= 2,
    "CLI-013": lambda s: _idless(s) >= 1,
    "CLI-011": lambda s: len(s.calls) >= 2,
    "EXP-003": lambda s: s.expect.text is not None,
    "CLI-014": lambda s: bool(s.legs),
    "CLI-015": lambda s: bool(s.legs),
    "GW-LOOP-001": lambda s: bool(s.legs),
    "GW-LOOP-002": lambda s: bool(s.legs),
    "GW-LOOP-003": lambda s: bool(s.legs),
}


def _rows() -> tuple[dict[str, str], list[list[str]]]:
    section = hand_written_tail(DOCUMENT)
    tables = [[[cell.strip() for cell in line.strip().strip("|").split(" | ")] for line in block.splitlines()[2:]]
              for block in re.findall(r"(?m)^\|.*(?:\n\|.*)*", section)]
    legend, rows = tables
    return {row[1].split("**")[1]: row[0] for row in legend}, rows


def test_make_docs_keeps_the_hand_written_section_at_the_end() -> None:
    tail = hand_written_tail(DOCUMENT)
    assert tail.startswith(f"{SEED_COVERAGE}\n") and DOCUMENT.endswith(tail)
    assert scenarios_document(tail) == DOCUMENT
    assert hand_written_tail(scenarios_document()) == ""
    assert scenarios_document("## Seed coverage\n\nrows\n").endswith("\n\n## Seed coverage\n\nrows\n")


def test_every_seed_has_rows_and_every_row_is_covered_or_says_why() -> None:
    legend, rows = _rows()
    assert sorted(legend.values()) == ["000", "001", "002", "003", "004"]
    assert {row[0] for row in rows} == set(legend)
    scenarios = {*bundled_scenarios(), ISOLATION}
    for seed, behaviour, played, rules in rows:
        assert behaviour and played and rules, (seed, behaviour)
        cited = {m.split("::")[0] for m in SCENARIO_ID.findall(played)}
        assert cited or played == "-", f"{behaviour!r}: no scenario id, and no '-'"
        unknown = sorted(cited - scenarios)
        assert unknown == [], f"{behaviour!r}: no scenario {unknown}"
        ids = RULE_ID.findall(rules)
        assert ids or rules.startswith("none: "), f"{behaviour!r}: no rule id, and no reason given"
        assert [r for r in ids if r not in RULES] == [], behaviour
        if played == "-":
            assert rules.startswith("none: "), f"{behaviour!r}: no scenario and no reason given"


def test_every_rule_of_a_row_is_one_its_scenarios_can_fail() -> None:
    _, rows = _rows()
    for _, behaviour, played, rules in rows:
        cited = [SCENARIOS[m] for m in SCENARIO_ID.findall(played) if m in SCENARIOS]
        isolation = ISOLATION in {m.split("::")[0] for m in SCENARIO_ID.findall(played)}
        for rule in set(RULE_ID.findall(rules)):
            if rule.startswith("CLI-") and rule != "CLI-012":
                assert any(s.feature not in NOT_CLIENT for s in cited), f"{behaviour!r}: {rule} but no client case"
            if rule.startswith("GW-") and not (rule == "GW-ISO-001" and isolation):
                assert any(s.feature not in NOT_GATEWAY for s in cited), f"{behaviour!r}: {rule} but no gateway case"
            if rule in JUDGED_ON:
                judged = [s.id for s in cited if JUDGED_ON[rule](s)]
                assert judged, f"{behaviour!r}: {rule} is judged on none of {[s.id for s in cited]}"


def test_the_judged_on_conditions_hold_where_the_seed_rows_need_them() -> None:
    """The conditions are the judge's: a scenario they accept is judged, one they refuse is not."""
    assert JUDGED_ON["CLI-020"](SCENARIOS["malformed_beside_valid"])
    assert not JUDGED_ON["CLI-020"](SCENARIOS["malformed_args_completed"])
    assert JUDGED_ON["CLI-009"](SCENARIOS["usage_responses_parallel_calls"])
    assert not JUDGED_ON["CLI-009"](SCENARIOS["malformed_beside_valid"])
    assert JUDGED_ON["CLI-007"](SCENARIOS["non_stream_missing_call_ids"])
    assert not JUDGED_ON["CLI-007"](SCENARIOS["missing_call_id"])


def test_the_section_never_points_outside_the_repository() -> None:
    assert "../shared" not in DOCUMENT and "seeds/" not in DOCUMENT
