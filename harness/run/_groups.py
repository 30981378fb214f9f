"""The rule groups of a run, declared once. A case is `<scenario>::<group>`: the scenario is played once and each
group judges its own rules on that play. Each `RuleGroup` row says the group's name, the prefixes of the rule ids
it judges, the modes it is planned in, when it applies to a scenario (read by planning, `_plan`), how its rules
are judged on a played scenario and why it may have nothing to judge (read by the verdicts, `_verdict`).

Adding a group is one row in `GROUPS` plus its judge (a function of a `Judging`, usually a `check_*` of
callproof.harness.judge writing into `Findings`): planning plans it, the verdicts judge it, and
`GATEWAY_GROUPS` / `CLIENT_GROUPS` list it. The row's place in `GROUPS` is its place among a scenario's cases.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RULES, STREAM_FAMILIES, RuleResult
from callproof.harness.check import BODY_RULES
from callproof.harness.dialects import DIALECTS
from callproof.harness.judge import (
    DEFAULT_SLACK,
    XML_TAG,
    Findings,
    FrontAnswer,
    UpstreamView,
    as_filtered,
    attribute_inherited,
    attribute_to_upstream,
    carried_expect,
    check_arguments,
    check_beside_malformed,
    check_client,
    check_client_websocket,
    check_ending,
    check_equivalence,
    check_error_exposure,
    check_error_leaks,
    check_faults,
    check_ids,
    check_items,
    check_nameless_relay,
    check_request_items,
    check_streaming,
    check_text_with_calls,
    check_translation,
    check_usage,
    check_xml_policy,
    expected_outcome,
    expects_success,
    front_cannot_carry,
    has_fault_rules,
    has_item_rules,
    has_malformed_arguments,
    has_usage_rules,
    in_turn,
    items_skipped,
    merge_results,
    policy_expect,
    reported_incomplete_as_error,
    settled_expect,
    what_arrived,
)
from callproof.harness.outcome import Result
from callproof.harness.request import front_request
from callproof.harness.scenario import Expect, Scenario, http_error_fault

from ._config import Mode, RunConfig
from ._scenario_run import ScenarioRun
from ._sequence import judge_sequence
from ._stateful import StatefulPlay, TurnPlay, is_stateful, judge_stateful
from ._ws_play import websocket_judge, websocket_skipped
from ._ws_turns import JudgedTurn

__all__ = [
    "CANCEL_TAG",
    "CLIENT_GROUPS",
    "GATEWAY_GROUPS",
    "GROUPS",
    "Applies",
    "Judge",
    "Judging",
    "RuleGroup",
    "planned_groups",
    "rule_group",
    "run_wide_groups",
    "socket_results",
]


class Applies(Protocol):
    """Whether a group applies to a scenario, decided before it runs; `dialect` is the one judged (a gateway's
    front, a client's own dialect)."""

    def __call__(self, scenario: Scenario, dialect: Dialect, /) -> bool: ...


@dataclass(frozen=True, slots=True)
class Judging:
    """What a group's judge reads: the played scenario, the run's configuration, the non-stream answer on demand
    (`plain`: the equivalence group, and the faults group for an ending's GW-FAULT-004) and the slack of the causal
    timing rule (GW-STREAM-002, calibrated)."""

    run: ScenarioRun
    config: RunConfig
    plain: Callable[[ScenarioRun], FrontAnswer | None]
    slack: float = DEFAULT_SLACK

    @property
    def sent(self) -> Result | None:
        """What the mock's stream held, read as its reader holds it: the client's wire, the gateway's upstream."""
        if self.config.mode != "gateway":
            return self.run.wire
        return self.run.upstream.sent if self.run.upstream is not None else None

    @property
    def expect(self) -> Expect:
        """The scenario's expectation under the run's `--policy`, then given what the mock sent (`settled_expect`: an
        Anthropic stream cut after its stop_reason may be finished or an error, docs/spec/verdicts.md §1), and in
        gateway mode through its front and upstream (`carried_expect`: an Anthropic upstream's refusal may reach a
        Chat or Responses front as text)."""
        expect = settled_expect(policy_expect(self.run.scenario, self.config.policies), self.sent)
        if self.config.mode != "gateway":
            return expect
        refused = self.run.answer is not None and bool(self.run.answer.result.refusal)
        return carried_expect(expect, self.config.front, self.config.upstream_dialect, refused)

    def sandwich(self) -> tuple[FrontAnswer, UpstreamView]:
        """The front's answer and what reached the upstream (gateway mode: a played scenario has both)."""
        run = self.run
        assert run.answer is not None and run.upstream is not None
        return run.answer, run.upstream


class Judge(Protocol):
    """The results of a group's rules on a played scenario (the verdict keeps those of the group's prefixes)."""

    def __call__(self, judging: Judging, /) -> Sequence[RuleResult]: ...


@dataclass(frozen=True, slots=True)
class RuleGroup:
    """One rule group. `prefixes`: its rules' ids start with one of them. `modes`: the runs it is planned in.
    `applies`: whether a scenario gets a case of it. `judge`: its rules' results; None for the `run_wide` group,
    whose one case (`concurrent::isolation`) plays several scenarios at once and is judged by the harness itself.
    `skipped`: why a case of it had nothing to judge, where the group knows better than the general reason.
    `judges_rejection`: a gateway's valid rejection of the request is judged in this group (GW-REQ-008)."""

    name: str
    prefixes: tuple[str, ...]
    modes: frozenset[Mode]
    applies: Applies
    judge: Judge | None
    skipped: Callable[[ScenarioRun], str | None] | None = None
    judges_rejection: bool = False
    run_wide: bool = False


def _found(check: Callable[[Findings, Judging], None]) -> Judge:
    """A judge from a function writing its rules' results into `Findings`."""

    def judge(judging: Judging, /) -> Sequence[RuleResult]:
        findings = Findings()
        check(findings, judging)
        return findings.results()

    return judge


def _always(scenario: Scenario, dialect: Dialect, /) -> bool:
    return True


#: The families of the rules that judge a non-stream body, per front.
_BODY_FAMILIES = {(front, RULES[r].family) for r in BODY_RULES for front in RULES[r].fronts}
#: The single-stream families with a rule for each front (no `sequence` family outside Responses).
_FRONT_FAMILIES = {(front, rule.family) for rule in RULES.values() for front in rule.fronts}


def _streamed(scenario: Scenario) -> bool:
    return scenario.request.get("stream", True) is not False


def _stream_family(family: str) -> RuleGroup:
    """The group of one single-stream family: the stream checker's results of that family, on the front's answer
    (a non-stream body only for the families with body rules); none where the upstream's HTTP error leaves no
    stream."""

    def applies(scenario: Scenario, dialect: Dialect, /) -> bool:
        if http_error_fault(scenario.faults) is not None:  # an HTTP error instead of a stream: no stream to judge
            return False
        rules_of = DIALECTS[dialect].schema_set  # the catalogue's fronts name schema sets (Rule.applies)
        return (rules_of, family) in _FRONT_FAMILIES and (_streamed(scenario) or (rules_of, family) in _BODY_FAMILIES)

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
        noun = "stream" if _streamed(run.scenario) else "body"
        return (f"the IUT answered {what_arrived(run.answer)} instead of a {noun}, a way to fail that this scenario "
                f"allows: there is no {noun} for the {family} rules")

    return RuleGroup(family, ("RSP-", "CHAT-", "ANT-", "SSE-"), frozenset({"gateway"}), applies, judge, skipped)


def socket_results(run: ScenarioRun, family: str) -> tuple[RuleResult, ...]:
    """The results of the socket's transcript rules (RSP-WS-*) of one family, where they applied."""
    return tuple(r for r in run.socket_results if r.rule.family == family and r.outcome != "not-applicable")


Each = Callable[[Findings, Judging, JudgedTurn], None]


def _with_turns(group: str, judge: Judge, each: Each) -> Judge:
    """`judge`, and over a WebSocket front `each` on every other turn of the socket that the group touches, its
    findings named by the turn (docs/spec/gateway-websocket.md §6)."""

    def judged(judging: Judging, /) -> Sequence[RuleResult]:
        own = judge(judging)
        turns = []
        for turn in judging.run.turns:
            if turn.touches(group) and turn.answer is not None:
                findings = Findings()
                each(findings, judging, turn)
                turns.append(in_turn(findings.results(), turn.label))
        return merge_results(own, *turns) if turns else own

    return judged


def _expected_turn(findings: Findings, judging: Judging, turn: JudgedTurn) -> None:
    assert turn.answer is not None
    config = judging.config
    refused = bool(turn.answer.result.refusal)
    expect = carried_expect(policy_expect(turn.scenario, config.policies), config.front, config.upstream_dialect,
                            refused)
    expected_outcome(findings, expect, turn.answer.result)


def _translation_turn(findings: Findings, judging: Judging, turn: JudgedTurn) -> None:
    config = judging.config
    assert turn.case is not None  # a fresh turn has its case tag (`JudgedTurn.fresh`)
    reference = front_request(turn.scenario.id, turn.scenario.request, case=turn.case, model=config.model,
                              dialect="responses")
    _translate(findings, config, reference, turn.upstream.bodies, turn.answer, turn.scenario)


def _expected(findings: Findings, judging: Judging) -> None:
    run = judging.run
    result = run.adapter_result if judging.config.mode == "client" else run.answer.result if run.answer else None
    expect = judging.expect
    if judging.config.mode == "client" and not expect.may_fail and reported_incomplete_as_error(expect.status, result):
        return  # CLI-005 alone judges it, what was lost with it included (docs/spec/verdicts.md §3)
    if result is not None and judging.config.mode == "gateway":
        # a content filter's ending reported as a refusal is GW-FAULT-004's alone (docs/spec/verdicts.md §6)
        result = as_filtered(run.scenario, result)
    if result is not None:
        expected_outcome(findings, expect, result)


def _incomplete_as_error(run: ScenarioRun) -> str | None:
    if not reported_incomplete_as_error(run.scenario.expect.status, run.adapter_result):
        return None
    return ("the adapter reported the incomplete response as an error: CLI-005 in the client group judges that, and "
            "the text and calls lost with it (docs/spec/verdicts.md §3)")


def _inherited(judge: Judge) -> Judge:
    """Client mode: EXP-001 and CLI-004 findings that a stream breaking CHAT-TC-003 explains (a repeated name or id,
    concatenated as the openai SDK does) are the stream's, shown, not failed (docs/spec/verdicts.md §4)."""

    def inherited(judging: Judging, /) -> Sequence[RuleResult]:
        results = judge(judging)
        if judging.config.mode != "client":
            return results
        run = judging.run
        return attribute_inherited(results, run.scenario, judging.config.client_dialect, run.adapter_result, run.wire)

    return inherited


def _client(findings: Findings, judging: Judging) -> None:
    run = judging.run
    assert run.adapter is not None and run.wire is not None
    # the expectation given what the wire held (a settled Anthropic cut may be finished or an error: verdicts.md §1)
    scenario = replace(run.scenario, expect=settled_expect(run.scenario.expect, run.wire))
    check_client(findings, scenario, run.adapter, run.adapter_result, run.wire, run.wire_item_ids,
                 run.wire_faults, judging.config.client_dialect)
    check_beside_malformed(findings, run.scenario, run.adapter_result)  # CLI-020
    if judging.config.client_transport == "websocket":  # CLI-016, CLI-017 on the case's turns
        check_client_websocket(findings, run.wire_turns)


def _translation(findings: Findings, judging: Judging) -> None:
    """The upstream is judged against the request in Responses form whatever the front's dialect: the same
    scenario request, markers, history and ids as the front request, in the form the judge reads."""
    answer, upstream = judging.sandwich()
    run, config = judging.run, judging.config
    reference = front_request(run.scenario.id, run.scenario.request, case=run.case, model=config.model,
                              dialect="responses")
    _translate(findings, config, reference, upstream.bodies, answer, run.scenario)


def _translate(findings: Findings, config: RunConfig, reference: Mapping[str, Any], bodies: Sequence[Any],
               answer: FrontAnswer | None, scenario: Scenario) -> None:
    check_translation(findings, config.upstream_dialect, reference, _user_text(reference), list(bodies))
    if bodies:  # GW-REQ-010..013: structured outputs, strict, custom and nameless tools
        check_request_items(findings, config.upstream_dialect, config.front, reference, bodies[0], config.policies)
        if answer is not None:  # GW-REQ-013: a nameless tool forwarded, the upstream's 400 passed on (verdicts.md §16)
            check_nameless_relay(findings, config.upstream_dialect, reference, bodies[0], answer, scenario)
    if bodies and isinstance(bodies[0], Mapping):  # GW-REQ-006: a turn with text and calls
        check_text_with_calls(findings, config.upstream_dialect, reference, bodies[0])


def _items(findings: Findings, judging: Judging) -> None:
    """GW-ITEM-001..004: the front's items against the bytes the upstream sent for the case's first request."""
    answer, upstream = judging.sandwich()
    check_items(findings, judging.config.front, judging.config.upstream_dialect, answer,
                b"".join(data for _, data in upstream.writes))


def _policy(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_xml_policy(findings, judging.run.scenario, answer.result, judging.config.policies)


def _ids(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_ids(findings, judging.run.scenario, answer.result)


def _faults(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_faults(findings, judging.run.scenario, answer, upstream.sent)
    if _twin_judged(judging):  # GW-FAULT-004 on the non-stream response too (docs/spec/verdicts.md §6)
        plain = judging.plain(judging.run)
        if plain is not None:
            check_ending(findings, judging.run.scenario, plain, twin=True)
    check_error_exposure(findings, answer)  # GW-FAULT-006: no stack trace, path or exception text in an error
    if http_error_fault(judging.run.scenario.faults) is not None:  # GW-FAULT-005: the upstream's error body
        check_error_leaks(findings, answer.exchange.body, answer.exchange.json(),
                          b"".join(data for _, data in upstream.writes), judging.config.front_headers)


def _streaming(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_streaming(findings, answer, upstream, judging.slack)


def _equivalence(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    if judging.run.unjudged is None:  # an unjudgeable stream has no half to compare
        plain = judging.plain(judging.run)
        if plain is not None:
            check_equivalence(findings, answer.result, plain, expect=judging.expect, scenario=judging.run.scenario)


def _twin_judged(judging: Judging) -> bool:
    """Whether the faults group judges the ending of the non-stream response too: a length or content-filter
    ending of a stream the equivalence group compares with its non-stream twin (the same answer, fetched once)."""
    run = judging.run
    return (run.unjudged is None and run.scenario.ending in ("length", "content_filter")
            and _comparable(run.scenario, judging.config.front))


def _arguments(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_arguments(findings, judging.run.scenario, answer.result)


def _usage(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_usage(findings, judging.run.scenario, answer, judging.config.upstream_dialect,
                upstream.bodies[0] if upstream.bodies else None)


def _loop(findings: Findings, judging: Judging) -> None:
    config = judging.config
    judge_sequence(findings, judging.run, mode=config.mode, upstream=config.upstream_dialect, front=config.front,
                   client_dialect=config.client_dialect, slack=judging.slack)


def _stateful(findings: Findings, judging: Judging) -> None:
    """GW-STATE-001..003 on a stateful scenario's turn(s) (docs/spec/stateful.md)."""
    run, config = judging.run, judging.config
    play = run.stateful
    if play is None:
        assert run.answer is not None and run.upstream is not None
        play = StatefulPlay(TurnPlay(run.request, run.answer, run.upstream.bodies[0] if run.upstream.bodies else None))
    judge_stateful(findings, play, run.scenario, upstream_dialect=config.upstream_dialect,
                   policy=config.policies.get("stateful", "either"))


def _user_text(request: Mapping[str, Any]) -> str:
    """The text of the first user message (it carries the markers): a bare string input, or a message whose
    content is a string or text parts."""
    if isinstance(request["input"], str):
        return request["input"]
    for item in request["input"]:
        if item.get("type") == "message" and item.get("role") == "user":
            content = item["content"]
            return content if isinstance(content, str) else str(content[0]["text"])
    return ""


def _has_calls(scenario: Scenario, dialect: Dialect, /) -> bool:
    return bool(scenario.expect.tool_calls) and expects_success(scenario.expect.status)


def _comparable(scenario: Scenario, dialect: Dialect, /) -> bool:
    """A stream whose non-stream twin must say the same. may_fail (malformed arguments): an upstream's non-stream
    body cannot always carry them (an Anthropic Message's input is an object), so the two halves may rightly
    differ. Nor where the front cannot carry the scenario's items: both halves fail (GW-ITEM-001)."""
    expect = scenario.expect
    return (_streamed(scenario) and not scenario.faults and expects_success(expect.status) and not expect.may_fail
            and not front_cannot_carry(scenario, dialect))


def _no_calls(run: ScenarioRun) -> str | None:
    if run.answer is not None and not run.answer.result.calls:
        return "the IUT completed no tool call, so no call id to compare (the expected group judges the calls)"
    return None


def _no_burst(run: ScenarioRun) -> str:
    return "the upstream's content came in too short a burst, with no scripted pause, to tell streaming from buffering"


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
              _with_turns("expected", _inherited(_found(_expected)), _expected_turn), _incomplete_as_error),
    # judged by the run's --policy xml-tool-text (GW-XML-001)
    RuleGroup("policy", ("GW-XML-",), _GATEWAY, lambda s, d, /: XML_TAG in s.tags, _found(_policy)),
    RuleGroup("translation", ("GW-REQ-",), _GATEWAY, _always,
              _with_turns("translation", _found(_translation), _translation_turn), judges_rejection=True),
    RuleGroup("ids", ("GW-ID-001",), _GATEWAY, lambda s, d, /: _has_calls(s, d) and not front_cannot_carry(s, d),
              _found(_ids), _no_calls),
    RuleGroup("faults", ("GW-FAULT-",), _GATEWAY, lambda s, d, /: has_fault_rules(s), _found(_faults)),
    RuleGroup("streaming", ("GW-STREAM-",), _GATEWAY, lambda s, d, /: "timing" in s.tags, _found(_streaming),
              _no_burst),
    RuleGroup("equivalence", ("GW-EQ-",), _GATEWAY, _comparable, _found(_equivalence)),
    # one case of a run, `concurrent::isolation`, in either mode (GW-ISO-001 and GW-ID-002, ids unique across its
    # answers, for a gateway; CLI-012 for a client)
    RuleGroup("isolation", ("GW-ISO-", "GW-ID-002"), _BOTH, _always, None, run_wide=True),
    RuleGroup("arguments", ("GW-ARGS-",), _GATEWAY, lambda s, d, /: has_malformed_arguments(s), _found(_arguments)),
    RuleGroup("usage", ("GW-USAGE-",), _GATEWAY, lambda s, d, /: has_usage_rules(s) and not front_cannot_carry(s, d),
              _found(_usage)),
    # scenarios tagged `cancellation`, theirs alone: the harness closes the front connection and watches the
    # journal itself (GW-CANCEL-*, harness/run/_cancel_exchange.py)
    RuleGroup("cancellation", ("GW-CANCEL-",), _GATEWAY, lambda s, d, /: CANCEL_TAG in s.tags, None),
    # scenarios tagged `stateful`, a Responses front only: continuations, store, encrypted reasoning (GW-STATE-*)
    RuleGroup("stateful", ("GW-STATE-",), _GATEWAY, lambda s, d, /: is_stateful(s) and DIALECTS[d].previous_response_id,
              _found(_stateful)),
    RuleGroup("client", ("CLI-",), frozenset({"client"}), _always, _inherited(_found(_client))),
    # a gateway's Responses WebSocket front (GW-WS-*): planned by the harness over --front-transport websocket only
    RuleGroup("websocket", ("GW-WS-",), _GATEWAY, lambda s, d, /: False,
              lambda judging, /: websocket_judge(judging.run, judging.config), websocket_skipped),
    # a sequence (scenario with legs) played to its end: GW-LOOP-* for a gateway, CLI-014/CLI-015 for a client
    RuleGroup("loop", ("GW-LOOP-", "CLI-014", "CLI-015"), _BOTH, lambda s, d, /: bool(s.legs), _found(_loop)),
    # custom calls, refusals, reasoning, provider-run items and annotations through the gateway (docs/spec/items.md)
    RuleGroup("items", ("GW-ITEM-",), _GATEWAY, lambda s, d, /: has_item_rules(s), _found(_items),
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
