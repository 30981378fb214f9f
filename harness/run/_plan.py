"""Planning a run: the scenario corpus, the rule groups that apply to each scenario, and the cases
(`<scenario>::<group>`) of a run in gateway or client mode."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RULES, STREAM_FAMILIES
from callproof.harness.check import BODY_RULES
from callproof.harness.judge import (
    XML_TAG,
    CaseSpec,
    expects_success,
    has_fault_rules,
    has_malformed_arguments,
    has_usage_rules,
)
from callproof.harness.scenario import ScenarioError, bundled_scenarios, http_error_fault, load_scenarios

__all__ = [
    "CLIENT_GROUPS",
    "GATEWAY_GROUPS",
    "GROUP_PREFIX",
    "ISOLATION",
    "ISOLATION_SCENARIOS",
    "gateway_groups",
    "plan_cases",
    "run_scenarios",
]

#: Rule groups of gateway mode: the six single-stream families, the expected outcome, then the sandwich rules.
GATEWAY_GROUPS: tuple[str, ...] = (
    *STREAM_FAMILIES, "expected", "policy", "translation", "ids", "faults", "streaming", "equivalence", "isolation",
    "arguments", "usage",
)
CLIENT_GROUPS: tuple[str, ...] = ("expected", "client")
#: A rule group (other than the stream families) -> the prefix of its rule ids.
GROUP_PREFIX = {
    "expected": "EXP-", "policy": "GW-XML-", "translation": "GW-REQ-", "ids": "GW-ID-", "faults": "GW-FAULT-",
    "streaming": "GW-STREAM-", "equivalence": "GW-EQ-", "isolation": "GW-ISO-", "client": "CLI-",
    "arguments": "GW-ARGS-", "usage": "GW-USAGE-",
}
#: The pseudo-scenario of the isolation case, and the scenarios it runs at once (those loaded), in either mode.
ISOLATION = "concurrent"
ISOLATION_SCENARIOS = (
    "timing_ttft_and_gaps", "timing_second_slow_call", "timing_explicit_delays", "parallel_two_calls",
    "interleaved_round_robin", "text_before_call", "one_call", "parallel_two_tools", "unicode_per_code_point",
)
#: The families of the rules that judge a non-stream body, per front.
_BODY_FAMILIES = {(front, RULES[r].family) for r in BODY_RULES for front in RULES[r].fronts}
#: The single-stream families with a rule for each front (no `sequence` family outside Responses).
_FRONT_FAMILIES = {(front, rule.family) for rule in RULES.values() for front in rule.fronts}


def gateway_groups(scenario: Any, front: Dialect = "responses") -> list[str]:
    """The rule groups that apply to a scenario in gateway mode with a `front` front (decided before it runs)."""
    groups: list[str] = []
    streamed = scenario.request.get("stream", True) is not False
    if http_error_fault(scenario.faults) is None:  # an HTTP error instead of a stream: no stream to judge
        groups += [f for f in STREAM_FAMILIES if (front, f) in _FRONT_FAMILIES
                   and (streamed or (front, f) in _BODY_FAMILIES)]
    groups.append("expected")
    if XML_TAG in scenario.tags:  # judged by the run's --policy xml-tool-text (GW-XML-001)
        groups.append("policy")
    groups.append("translation")
    if scenario.expect.tool_calls and expects_success(scenario.expect.status):
        groups.append("ids")
    if has_fault_rules(scenario):
        groups.append("faults")
    if "timing" in scenario.tags:
        groups.append("streaming")
    # may_fail (malformed arguments): an upstream's non-stream body cannot always carry them (an Anthropic
    # Message's input is an object), so the two halves may rightly differ
    if streamed and not scenario.faults and expects_success(scenario.expect.status) and not scenario.expect.may_fail:
        groups.append("equivalence")
    if has_malformed_arguments(scenario):
        groups.append("arguments")
    if has_usage_rules(scenario):
        groups.append("usage")
    return groups


def plan_cases(
    scenarios: Mapping[str, Any], mode: str, upstream_dialect: str, front: Dialect = "responses",
    client_dialect: Dialect = "responses",
) -> list[CaseSpec]:
    """Every case of a run, in scenario order. The mock serves a client its own dialect (`client_dialect`) and a
    gateway its upstream dialect: a raw scenario is played where its dialect is the one served."""
    served = client_dialect if mode == "client" else upstream_dialect
    specs: list[CaseSpec] = []
    for scenario in scenarios.values():
        if not _playable(scenario, served) or (mode == "gateway" and scenario.raw):
            continue
        if scenario.legs:  # a sequence needs a client that retries or loops; a case is one turn, retries off
            continue
        groups = CLIENT_GROUPS if mode == "client" else gateway_groups(scenario, front)
        specs += [CaseSpec(scenario.id, g) for g in groups]
    if any(s in scenarios for s in ISOLATION_SCENARIOS):  # GW-ISO-001 for a gateway, CLI-012 for a client
        specs.append(CaseSpec(ISOLATION, "isolation"))
    return specs


def run_scenarios(paths: Sequence[Path]) -> dict[str, Any]:
    """The bundled corpus plus the user's scenario files (whose ids must not clash with bundled ones)."""
    scenarios: dict[str, Any] = dict(bundled_scenarios())
    if paths:
        extra = load_scenarios(paths)
        clash = sorted(set(extra) & set(scenarios))
        if clash:
            raise ScenarioError(f"--scenarios redefine bundled scenario ids {clash}; give your scenarios ids of "
                                "their own")
        scenarios.update(extra)
    return scenarios


def _playable(scenario: Any, dialect: str) -> bool:
    """Raw scenarios replay bytes of one dialect: they only make sense where that dialect is what is served."""
    return (not scenario.raw or dialect in scenario.raw) and scenario.plays_in(dialect)
