"""The rule groups of a run, declared once. A case is `<scenario>::<group>`: the scenario is played once and each group
judges its own rules on that play. Each `RuleGroup` row says the group's name, the prefixes of the rule ids it
judges, the modes it is planned in, when it applies to a scenario (read by planning, `_plan`), how its rules are
judged on a played scenario and why it may have nothing to judge (read by the verdicts, `_verdict`).

Adding a group is one row in `GROUPS` plus its judge (a function of a `Judging` in `_group_judges`, usually a
`check_*` of callproof.harness.judge writing into `Findings`); its `kind` says how its cases are played and the
transport table's rows whether it is planned over a transport (`carried_over`): planning plans it, the verdicts
judge it, and `GATEWAY_GROUPS` / `CLIENT_GROUPS` list it. The row's place in `GROUPS` is its place among a
scenario's cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RULES, STREAM_FAMILIES, RuleResult
from callproof.harness.check import BODY_RULES
from callproof.harness.dialects import DIALECTS
from callproof.harness.judge import (
    XML_TAG,
    FrontAnswer,
    attribute_to_upstream,
    front_cannot_carry,
    has_fault_rules,
    has_item_rules,
    has_malformed_arguments,
    has_usage_rules,
    in_turn,
    items_skipped,
    merge_results,
    what_arrived,
)
from callproof.harness.scenario import Scenario, http_error_fault
from callproof.harness.transports import TRANSPORTS, TransportSpec

from ._config import Mode
from ._group_judges import (
    arguments_group,
    client_group,
    comparable,
    equivalence_group,
    expected_group,
    expected_turn,
    faults_group,
    has_calls,
    ids_group,
    incomplete_as_error,
    inherited,
    items_group,
    loop_group,
    no_burst,
    no_calls,
    policy_group,
    stateful_group,
    streamed,
    streaming_group,
    translation_group,
    translation_turn,
    usage_group,
)
from ._judging import Judge, Judging, found, with_turns
from ._scenario_run import ScenarioRun
from ._stateful import is_stateful
from ._ws_judge import websocket_judge, websocket_skipped

__all__ = [
    "CANCEL_TAG",
    "CLIENT_GROUPS",
    "GATEWAY_GROUPS",
    "GROUPS",
    "Applies",
    "GroupKind",
    "GroupTiming",
    "Judge",
    "Judging",
    "RuleGroup",
    "carried_over",
    "planned_groups",
    "rule_group",
    "run_wide_groups",
    "socket_results",
]


class Applies(Protocol):
    """Whether a group applies to a scenario, decided before it runs; `dialect` is the one judged (a gateway's
    front, a client's own dialect)."""

    def __call__(self, scenario: Scenario, dialect: Dialect, /) -> bool: ...


#: How a group's cases are played: `scenario`, judged on the scenario's one shared play; `self_played`, a case that
#: plays its scenario itself (a cancellation walks away from the front on a fresh case); `run_wide`, one case of a
#: run playing several scenarios at once (`concurrent::isolation`).
GroupKind = Literal["scenario", "self_played", "run_wide"]
#: The calibrated slack a group's rules read: `stream`, the causal timing rule (GW-STREAM-002, with the forwarding
#: latency in its details); `retries`, a client's retry spacing (CLI-015); None, none.
GroupTiming = Literal["stream", "retries"] | None


@dataclass(frozen=True, slots=True)
class RuleGroup:
    """One rule group. `prefixes`: its rules' ids start with one of them. `modes`: the runs it is planned in.
    `applies`: whether a scenario gets a case of it. `judge`: its rules' results; None for the `run_wide` group,
    whose one case (`concurrent::isolation`) plays several scenarios at once and is judged by the harness itself.
    `skipped`: why a case of it had nothing to judge, where the group knows better than the general reason.
    `judges_rejection`: a gateway's valid rejection of the request is judged in this group (GW-REQ-008).
    `kind`: how its cases are played (`GroupKind`). `timing`: the calibrated slack its rules read (`GroupTiming`).
    Over a transport, a group is planned unless the transport's row excludes it, and a group a transport's row adds
    is planned over that transport only (`carried_over`)."""

    name: str
    prefixes: tuple[str, ...]
    modes: frozenset[Mode]
    applies: Applies
    judge: Judge | None
    skipped: Callable[[ScenarioRun], str | None] | None = None
    judges_rejection: bool = False
    kind: GroupKind = "scenario"
    timing: GroupTiming = None

    @property
    def run_wide(self) -> bool:
        """One case per run (`concurrent::isolation`), planned when its scenarios are."""
        return self.kind == "run_wide"

def _always(scenario: Scenario, dialect: Dialect, /) -> bool:
    return True


#: The families of the rules that judge a non-stream body, per front.
_BODY_FAMILIES = {(front, RULES[r].family) for r in BODY_RULES for front in RULES[r].fronts}
#: The single-stream families with a rule for each front (no `sequence` family outside Responses).
_FRONT_FAMILIES = {(front, rule.family) for rule in RULES.values() for front in rule.fronts}

def _stream_family(family: str) -> RuleGroup:
    """The group of one single-stream family: the stream checker's results of that family, on the front's answer
    (a non-stream body only for the families with body rules); none where the upstream's HTTP error leaves no
    stream."""

    def applies(scenario: Scenario, dialect: Dialect, /) -> bool:
        if http_error_fault(scenario.faults) is not None:  # an HTTP error instead of a stream: no stream to judge
            return False
        rules_of = DIALECTS[dialect].schema_set  # the catalogue's fronts name schema sets (Rule.applies)
        return (rules_of, family) in _FRONT_FAMILIES and (streamed(scenario) or (rules_of, family) in _BODY_FAMILIES)

    def of(answer: FrontAnswer, scenario: Scenario, front: Dialect) -> tuple[RuleResult, ...]:
        if answer.report is None:
            return ()
        # a non-JSON argument text the gateway relayed byte for byte from the scenario's upstream is the upstream's
        # finding, not a failure of the gateway (docs/spec/contracts.md §7.8)
        results = attribute_to_upstream(answer.report.results, scenario, front, answer.result)
        return tuple(r for r in results if r.rule.family == family)

    def judge(judging: Judging, /) -> Sequence[RuleResult]:
        run, front = judging.run, judging.config.front
        assert run.answer is not None
        # over a WebSocket front, every other turn of the socket as its own stream, and the socket's transcript
        turns = [in_turn(of(t.answer, t.scenario, front), t.label) for t in run.turns
                 if t.touches(family) and t.answer is not None]
        return merge_results(of(run.answer, run.scenario, front), *turns, socket_results(run, family))

    def skipped(run: ScenarioRun) -> str | None:
        if run.answer is None or run.answer.report is not None:
            return None
        noun = "stream" if streamed(run.scenario) else "body"
        return (f"the IUT answered {what_arrived(run.answer)} instead of a {noun}, a way to fail that this scenario "
                f"allows: there is no {noun} for the {family} rules")

    return RuleGroup(family, ("RSP-", "CHAT-", "ANT-", "SSE-"), frozenset({"gateway"}), applies, judge, skipped)


def socket_results(run: ScenarioRun, family: str) -> tuple[RuleResult, ...]:
    """The results of the socket's transcript rules (RSP-WS-*) of one family, where they applied."""
    return tuple(r for r in run.socket_results if r.rule.family == family and r.outcome != "not-applicable")

_GATEWAY: frozenset[Mode] = frozenset({"gateway"})
#: The tag of the scenarios the cancellation group plays (scenarios/cancellation.json): no other group plays them.
CANCEL_TAG = "cancellation"
_BOTH: frozenset[Mode] = frozenset({"gateway", "client"})

#: Every rule group, in case order: the six single-stream families, the expected outcome, then the sandwich rules
#: of a gateway (what the mock sent and received against what the front emitted), then the client's rules.
GROUPS: tuple[RuleGroup, ...] = (
    *(_stream_family(family) for family in STREAM_FAMILIES),
    # not where a gateway's front cannot carry the scenario's items: its answer fails by design (GW-ITEM-001)
    RuleGroup("expected", ("EXP-",), _BOTH, lambda s, d, /: not front_cannot_carry(s, d),
              with_turns("expected", inherited(found(expected_group)), expected_turn), incomplete_as_error),
    # judged by the run's --policy xml-tool-text (GW-XML-001)
    RuleGroup("policy", ("GW-XML-",), _GATEWAY, lambda s, d, /: XML_TAG in s.tags, found(policy_group)),
    RuleGroup("translation", ("GW-REQ-",), _GATEWAY, _always,
              with_turns("translation", found(translation_group), translation_turn), judges_rejection=True),
    RuleGroup("ids", ("GW-ID-001",), _GATEWAY, lambda s, d, /: has_calls(s, d) and not front_cannot_carry(s, d),
              found(ids_group), no_calls),
    RuleGroup("faults", ("GW-FAULT-",), _GATEWAY, lambda s, d, /: has_fault_rules(s), found(faults_group)),
    RuleGroup("streaming", ("GW-STREAM-",), _GATEWAY, lambda s, d, /: "timing" in s.tags, found(streaming_group),
              no_burst, timing="stream"),
    RuleGroup("equivalence", ("GW-EQ-",), _GATEWAY, comparable, found(equivalence_group)),
    # one case of a run, `concurrent::isolation`, in either mode (GW-ISO-001 and GW-ID-002, ids unique across its
    # answers, for a gateway; CLI-012 for a client)
    RuleGroup("isolation", ("GW-ISO-", "GW-ID-002"), _BOTH, _always, None, kind="run_wide"),
    RuleGroup("arguments", ("GW-ARGS-",), _GATEWAY, lambda s, d, /: has_malformed_arguments(s), found(arguments_group)),
    RuleGroup("usage", ("GW-USAGE-",), _GATEWAY, lambda s, d, /: has_usage_rules(s) and not front_cannot_carry(s, d),
              found(usage_group)),
    # scenarios tagged `cancellation`, theirs alone: the harness closes the front connection and watches the
    # journal itself (GW-CANCEL-*, harness/run/_cancel_exchange.py)
    RuleGroup("cancellation", ("GW-CANCEL-",), _GATEWAY, lambda s, d, /: CANCEL_TAG in s.tags, None,
              kind="self_played"),
    # scenarios tagged `stateful`, a Responses front only: continuations, store, encrypted reasoning (GW-STATE-*)
    RuleGroup("stateful", ("GW-STATE-",), _GATEWAY, lambda s, d, /: is_stateful(s) and DIALECTS[d].previous_response_id,
              found(stateful_group)),
    RuleGroup("client", ("CLI-",), frozenset({"client"}), _always, inherited(found(client_group))),
    # a gateway's Responses WebSocket front (GW-WS-*): the websocket transport's row adds it (planned over that front
    # only, by its front's plan: run/_ws_front.py)
    RuleGroup("websocket", ("GW-WS-",), _GATEWAY, lambda s, d, /: False,
              lambda judging, /: websocket_judge(judging.run, judging.config), websocket_skipped),
    # a sequence (scenario with legs) played to its end: GW-LOOP-* for a gateway, CLI-014/CLI-015 for a client
    RuleGroup("loop", ("GW-LOOP-", "CLI-014", "CLI-015"), _BOTH, lambda s, d, /: bool(s.legs), found(loop_group),
              timing="retries"),
    # custom calls, refusals, reasoning, provider-run items and annotations through the gateway (docs/spec/items.md)
    RuleGroup("items", ("GW-ITEM-",), _GATEWAY, lambda s, d, /: has_item_rules(s), found(items_group),
              lambda run: items_skipped(run.scenario, run.answer.front) if run.answer is not None else None),
)


def rule_group(name: str) -> RuleGroup:
    """The row of this name. Raises KeyError naming the groups there are."""
    for group in GROUPS:
        if group.name == name:
            return group
    raise KeyError(f"no rule group {name!r}; the groups are {', '.join(g.name for g in GROUPS)}")


def planned_groups(mode: Mode) -> tuple[RuleGroup, ...]:
    """The groups a scenario may get a case of in this mode (the run-wide group is planned apart), in case order."""
    return tuple(g for g in GROUPS if mode in g.modes and not g.run_wide)


def run_wide_groups(mode: Mode) -> tuple[RuleGroup, ...]:
    """The groups of one case per run in this mode (`concurrent::isolation`), planned when their scenarios are."""
    return tuple(g for g in GROUPS if mode in g.modes and g.run_wide)


#: Every group of gateway mode (the run-wide `isolation` included).
GATEWAY_GROUPS: tuple[str, ...] = tuple(g.name for g in GROUPS if "gateway" in g.modes)
#: The groups of every scenario in client mode (the run-wide `concurrent::isolation` case comes besides).
CLIENT_GROUPS: tuple[str, ...] = tuple(g.name for g in planned_groups("client"))


def carried_over(group: str, transport: TransportSpec) -> bool:
    """Whether a group's cases are planned over `transport`: not one its row excludes, and a group some transport's
    row adds (its cases judge what only a run over that transport gathers) over that transport only."""
    if group in transport.excludes:
        return False
    return group in transport.adds or not any(group in spec.adds for spec in TRANSPORTS)
