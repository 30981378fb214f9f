"""A case's verdict (harness/run/_verdict.py) on hand-made runs: an unjudgeable run is error, or failed where a MUST
rule failed, never passed or skipped (not even with SHOULD failures only); a skip always says why."""

from __future__ import annotations

from typing import Any

from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import CaseSpec, Findings, read_answer
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.run._scenario_run import ScenarioRun
from callproof.harness.run._verdict import verdict
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
WHY = "no judgeable stream: HTTP 200 text/html, 13 bytes, 0 events, not text/event-stream"


def _run(scenario: str, unjudged: str | None = None, answer: Any = None) -> ScenarioRun:
    return ScenarioRun(SCENARIOS[scenario], "case", {}, 0.0, unjudged=unjudged, answer=answer)


def _results(*, must: bool = False, should: bool = False, passed: bool = True) -> tuple[RuleResult, ...]:
    findings = Findings()
    if passed:
        findings.check("GW-REQ-001")
    if must:
        findings.fail("GW-REQ-002", "the tools were dropped")
    if should:
        findings.fail("GW-REQ-004", "parallel_tool_calls was dropped")
    return findings.results()


def test_an_unjudgeable_run_whose_rules_pass_is_an_error_without_results() -> None:
    result = verdict(CaseSpec("one_call", "translation"), _run("one_call", WHY), _results(), 0.1, {})
    assert (result.outcome, result.message, result.results) == ("error", WHY, ())


def test_should_failures_alone_never_make_an_unjudgeable_run_pass() -> None:
    result = verdict(CaseSpec("one_call", "translation"), _run("one_call", WHY), _results(should=True), 0.1, {})
    assert result.outcome == "error" and [r.rule.id for r in result.results] == ["GW-REQ-004"]
    assert result.message.startswith(f"{WHY}\nGW-REQ-004 SHOULD: parallel_tool_calls was dropped")


def test_a_must_failure_in_an_unjudgeable_run_fails_the_case_and_says_why_nothing_else_was_judged() -> None:
    result = verdict(CaseSpec("one_call", "translation"), _run("one_call", WHY), _results(must=True), 0.1, {})
    assert result.outcome == "failed" and result.message.startswith("GW-REQ-002 MUST: the tools were dropped")
    assert result.message.endswith(f"\n{WHY}")


def test_a_judged_run_passes_and_fails_as_its_rules_say() -> None:
    assert verdict(CaseSpec("one_call", "translation"), _run("one_call"), _results(), 0.1, {}).outcome == "passed"
    assert verdict(CaseSpec("one_call", "translation"), _run("one_call"), _results(should=True), 0.1,
                   {}).outcome == "failed"


def test_a_skip_says_why_the_group_does_not_apply_to_this_iut() -> None:
    exchange = Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, 502, {"content-type": "application/json"},
                        (Chunk(0.1, b'{"error": {}}'),))
    failing_upstream = _run("fault_stream_error", answer=read_answer(exchange, "openai", "responses"))
    skipped = verdict(CaseSpec("fault_stream_error", "framing"), failing_upstream, (), 0.1, {})
    assert (skipped.outcome, skipped.message) == ("skipped", "the IUT answered HTTP 502 application/json, 13 bytes, "
                                                  "0 events instead of a stream, a way to fail that this scenario "
                                                  "allows: "
                                                  "there is no stream for the framing rules")
    no_calls = Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, 200, {"content-type": "text/event-stream"},
                        (Chunk(0.1, b'data: {"type": "response.created"}\n\n'),))
    ids = verdict(CaseSpec("one_call", "ids"), _run("one_call", answer=read_answer(no_calls, "openai", "responses")),
                  (), 0.1, {})
    assert ids.outcome == "skipped" and ids.message.startswith("the IUT completed no tool call")
