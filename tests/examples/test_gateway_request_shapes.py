"""The reference gateway on the request shapes of scenarios/request_shapes.json (docs/spec/contracts.md §7.12),
without servers: each front parses the harness's front request, each upstream renders it, the upstream body
validates against the official SDK's request type of its dialect, and the translation rules (GW-REQ-*) pass."""

from __future__ import annotations

from typing import Any, cast

import pytest
from anthropic.types import message_create_params
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import TypeAdapter

from callproof.harness import Dialect
from callproof.harness.judge import Findings, check_translation
from callproof.harness.request import front_request
from callproof.harness.scenario import bundled_scenarios
from examples.gateway import FRONTS, UPSTREAMS
from examples.gateway.custom_tools import CONVERTED_PARAMETERS
from examples.gateway.model import Untranslatable

SCENARIOS = [s for s in bundled_scenarios().values() if s.feature == "request_shapes"]
DIALECTS = ("responses", "chat", "anthropic")
SDK: dict[str, TypeAdapter[Any]] = {
    "responses": TypeAdapter(response_create_params.ResponseCreateParamsStreaming),
    "chat": TypeAdapter(completion_create_params.CompletionCreateParamsStreaming),
    "anthropic": TypeAdapter(message_create_params.MessageCreateParamsStreaming),
}


def _upstream_body(scenario: Any, front: str, upstream: str, custom_tools: str = "refuse") -> dict[str, Any]:
    body = front_request(scenario.id, scenario.request, case="c1", dialect=cast(Dialect, front))
    request = next(f for f in FRONTS if f.dialect == front)().parse_request(body)
    chosen = UPSTREAMS[upstream]()
    chosen.custom_tools = custom_tools
    return chosen.translate_request(request)


def _refuses_custom_tools(scenario: Any, front: str, upstream: str) -> bool:
    """builtin_tools_in_request offers a custom tool at the Responses and Chat fronts: refused toward an upstream
    without custom tools under the default `--custom-tools refuse` (docs/spec/items.md, "The reference gateway")."""
    return scenario.id == "builtin_tools_in_request" and front != "anthropic" and upstream != "responses"


def test_the_feature_has_the_five_scenarios() -> None:
    assert sorted(s.id for s in SCENARIOS) == ["builtin_tools_in_request", "input_bare_string",
                                               "input_instructions_and_developer", "input_string_content",
                                               "tool_output_content_array"]


@pytest.mark.parametrize("upstream", DIALECTS)
@pytest.mark.parametrize("front", DIALECTS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_each_front_translates_each_shape_into_a_valid_upstream_request(scenario: Any, front: str,
                                                                        upstream: str) -> None:
    if _refuses_custom_tools(scenario, front, upstream):  # refused; converted, a valid request of the dialect
        with pytest.raises(Untranslatable, match=r"^custom tool run_sql: the \w+ upstream has no custom"):
            _upstream_body(scenario, front, upstream)
        SDK[upstream].validate_python({**_upstream_body(scenario, front, upstream, "convert"), "model": "m"})
        return
    translated = _upstream_body(scenario, front, upstream)
    SDK[upstream].validate_python({**translated, "model": "m", "stream": True})
    reference = front_request(scenario.id, scenario.request, case="c1", dialect="responses")
    user_text = reference["input"] if isinstance(reference["input"], str) else next(
        i["content"] if isinstance(i["content"], str) else i["content"][0]["text"]
        for i in reference["input"] if i.get("role") == "user")
    findings = Findings()
    check_translation(findings, upstream, reference, user_text, [translated])
    assert [v.message for r in findings.results() for v in r.violations] == []


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
def test_built_in_tools_never_reach_an_upstream_that_cannot_take_them(upstream: str) -> None:
    """Under --custom-tools convert the custom tool is a function tool taking one string `input`; web_search and
    file_search are dropped."""
    scenario = next(s for s in SCENARIOS if s.id == "builtin_tools_in_request")
    tools = _upstream_body(scenario, "responses", upstream, "convert")["tools"]
    names = [t["function"]["name"] if upstream == "chat" else t["name"] for t in tools]
    assert names == ["run_sql", "get_weather"]
    converted = tools[0]["function"]["parameters"] if upstream == "chat" else tools[0]["input_schema"]
    assert converted == CONVERTED_PARAMETERS


def test_built_in_tools_reach_a_responses_upstream_unchanged() -> None:
    scenario = next(s for s in SCENARIOS if s.id == "builtin_tools_in_request")
    tools = _upstream_body(scenario, "responses", "responses")["tools"]
    custom = {"type": "custom", "name": "run_sql", "description": "Runs one SQL query, given as plain text."}
    assert tools[:3] == [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_callproof_1"]},
                         custom]
    assert [t["name"] for t in tools[3:]] == ["get_weather"]
