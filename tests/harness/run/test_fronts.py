"""Gateway mode with a Chat Completions or Anthropic Messages front (`--front`): the harness sends each case in the
front's dialect, judges the front's stream with that front's rules, and names a wrong endpoint or dialect in one
line. The gateway is tests/fakes/passthrough.py, which forwards each front to the same dialect upstream byte for
byte, so what reaches the harness is what the mock wrote (real processes, a real mock on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

PASSTHROUGH = fakes.launch("passthrough")
#: Cases a faithful pass-through passes in every dialect: text, calls, history, endings, faults, timing, isolation.
CASES = (
    "text_only::expected", "text_only::framing", "text_only::schema", "text_only::lifecycle",
    "parallel_two_calls::expected", "parallel_two_calls::identity", "parallel_two_calls::reassembly",
    "parallel_two_calls::ids", "parallel_two_calls::equivalence", "interleaved_round_robin::expected",
    "multi_turn_conversation::translation", "multi_turn_tool_result::translation", "tool_choice_named::translation",
    "parallel_calls_disabled::translation", "length_mid_text::faults", "length_mid_text::expected",
    "fault_http_429::faults", "fault_http_500::faults", "fault_disconnect_after_events::faults",
    "timing_explicit_delays::streaming", "concurrent::isolation",
)


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(config: RunConfig, case_ids: Sequence[str]) -> list[CaseResult]:
    with Harness(config) as harness:
        return [harness.judge(CaseSpec(*c.split("::"))) for c in case_ids]


@pytest.mark.parametrize("front", ["chat", "anthropic"])
def test_a_faithful_gateway_passes_in_each_front(front: Dialect) -> None:
    config = RunConfig(launch=PASSTHROUGH, front=front, upstream_dialect=front, case_timeout=15)
    results = _judge(config, CASES)
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []


@pytest.mark.parametrize("front", ["chat", "anthropic"])
def test_the_plan_judges_only_the_families_with_rules_for_the_front(front: Dialect) -> None:
    config = RunConfig(launch=PASSTHROUGH, front=front, upstream_dialect=front)
    with Harness(config) as harness:
        groups = {s.group for s in harness.cases()}
    assert "sequence" not in groups
    assert {"framing", "schema", "lifecycle", "identity", "reassembly", "translation", "faults"} <= groups


def test_a_front_in_another_dialect_is_one_setup_error() -> None:
    config = RunConfig(launch=PASSTHROUGH, front="chat", upstream_dialect="responses",
                       front_url="http://127.0.0.1:{port}/v1/responses", case_timeout=15)
    results = _judge(config, ["text_only::expected", "text_only::framing"])
    assert {r.outcome for r in results} == {"error"}
    assert all(r.details.get("setup_error") for r in results)
    first = results[0].message
    assert first.startswith("--front chat: the front at http://127.0.0.1:")
    assert first.endswith("/v1/responses answered with Responses events, not Chat Completions; run with --front "
                          "responses, or point --front-url at the gateway's Chat Completions endpoint (usually "
                          "/v1/chat/completions)")


def test_a_front_url_that_answers_404_is_one_setup_error() -> None:
    config = RunConfig(launch=PASSTHROUGH, front="anthropic", upstream_dialect="anthropic",
                       front_url="http://127.0.0.1:{port}/v1/nothing-here", case_timeout=15)
    [result] = _judge(config, ["text_only::expected"])
    assert (result.outcome, result.details.get("setup_error")) == ("error", True)
    assert result.message.endswith("/v1/nothing-here answered HTTP 404 and the gateway never called its upstream: is "
                                   "it serving its Anthropic Messages front there? Give --front-url with the right "
                                   "path (--front anthropic expects /v1/messages by default)")


@pytest.mark.parametrize(("front", "case", "rule"), [
    ("chat", "fault_disconnect_after_bytes::framing", "CHAT-FRAME-001"),
    ("anthropic", "fault_truncate::lifecycle", "ANT-LIFE-002"),
    ("chat", "missing_call_id::identity", "CHAT-TC-001"),
])
def test_a_passed_through_upstream_defect_fails_the_fronts_rule(front: Dialect, case: str, rule: str) -> None:
    [result] = _judge(RunConfig(launch=PASSTHROUGH, front=front, upstream_dialect=front, case_timeout=15), [case])
    assert result.outcome == "failed"
    assert rule in {r.rule.id for r in result.failed}
