"""Planning a run: the scenario corpus, the rule groups that apply to each scenario (each group's row of the
group table, `_groups.GROUPS`, says when), and the cases (`<scenario>::<group>`) of a run in gateway or client
mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from callproof.harness._types import Dialect
from callproof.harness.catalogue import STREAM_FAMILIES
from callproof.harness.judge import CaseSpec
from callproof.harness.scenario import Scenario, with_bundled

from ._groups import CANCEL_TAG, planned_groups, rule_group, run_wide_groups
from ._stateful import stateful_groups

__all__ = [
    "ISOLATION",
    "ISOLATION_SCENARIOS",
    "gateway_groups",
    "plan_cases",
    "run_scenarios",
    "sequence_groups",
]

#: The pseudo-scenario of the isolation case, and the scenarios it runs at once (those loaded), in either mode.
ISOLATION = "concurrent"
ISOLATION_SCENARIOS = (
    "timing_ttft_and_gaps", "timing_second_slow_call", "timing_explicit_delays", "parallel_two_calls",
    "interleaved_round_robin", "text_before_call", "one_call", "parallel_two_tools", "unicode_per_code_point",
)


def gateway_groups(scenario: Scenario, front: Dialect) -> list[str]:
    """The rule groups that apply to a scenario in gateway mode with a `front` front (decided before it runs), in
    the order of the group table (`_groups.GROUPS`)."""
    groups = [group.name for group in planned_groups("gateway") if group.applies(scenario, front)]
    if CANCEL_TAG in scenario.tags:  # played by the cancellation exchange alone (docs/spec/cancellation.md §1)
        return [name for name in groups if rule_group(name).kind == "self_played"]
    return groups


def plan_cases(
    scenarios: Mapping[str, Scenario], mode: str, upstream_dialect: Dialect, front: Dialect, client_dialect: Dialect,
) -> list[CaseSpec]:
    """Every case of a run, in scenario order. The mock serves a client its own dialect (`client_dialect`) and a
    gateway its upstream dialect: a raw scenario is played where its dialect is the one served."""
    served = client_dialect if mode == "client" else upstream_dialect
    specs: list[CaseSpec] = []
    for scenario in scenarios.values():
        if not _playable(scenario, served) or (mode == "gateway" and scenario.raw):
            continue
        stateful = stateful_groups(scenario, mode, front)
        if stateful is not None:  # its `stateful` case, on a Responses front only (docs/spec/stateful.md §5)
            specs += [CaseSpec(scenario.id, g) for g in stateful]
            continue
        if scenario.legs:  # a sequence, played to its end (docs/spec/loops.md): its final answer and its loop
            specs += [CaseSpec(scenario.id, g) for g in sequence_groups(scenario, mode, front)]
            continue
        if mode == "client":
            if CANCEL_TAG in scenario.tags:  # the harness walking away from a gateway: no client case
                continue
            groups = [g.name for g in planned_groups("client") if g.applies(scenario, client_dialect)]
        else:
            groups = gateway_groups(scenario, front)
        specs += [CaseSpec(scenario.id, g) for g in groups]
    if any(s in scenarios for s in ISOLATION_SCENARIOS):  # GW-ISO-001 for a gateway, CLI-012 for a client
        specs += [CaseSpec(ISOLATION, g.name) for g in run_wide_groups("client" if mode == "client" else "gateway")]
    return specs


#: The one-turn groups that judge a sequence's final answer (the front's last answer, the adapter's result).
SEQUENCE_GROUPS = frozenset({*STREAM_FAMILIES, "expected", "loop"})


def sequence_groups(scenario: Scenario, mode: str, front: Dialect) -> list[str]:
    """The groups of a sequence's cases: the stream families that apply to its last leg (gateway mode), `expected`
    (its final outcome) and `loop` (GW-LOOP-* or CLI-014/CLI-015)."""
    last = scenario.legs[-1].scenario
    if mode == "client":
        return [g.name for g in planned_groups("client") if g.name in SEQUENCE_GROUPS and g.applies(scenario, front)]
    return [g.name for g in planned_groups("gateway")
            if g.name in SEQUENCE_GROUPS and (g.applies(last, front) if g.name in STREAM_FAMILIES
                                              else g.applies(scenario, front))]


def run_scenarios(paths: Sequence[Path]) -> dict[str, Scenario]:
    """The bundled corpus plus the user's scenario files (whose ids must not clash with bundled ones)."""
    return with_bundled(paths)


def _playable(scenario: Scenario, dialect: str) -> bool:
    """Raw scenarios replay bytes of one dialect: they only make sense where that dialect is what is served."""
    return (not scenario.raw or dialect in scenario.raw) and scenario.plays_in(dialect)
