"""The judges of the rule groups (their rows are `_groups.GROUPS`): each a function writing its rules' results into
`Findings` from a `Judging`, and the rows' `applies` and `skipped` conditions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import (
    Findings,
    FrontAnswer,
    as_filtered,
    attribute_inherited,
    carried_expect,
    check_arguments,
    check_beside_malformed,
    check_client,
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
    policy_expect,
    reported_incomplete_as_error,
    settled_expect,
)
from callproof.harness.request import front_request
from callproof.harness.scenario import Scenario, http_error_fault

from ._client_wires import client_wire
from ._config import RunConfig
from ._judging import Judge, Judging
from ._scenario_run import ScenarioRun
from ._sequence import judge_sequence
from ._stateful import StatefulPlay, TurnPlay, judge_stateful
from ._ws_turns import JudgedTurn

__all__ = [
    "arguments_group",
    "client_group",
    "comparable",
    "equivalence_group",
    "expected_group",
    "expected_turn",
    "faults_group",
    "has_calls",
    "ids_group",
    "incomplete_as_error",
    "inherited",
    "items_group",
    "loop_group",
    "no_burst",
    "no_calls",
    "policy_group",
    "stateful_group",
    "streamed",
    "streaming_group",
    "translate",
    "translation_group",
    "translation_turn",
    "twin_judged",
    "usage_group",
    "user_text",
]


def streamed(scenario: Scenario) -> bool:
    return scenario.request.get("stream", True) is not False


def expected_turn(findings: Findings, judging: Judging, turn: JudgedTurn) -> None:
    assert turn.answer is not None
    config = judging.config
    refused = bool(turn.answer.result.refusal)
    expect = carried_expect(policy_expect(turn.scenario, config.policies), config.front, config.upstream_dialect,
                            refused)
    expected_outcome(findings, expect, turn.answer.result)


def translation_turn(findings: Findings, judging: Judging, turn: JudgedTurn) -> None:
    config = judging.config
    assert turn.case is not None  # a fresh turn has its case tag (`JudgedTurn.fresh`)
    reference = front_request(turn.scenario.id, turn.scenario.request, case=turn.case, model=config.model,
                              dialect="responses")
    translate(findings, config, reference, turn.upstream.bodies, turn.answer, turn.scenario)


def expected_group(findings: Findings, judging: Judging) -> None:
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


def incomplete_as_error(run: ScenarioRun) -> str | None:
    if not reported_incomplete_as_error(run.scenario.expect.status, run.adapter_result):
        return None
    return ("the adapter reported the incomplete response as an error: CLI-005 in the client group judges that, and "
            "the text and calls lost with it (docs/spec/verdicts.md §3)")


def inherited(judge: Judge) -> Judge:
    """Client mode: EXP-001 and CLI-004 findings that a stream breaking CHAT-TC-003 explains (a repeated name or id,
    concatenated as the openai SDK does) are the stream's, shown, not failed (docs/spec/verdicts.md §4)."""

    def inherited(judging: Judging, /) -> Sequence[RuleResult]:
        results = judge(judging)
        if judging.config.mode != "client":
            return results
        run = judging.run
        return attribute_inherited(results, run.scenario, judging.config.client_dialect, run.adapter_result, run.wire)

    return inherited


def client_group(findings: Findings, judging: Judging) -> None:
    run = judging.run
    assert run.adapter is not None and run.wire is not None
    # the expectation given what the wire held (a settled Anthropic cut may be finished or an error: verdicts.md §1)
    scenario = replace(run.scenario, expect=settled_expect(run.scenario.expect, run.wire))
    check_client(findings, scenario, run.adapter, run.adapter_result, run.wire, run.wire_item_ids,
                 run.wire_faults, judging.config.client_dialect)
    check_beside_malformed(findings, run.scenario, run.adapter_result)  # CLI-020
    client_wire(judging.config.client_transport).judge(findings, run.wire_turns)  # the transport's own (CLI-016)


def translation_group(findings: Findings, judging: Judging) -> None:
    """The upstream is judged against the request in Responses form whatever the front's dialect: the same
    scenario request, markers, history and ids as the front request, in the form the judge reads."""
    answer, upstream = judging.sandwich()
    run, config = judging.run, judging.config
    reference = front_request(run.scenario.id, run.scenario.request, case=run.case, model=config.model,
                              dialect="responses")
    translate(findings, config, reference, upstream.bodies, answer, run.scenario)


def translate(findings: Findings, config: RunConfig, reference: Mapping[str, Any], bodies: Sequence[Any],
               answer: FrontAnswer | None, scenario: Scenario) -> None:
    check_translation(findings, config.upstream_dialect, reference, user_text(reference), list(bodies))
    if bodies:  # GW-REQ-010..013: structured outputs, strict, custom and nameless tools
        check_request_items(findings, config.upstream_dialect, config.front, reference, bodies[0], config.policies)
        if answer is not None:  # GW-REQ-013: a nameless tool forwarded, the upstream's 400 passed on (verdicts.md §16)
            check_nameless_relay(findings, config.upstream_dialect, reference, bodies[0], answer, scenario)
    if bodies and isinstance(bodies[0], Mapping):  # GW-REQ-006: a turn with text and calls
        check_text_with_calls(findings, config.upstream_dialect, reference, bodies[0])


def items_group(findings: Findings, judging: Judging) -> None:
    """GW-ITEM-001..004: the front's items against the bytes the upstream sent for the case's first request."""
    answer, upstream = judging.sandwich()
    check_items(findings, judging.config.front, judging.config.upstream_dialect, answer,
                b"".join(data for _, data in upstream.writes))


def policy_group(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_xml_policy(findings, judging.run.scenario, answer.result, judging.config.policies)


def ids_group(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_ids(findings, judging.run.scenario, answer.result)


def faults_group(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_faults(findings, judging.run.scenario, answer, upstream.sent)
    if twin_judged(judging):  # GW-FAULT-004 on the non-stream response too (docs/spec/verdicts.md §6)
        plain = judging.plain(judging.run)
        if plain is not None:
            check_ending(findings, judging.run.scenario, plain, twin=True)
    check_error_exposure(findings, answer)  # GW-FAULT-006: no stack trace, path or exception text in an error
    if http_error_fault(judging.run.scenario.faults) is not None:  # GW-FAULT-005: the upstream's error body
        check_error_leaks(findings, answer.exchange.body, answer.exchange.json(),
                          b"".join(data for _, data in upstream.writes), judging.config.front_headers)


def streaming_group(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_streaming(findings, answer, upstream, judging.slack)


def equivalence_group(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    if judging.run.unjudged is None:  # an unjudgeable stream has no half to compare
        plain = judging.plain(judging.run)
        if plain is not None:
            check_equivalence(findings, answer.result, plain, expect=judging.expect, scenario=judging.run.scenario)


def twin_judged(judging: Judging) -> bool:
    """Whether the faults group judges the ending of the non-stream response too: a length or content-filter
    ending of a stream the equivalence group compares with its non-stream twin (the same answer, fetched once)."""
    run = judging.run
    return (run.unjudged is None and run.scenario.ending in ("length", "content_filter")
            and comparable(run.scenario, judging.config.front))


def arguments_group(findings: Findings, judging: Judging) -> None:
    answer, _ = judging.sandwich()
    check_arguments(findings, judging.run.scenario, answer.result)


def usage_group(findings: Findings, judging: Judging) -> None:
    answer, upstream = judging.sandwich()
    check_usage(findings, judging.run.scenario, answer, judging.config.upstream_dialect,
                upstream.bodies[0] if upstream.bodies else None)


def loop_group(findings: Findings, judging: Judging) -> None:
    config = judging.config
    judge_sequence(findings, judging.run, mode=config.mode, upstream=config.upstream_dialect, front=config.front,
                   client_dialect=config.client_dialect, slack=judging.slack)


def stateful_group(findings: Findings, judging: Judging) -> None:
    """GW-STATE-001..003 on a stateful scenario's turn(s) (docs/spec/stateful.md)."""
    run, config = judging.run, judging.config
    play = run.stateful
    if play is None:
        assert run.answer is not None and run.upstream is not None
        play = StatefulPlay(TurnPlay(run.request, run.answer, run.upstream.bodies[0] if run.upstream.bodies else None))
    judge_stateful(findings, play, run.scenario, upstream_dialect=config.upstream_dialect,
                   policy=config.policies.get("stateful", "either"))


def user_text(request: Mapping[str, Any]) -> str:
    """The text of the first user message (it carries the markers): a bare string input, or a message whose
    content is a string or text parts."""
    if isinstance(request["input"], str):
        return request["input"]
    for item in request["input"]:
        if item.get("type") == "message" and item.get("role") == "user":
            content = item["content"]
            return content if isinstance(content, str) else str(content[0]["text"])
    return ""


def has_calls(scenario: Scenario, dialect: Dialect, /) -> bool:
    return bool(scenario.expect.tool_calls) and expects_success(scenario.expect.status)


def comparable(scenario: Scenario, dialect: Dialect, /) -> bool:
    """A stream whose non-stream twin must say the same. may_fail (malformed arguments): an upstream's non-stream
    body cannot always carry them (an Anthropic Message's input is an object), so the two halves may rightly
    differ. Nor where the front cannot carry the scenario's items: both halves fail (GW-ITEM-001)."""
    expect = scenario.expect
    return (streamed(scenario) and not scenario.faults and expects_success(expect.status) and not expect.may_fail
            and not front_cannot_carry(scenario, dialect))


def no_calls(run: ScenarioRun) -> str | None:
    if run.answer is not None and not run.answer.result.calls:
        return "the IUT completed no tool call, so no call id to compare (the expected group judges the calls)"
    return None


def no_burst(run: ScenarioRun) -> str:
    return "the upstream's content came in too short a burst, with no scripted pause, to tell streaming from buffering"

