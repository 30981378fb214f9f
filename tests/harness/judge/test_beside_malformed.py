"""One call whose arguments are not JSON beside a valid one (`malformed_beside_valid`): a client still hands on the
valid call, with or without an error for the bad one (CLI-020); a gateway passes both through or fails the response
(GW-ARGS-001), and one that completes without the valid call fails EXP-001."""

from __future__ import annotations

from callproof.harness.judge import (
    Findings,
    check_arguments,
    check_beside_malformed,
    expected_outcome,
)
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import bundled_scenarios

SCENARIOS = bundled_scenarios()
BESIDE = SCENARIOS["malformed_beside_valid"]
TIME = Call("call_beside_valid_time", "get_time", '{"timezone":"Europe/Paris"}')
WEATHER = Call("call_beside_valid_weather", "get_weather", '{"city": "Paris"')


def _failed(findings: Findings) -> dict[str, int]:
    return {r.rule.id: r.count for r in findings.results() if r.outcome == "failed"}


def _cli_020(result: Result) -> dict[str, int]:
    findings = Findings()
    check_beside_malformed(findings, BESIDE, result)
    assert findings.checked("CLI-020")
    return _failed(findings)


def test_the_valid_call_is_handed_on_with_or_without_an_error() -> None:
    assert _cli_020(Result("completed", "", (TIME,), "response.completed")) == {}
    assert _cli_020(Result("error", "", (TIME,), "response.completed", error="get_weather: not JSON")) == {}
    assert _cli_020(Result("completed", "", (Call("other_id", "get_time", '{"timezone": "Europe/Paris"}'),),
                           "response.completed")) == {}  # ids are CLI-004's, the JSON text may be re-serialised


def test_dropping_the_valid_call_fails_cli_020() -> None:
    assert _cli_020(Result("error", "", (), "response.completed", error="get_weather: not JSON")) == {"CLI-020": 1}
    assert _cli_020(Result("completed", "", (), "response.completed")) == {"CLI-020": 1}
    assert _cli_020(Result("completed", "", (Call("c", "get_time", '{"timezone":"Europe/Oslo"}'),),
                           "response.completed")) == {"CLI-020": 1}


def test_cli_020_is_judged_only_beside_a_malformed_call() -> None:
    for scenario_id in ("malformed_args_completed", "parallel_two_tools", "length_mid_arguments"):
        findings = Findings()
        check_beside_malformed(findings, SCENARIOS[scenario_id], Result("error", "", (), "cut", error="x"))
        assert not findings.checked("CLI-020"), scenario_id
    findings = Findings()
    check_beside_malformed(findings, BESIDE, None)  # the adapter broke the protocol: CLI-001's matter
    assert not findings.checked("CLI-020")


def _gateway(result: Result) -> dict[str, int]:
    findings = Findings()
    expected_outcome(findings, BESIDE.expect, result)
    check_arguments(findings, BESIDE, result)
    return _failed(findings)


def test_a_gateway_keeps_the_valid_call_or_fails_the_response() -> None:
    assert _gateway(Result("completed", "", (TIME, WEATHER), "response.completed")) == {}
    assert _gateway(Result("failed", "", (), "response.failed", error="arguments not JSON")) == {}
    assert _gateway(Result("completed", "", (WEATHER,), "response.completed")) == {"EXP-001": 1}
    assert _gateway(Result("completed", "", (), "response.completed")) == {"EXP-001": 1, "GW-ARGS-001": 1}
