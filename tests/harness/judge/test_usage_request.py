"""GW-USAGE-001 when a gateway's streaming Chat upstream request never asked for usage
(`stream_options.include_usage`): the mock then sends none, and the finding is that request field, at its JSON
path, not counts the upstream never sent (docs/spec/contracts.md §7.8). A scenario that places usage itself
(`chat.usage`), a non-stream upstream request and the other upstream dialects are judged on the counts as before."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness import Dialect
from callproof.harness.judge import Findings, check_usage, read_answer
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.scenario import bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
SSE = {"content-type": "text/event-stream"}


def _messages(scenario_id: str, request: Any, upstream: Dialect = "chat") -> list[str]:
    """GW-USAGE-001's messages on the mock's own (correct) Responses answer, for `request` sent upstream."""
    body = RENDERERS["responses"].stream(SCENARIOS[scenario_id], RenderContext(request={})).body
    answer = read_answer(Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, 200, SSE, (Chunk(0.0, body),)),
                         "openai", "responses")
    findings = Findings()
    check_usage(findings, SCENARIOS[scenario_id], answer, upstream, request)
    assert any(r.rule.id == "GW-USAGE-001" for r in findings.results() if r.outcome != "not-applicable")
    return [v.message for r in findings.results() if r.outcome == "failed" for v in r.violations]


def test_a_request_that_asks_for_usage_is_judged_on_the_counts() -> None:
    assert _messages("usage_cached_tokens", {"stream": True, "stream_options": {"include_usage": True}}) == []


@pytest.mark.parametrize(("options", "said"), [
    ({}, "no stream_options.include_usage"),
    ({"stream_options": {}}, "no stream_options.include_usage"),
    ({"stream_options": {"include_usage": False}}, "stream_options.include_usage false"),
])
def test_a_request_that_never_asked_is_the_finding(options: dict[str, Any], said: str) -> None:
    assert _messages("usage_cached_tokens", {"stream": True, **options}) == [
        f"the gateway's upstream request has {said}, so the upstream sent no usage (the front reported usage it "
        "cannot have had: input_tokens 1250, output_tokens 42, total_tokens 1292, input_tokens_details.cached_tokens "
        "1024): a streaming Chat upstream sends usage only when asked; send \"stream_options\": "
        "{\"include_usage\": true} upstream"]


@pytest.mark.parametrize(("scenario", "request_body", "upstream"), [
    ("chat_usage_trailing_chunk", {"stream": True}, "chat"),  # the scenario places usage whatever was asked
    ("usage_cached_tokens", {"stream": False}, "chat"),  # a non-stream body carries usage unasked
    ("usage_cached_tokens", {"stream": True}, "anthropic"),
])
def test_where_the_upstream_sends_usage_unasked_the_counts_are_judged(scenario: str, request_body: Any,
                                                                      upstream: Dialect) -> None:
    assert _messages(scenario, request_body, upstream) == []
