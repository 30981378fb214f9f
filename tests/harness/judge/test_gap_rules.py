"""Issue 17's upstream-stream gaps, rule by rule on hand-made and mock-rendered answers: GW-ARGS-001 (arguments
that are not JSON pass through byte for byte or the response fails), the expected outcome of a `may_fail`
scenario, GW-USAGE-001 (usage in each front's shape), CLI-008 (a client never hands on such a call) and CLI-009
(a reported usage equals the stream's), and the plan (`dialects`, the arguments and usage groups)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness import Dialect
from callproof.harness.judge import (
    AdapterRun,
    Findings,
    check_arguments,
    check_client,
    check_usage,
    expected_outcome,
    read_answer,
)
from callproof.harness.outcome import Call, Chunk, Exchange, Result
from callproof.harness.run._plan import gateway_groups, plan_cases
from callproof.harness.scenario import bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
MALFORMED = SCENARIOS["malformed_args_completed"]
TEXT = '{"city": "Paris"'
SSE = {"content-type": "text/event-stream"}


def _failed(findings: Findings) -> dict[str, int]:
    return {r.rule.id: r.count for r in findings.results() if r.outcome == "failed"}


def _judged(findings: Findings) -> set[str]:
    return {r.rule.id for r in findings.results() if r.outcome != "not-applicable"}


def _arguments(result: Result) -> dict[str, int]:
    findings = Findings()
    check_arguments(findings, MALFORMED, result)
    assert "GW-ARGS-001" in _judged(findings)
    return _failed(findings)


def _completed(*calls: Call) -> Result:
    return Result("completed", "", calls, "response.completed")


def test_arguments_that_are_not_json_pass_through_byte_for_byte_or_fail_gw_args_001() -> None:
    assert _arguments(_completed(Call("call_malformed_1", "get_weather", TEXT))) == {}
    assert _arguments(Result("failed", "", (), "response.failed", error="not JSON")) == {}
    assert _arguments(Result("error", "", (), "cut")) == {}
    # repaired, re-serialised, or dropped: each a silent change
    assert _arguments(_completed(Call("call_malformed_1", "get_weather", TEXT + "}"))) == {"GW-ARGS-001": 1}
    assert _arguments(_completed(Call("call_malformed_1", "get_weather", '{"city":"Paris"'))) == {"GW-ARGS-001": 1}
    assert _arguments(_completed()) == {"GW-ARGS-001": 1}


def _expected(result: Result) -> dict[str, int]:
    findings = Findings()
    expected_outcome(findings, MALFORMED.expect, result)
    return _failed(findings)


def test_a_may_fail_scenario_accepts_a_failure_the_exact_text_or_a_skipped_call() -> None:
    assert MALFORMED.expect.may_fail
    assert _expected(Result("failed", "", (), "response.failed")) == {}
    assert _expected(_completed(Call("c", "get_weather", TEXT))) == {}
    assert _expected(_completed()) == {}  # a client may leave the call out (CLI-008 allows it)
    assert _expected(_completed(Call("c", "get_weather", TEXT + "}"))) == {"EXP-002": 1}
    assert _expected(Result("incomplete", "", (), "response.incomplete")) == {"EXP-004": 1}


def _rendered(scenario_id: str, front: Dialect) -> bytes:
    request = {"stream_options": {"include_usage": True}} if front == "chat" else {}
    return RENDERERS[front].stream(SCENARIOS[scenario_id], RenderContext(request=request)).body


def _usage(scenario_id: str, front: Dialect, body: bytes) -> dict[str, int]:
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, 200, SSE, (Chunk(0.0, body),))
    findings = Findings()
    check_usage(findings, SCENARIOS[scenario_id], read_answer(exchange, "openai", front))
    assert "GW-USAGE-001" in _judged(findings)
    return _failed(findings)


USAGE_CASES = [("usage_cached_tokens", "responses"), ("usage_cached_tokens", "chat"),
               ("usage_cached_tokens", "anthropic"), ("chat_usage_in_finish_chunk", "chat"),
               ("chat_usage_trailing_chunk", "chat")]


@pytest.mark.parametrize(("scenario", "front"), USAGE_CASES)
def test_the_mocks_usage_is_each_fronts_correct_usage_gw_usage_001(scenario: str, front: Dialect) -> None:
    assert _usage(scenario, front, _rendered(scenario, front)) == {}


@pytest.mark.parametrize(("scenario", "front", "field"), [
    ("usage_cached_tokens", "responses", b'"cached_tokens":1024'),
    ("usage_cached_tokens", "chat", b'"cached_tokens":1024'),
    ("usage_cached_tokens", "anthropic", b'"cache_read_input_tokens":1024'),
    ("chat_usage_in_finish_chunk", "chat", b'"cached_tokens":2048'),
])
def test_lost_cached_tokens_fail_gw_usage_001(scenario: str, front: Dialect, field: bytes) -> None:
    body = _rendered(scenario, front).replace(b": ", b":")
    assert field in body
    assert _usage(scenario, front, body.replace(field, field.split(b":")[0] + b":0")) == {"GW-USAGE-001": 1}


def test_no_usage_at_all_fails_gw_usage_001() -> None:
    body = b"".join(line + b"\n" for line in _rendered("chat_usage_trailing_chunk", "chat").split(b"\n")
                    if b'"choices":[]' not in line.replace(b": ", b":"))
    assert _usage("chat_usage_trailing_chunk", "chat", body) == {"GW-USAGE-001": 1}


def _client(scenario: Any, result: Result, usage: Any = None) -> dict[str, int]:
    raw = {"usage": usage} if usage is not None else {}
    findings = Findings()
    check_client(findings, scenario, AdapterRun(raw, None, "", 0.1), result, result)
    return _failed(findings)


def test_a_client_reports_an_error_or_leaves_the_call_out_cli_008() -> None:
    assert _client(MALFORMED, Result("error", "", (), "adapter", error="arguments are not JSON")) == {}
    assert _client(MALFORMED, _completed()) == {}
    assert _client(MALFORMED, _completed(Call("c", "get_weather", TEXT))) == {"CLI-008": 1}
    assert _client(MALFORMED, _completed(Call("c", "get_weather", '{"city": "Paris"}'))) == {"CLI-008": 1}


def test_a_reported_usage_equals_the_streams_cli_009() -> None:
    scenario = SCENARIOS["usage_cached_tokens"]
    calls = _completed(Call("call_usage_1", "get_weather", '{"city":"Paris"}'))
    result = Result("completed", "Checking the weather.", calls.calls, "adapter")
    assert _client(scenario, result) == {}  # no usage key: not judged
    right = {"input_tokens": 1250, "output_tokens": 42, "cached_tokens": 1024}
    assert _client(scenario, result, right) == {}
    assert _client(scenario, result, {**right, "input_tokens": 226}) == {"CLI-009": 1}
    assert _client(scenario, result, {"input_tokens": 1250, "output_tokens": 42}) == {"CLI-009": 1}


def test_chat_only_scenarios_are_planned_only_where_chat_is_served() -> None:
    chat_only = {s.id for s in SCENARIOS.values() if s.dialects == ("chat",)}
    assert {"chat_tool_calls_finish_stop", "chat_name_never_sent", "chat_usage_in_finish_chunk"} <= chat_only
    for planned in ({c.scenario for c in plan_cases(SCENARIOS, "gateway", "responses", "responses", "responses")},
                    {c.scenario for c in plan_cases(SCENARIOS, "client", "responses", "responses", "anthropic")}):
        assert not planned & chat_only
    assert chat_only <= {c.scenario for c in plan_cases(SCENARIOS, "gateway", "chat", "responses", "responses")}
    assert chat_only <= {c.scenario for c in plan_cases(SCENARIOS, "client", "chat", "responses", "chat")}


def test_the_arguments_and_usage_groups_go_where_they_judge_something() -> None:
    groups = gateway_groups(MALFORMED, "responses")
    assert "arguments" in groups and "usage" not in groups and "equivalence" not in groups
    assert "usage" in gateway_groups(SCENARIOS["usage_cached_tokens"], "anthropic")
    assert "arguments" not in gateway_groups(SCENARIOS["length_mid_arguments"], "responses")  # cut, not malformed


def test_the_chat_renderer_ends_as_the_scenario_says() -> None:
    def chunks(scenario_id: str, request: dict[str, Any]) -> list[dict[str, Any]]:
        body = RENDERERS["chat"].stream(SCENARIOS[scenario_id], RenderContext(request=request)).body.decode()
        return [json.loads(line[6:]) for line in body.split("\n") if line.startswith("data: {")]

    stop = chunks("chat_tool_calls_finish_stop", {})
    assert [c["choices"][0]["finish_reason"] for c in stop if c["choices"]][-1] == "stop"
    on_finish = chunks("chat_usage_in_finish_chunk", {})
    assert on_finish[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert on_finish[-1]["usage"]["prompt_tokens_details"]["cached_tokens"] == 2048
    trailing = chunks("chat_usage_trailing_chunk", {})  # whatever the request asked
    assert trailing[-1]["choices"] == [] and trailing[-1]["usage"]["prompt_tokens"] == 1536
    nameless = chunks("chat_name_never_sent", {})
    deltas = [t for c in nameless for ch in c["choices"] for t in ch["delta"].get("tool_calls") or []]
    assert deltas and all("name" not in t.get("function", {}) for t in deltas)
