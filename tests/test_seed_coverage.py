"""docs/scenarios.md's hand-written `## Seed coverage` section: `make docs` keeps it, and every row names a seed of
the legend, a behaviour, scenario ids that exist and rule ids that exist, or says why there are none."""

from __future__ import annotations

import re
from pathlib import Path

from callproof.harness.catalogue import RULES
from callproof.harness.cli._docs import SEED_COVERAGE, hand_written_tail, scenarios_document
from callproof.harness.run._plan import ISOLATION
from callproof.mock_server import bundled_scenarios

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
RULE_ID = re.compile(r"\b(?:SSE|RSP|CHAT|ANT|EXP|GW|CLI)(?:-[A-Z]+)?-\d{3}\b")
SCENARIO_ID = re.compile(r"`([a-z][a-z0-9_]*(?:::[a-z]+)?)`")


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


def test_the_section_never_points_outside_the_repository() -> None:
    assert "../shared" not in DOCUMENT and "seeds/" not in DOCUMENT
