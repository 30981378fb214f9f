"""The group table (harness/run/_groups.py) is the one list of rule groups: planning and verdicts both read it, so a
newcomer's group, one row in a temporary copy of the table, is planned for the scenarios it applies to and judged
by its own rules; the table keeps the historic groups, every rule of the catalogue has its group, and the docs name
every group."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import callproof.harness.run._groups as table
from callproof.harness.catalogue import RULES, STREAM_FAMILIES, RuleResult
from callproof.harness.judge import CaseSpec, Findings
from callproof.harness.run import CLIENT_GROUPS, GATEWAY_GROUPS, RunConfig
from callproof.harness.run._groups import GROUPS, Judging, RuleGroup, rule_group
from callproof.harness.run._plan import gateway_groups, plan_cases
from callproof.harness.run._scenario_run import ScenarioRun
from callproof.harness.run._verdict import group_results, skip_reason, verdict
from callproof.harness.scenario import Scenario, bundled_scenarios

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = bundled_scenarios()


def _throwaway_judge(judging: Judging, /) -> Sequence[RuleResult]:
    """Fails one translation rule and passes an expected one: the group's prefix keeps only the first."""
    findings = Findings()
    findings.fail("GW-REQ-002", f"thrown away on {judging.run.scenario.id}")
    findings.check("EXP-001")
    return findings.results()


def _only_one_call(scenario: Scenario, dialect: str, /) -> bool:
    return scenario.id == "one_call"


THROWAWAY = RuleGroup("throwaway", ("GW-REQ-",), frozenset({"gateway"}), _only_one_call, _throwaway_judge,
                      skipped=lambda run: "the throwaway group's own reason")


@pytest.fixture
def with_throwaway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "GROUPS", (*GROUPS, THROWAWAY))


@pytest.mark.usefixtures("with_throwaway")
def test_planning_plans_a_new_group_where_it_applies() -> None:
    chosen = {name: SCENARIOS[name] for name in ("one_call", "text_only")}
    ids = [spec.id for spec in plan_cases(chosen, "gateway", "chat", "responses", "responses")]
    assert "one_call::throwaway" in ids and "text_only::throwaway" not in ids
    assert gateway_groups(SCENARIOS["one_call"], "responses")[-1] == "throwaway"
    client = plan_cases(chosen, "client", "responses", "responses", "responses")
    assert not any(spec.group == "throwaway" for spec in client)


@pytest.mark.usefixtures("with_throwaway")
def test_verdicts_judge_a_new_group_by_its_own_rules(tmp_path: Path) -> None:
    config = RunConfig.from_options({"launch": "gw --port {port}"}.get, tmp_path)
    assert config is not None
    spec, run = CaseSpec("one_call", "throwaway"), ScenarioRun(SCENARIOS["one_call"], "case", {}, 0.0)
    results = group_results(spec, run, config, lambda played: None)
    assert [r.rule.id for r in results] == ["GW-REQ-002"]  # EXP-001 is not of the group's prefixes
    case = verdict(spec, run, results, 0.1, {})
    assert case.outcome == "failed" and case.message.startswith("GW-REQ-002 MUST: thrown away on one_call")
    assert skip_reason(spec, run) == "the throwaway group's own reason"


def test_the_table_keeps_the_historic_groups_in_case_order() -> None:
    assert (*STREAM_FAMILIES, "expected", "policy", "translation", "ids", "faults", "streaming",
                              "equivalence", "isolation", "arguments", "usage", "cancellation", "stateful",
                              "websocket", "loop", "items") == GATEWAY_GROUPS
    assert CLIENT_GROUPS == ("expected", "client", "loop")
    assert len({g.name for g in GROUPS}) == len(GROUPS)
    assert [g.name for g in GROUPS if g.run_wide] == ["isolation"]
    assert [g.name for g in GROUPS if g.judges_rejection] == ["translation"]
    with pytest.raises(KeyError, match="no rule group 'nope'; the groups are framing, schema"):
        rule_group("nope")


def test_every_rule_of_the_catalogue_has_a_group() -> None:
    """Each rule id starts with a prefix of a group of its family's mode (GW-LIMIT-001 fails any group's case)."""
    for rule in RULES.values():
        if rule.id.startswith("GW-LIMIT-"):
            continue
        owners = [g.name for g in GROUPS if rule.id.startswith(g.prefixes)
                  and (g.name == rule.family or rule.family not in STREAM_FAMILIES)]
        assert owners, f"{rule.id} ({rule.family}) is judged by no rule group"


def test_the_cli_docs_name_every_group() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("### Cases and rule groups", 1)[1].split("\n## ", 1)[0]
    for group in GROUPS:
        assert f"`{group.name}`" in section, f"docs/cli.md#cases-and-rule-groups does not name `{group.name}`"
