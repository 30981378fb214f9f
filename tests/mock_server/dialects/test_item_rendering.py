"""The item scenarios (scenarios/items.json), rendered in every dialect they play in, stream and body: each event
is the SDK's type (strictly) and validates against schemas/responses/events/*.json, and what the deltas carry joins
to what the done events, the done items and the terminal response hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic.types import Message, RawMessageStreamEvent
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from callproof.harness import check_bytes, parse_sse
from callproof.harness.scenario import Scenario, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

ITEMS = {k: s for k, s in bundled_scenarios().items() if s.feature == "items"}
STREAM: dict[str, Any] = {
    "responses": ResponseStreamEvent, "chat": ChatCompletionChunk, "anthropic": RawMessageStreamEvent}
BODY: dict[str, Any] = {"responses": Response, "chat": ChatCompletion, "anthropic": Message}
CASES = [pytest.param(s, d, id=f"{s.id}::{d}") for s in ITEMS.values() for d in STREAM if s.plays_in(d)]
INCLUDE = {"include": ["reasoning.encrypted_content"]}


def _events(scenario: Scenario, dialect: Any) -> list[dict[str, Any]]:
    rendered = RENDERERS[dialect].stream(scenario, RenderContext(request=dict(scenario.request)))
    events, _ = parse_sse(rendered.body)
    return [json.loads(e.data) for e in events if e.data != "[DONE]"]


def test_the_items_file_holds_the_ten_scenarios() -> None:
    assert sorted(ITEMS) == sorted([
        "custom_tool_apply_patch", "custom_tool_beside_function", "refusal_plain", "refusal_under_structured_output",
        "reasoning_summary_encrypted", "reasoning_text_then_call", "mcp_call_search", "shell_call_commands",
        "shell_call_hosted_output", "code_interpreter_code", "text_with_annotations"])


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_each_event_and_the_body_are_sdk_types_and_pass_the_checker(scenario: Scenario, dialect: Any) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(STREAM[dialect])
    for event in _events(scenario, dialect):
        if event.get("type") != "ping":
            adapter.validate_python(event, strict=True)
    rendered = RENDERERS[dialect].stream(scenario, RenderContext(request=dict(scenario.request)))
    report = check_bytes(rendered.body, front=dialect, profile="openai")
    assert report.failed_rules == (), {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    body = RENDERERS[dialect].body(scenario, RenderContext(request=dict(scenario.request)))
    body_adapter: TypeAdapter[Any] = TypeAdapter(BODY[dialect])
    body_adapter.validate_python(body, strict=True)


def _done_items(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["item"] for e in events if e["type"] == "response.output_item.done"]


def _joined(events: list[dict[str, Any]], kind: str, **where: int) -> str:
    return "".join(e["delta"] for e in events if e["type"] == kind and all(e.get(k) == v for k, v in where.items()))


def test_responses_custom_input_deltas_join_to_the_done_input_and_item() -> None:
    events = _events(ITEMS["custom_tool_apply_patch"], "responses")
    (done,) = [e for e in events if e["type"] == "response.custom_tool_call_input.done"]
    patch = ITEMS["custom_tool_apply_patch"].custom_calls[0].input
    assert _joined(events, "response.custom_tool_call_input.delta") == done["input"] == patch
    assert _done_items(events) == events[-1]["response"]["output"]
    assert _done_items(events)[0] == {"id": done["item_id"], "type": "custom_tool_call", "call_id": "call_patch_1",
                                      "name": "apply_patch", "input": patch}


def test_responses_reasoning_summary_parts_and_encrypted_content() -> None:
    scenario = ITEMS["reasoning_summary_encrypted"]
    events = _events(scenario, "responses")
    item = _done_items(events)[0]
    assert [p["text"] for p in item["summary"]] == list(scenario.output[0].summary)  # type: ignore[union-attr]
    for index, part in enumerate(item["summary"]):
        assert _joined(events, "response.reasoning_summary_text.delta", summary_index=index) == part["text"]
    assert item["encrypted_content"] == scenario.output[0].encrypted_content  # type: ignore[union-attr]
    without = RENDERERS["responses"].body(scenario, RenderContext())
    assert "encrypted_content" not in without["output"][0]  # only when the request includes it


def test_responses_shell_mcp_code_and_annotations() -> None:
    shell = _events(ITEMS["shell_call_commands"], "responses")
    assert [_joined(shell, "response.shell_call_command.delta", command_index=i) for i in (0, 1)] == \
        _done_items(shell)[0]["action"]["commands"] == ["ls -la", 'cat "notes a.txt"']
    mcp = _events(ITEMS["mcp_call_search"], "responses")
    assert _joined(mcp, "response.mcp_call_arguments.delta") == _done_items(mcp)[0]["arguments"]
    assert [e["type"] for e in mcp].count("response.mcp_call.completed") == 1
    code = _events(ITEMS["code_interpreter_code"], "responses")
    assert _joined(code, "response.code_interpreter_call_code.delta") == _done_items(code)[0]["code"]
    cited = _events(ITEMS["text_with_annotations"], "responses")
    added = [e["annotation"] for e in cited if e["type"] == "response.output_text.annotation.added"]
    assert added == _done_items(cited)[0]["content"][0]["annotations"] and len(added) == 2


def test_responses_hosted_shell_output_streams_stdout_and_stderr_per_command() -> None:
    scenario = ITEMS["shell_call_hosted_output"]
    events = _events(scenario, "responses")
    item = _done_items(events)[1]
    assert item["type"] == "shell_call_output" and item["call_id"] == _done_items(events)[0]["call_id"]
    dones = [e for e in events if e["type"] == "response.shell_call_output_content.done"]
    assert [d["command_index"] for d in dones] == [0, 1] and [d["output"][0] for d in dones] == item["output"]
    for index, output in enumerate(item["output"]):
        for stream in ("stdout", "stderr"):
            joined = "".join(e["delta"].get(stream) or "" for e in events
                             if e["type"] == "response.shell_call_output_content.delta" and e["command_index"] == index)
            assert joined == output[stream]
    assert item["output"][1] == {"stdout": 'line "one"\n', "stderr": "cat: warning: no newline\\n at end\n",
                                 "outcome": {"type": "exit", "exit_code": 1}}
    assert _done_items(events) == events[-1]["response"]["output"]
    assert not scenario.plays_in("chat") and not scenario.plays_in("anthropic")


def test_a_refusal_in_each_dialect() -> None:
    scenario = ITEMS["refusal_plain"]
    refusal = scenario.expect.refusal
    responses = _events(scenario, "responses")
    assert _joined(responses, "response.refusal.delta") == refusal
    assert _done_items(responses)[0]["content"] == [{"type": "refusal", "refusal": refusal}]
    chat = _events(scenario, "chat")
    assert "".join(c["choices"][0]["delta"].get("refusal") or "" for c in chat if c["choices"]) == refusal
    assert RENDERERS["chat"].body(scenario, RenderContext())["choices"][0]["message"]["refusal"] == refusal
    anthropic = _events(scenario, "anthropic")
    (delta,) = [e for e in anthropic if e["type"] == "message_delta"]
    assert delta["delta"]["stop_reason"] == "refusal" and delta["delta"]["stop_details"]["type"] == "refusal"
    assert "".join(e["delta"]["text"] for e in anthropic if e["type"] == "content_block_delta") == refusal


def test_anthropic_thinking_carries_the_summary_and_the_signature() -> None:
    scenario = ITEMS["reasoning_summary_encrypted"]
    events = _events(scenario, "anthropic")
    thinking = "".join(e["delta"].get("thinking", "") for e in events if e["type"] == "content_block_delta")
    assert thinking == "\n\n".join(scenario.output[0].summary)  # type: ignore[union-attr]
    (signature,) = [e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta"]
    assert signature == scenario.output[0].encrypted_content  # type: ignore[union-attr]
