"""GW-REQ-006 on an assistant turn with text and calls (harness/judge/_assistant_turns.py, docs/spec/contracts.md
§7.12): one Chat assistant message with content and tool_calls, one Anthropic assistant message with a text block
before the tool_use. Upstream bodies by hand here; the reference gateway and `splits_text_and_calls` in the
mutation table."""

from __future__ import annotations

from typing import Any

from callproof.harness.judge import Findings, check_text_with_calls

TEXT = "Let me check the weather in Paris."
FRONT: dict[str, Any] = {"input": [
    {"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
    {"role": "assistant", "content": [{"type": "output_text", "text": TEXT}]},
    {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
]}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
USE = {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}


def _judge(dialect: str, body: dict[str, Any], front: dict[str, Any] = FRONT) -> list[tuple[str, str, list[str]]]:
    findings = Findings()
    check_text_with_calls(findings, dialect, front, body)
    return [(r.rule.id, r.outcome, [v.message for v in r.violations]) for r in findings.results()]


def test_one_chat_message_with_content_and_tool_calls_passes() -> None:
    body = {"messages": [{"role": "user", "content": "Weather?"},
                         {"role": "assistant", "content": TEXT, "tool_calls": [CALL]},
                         {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]}
    assert _judge("chat", body) == [("GW-REQ-006", "passed", [])]


def test_a_chat_turn_split_in_two_messages_fails_naming_the_shape() -> None:
    body = {"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": TEXT},
                         {"role": "assistant", "content": None, "tool_calls": [CALL]},
                         {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}]}
    [(rule, outcome, messages)] = _judge("chat", body)
    assert (rule, outcome) == ("GW-REQ-006", "failed")
    assert "$.messages[2]" in messages[0] and "one assistant message with content and tool_calls" in messages[0]


def test_anthropic_wants_the_text_block_before_the_tool_use() -> None:
    joined = {"messages": [{"role": "user", "content": "Weather?"},
                           {"role": "assistant", "content": [{"type": "text", "text": TEXT}, USE]}]}
    assert _judge("anthropic", joined) == [("GW-REQ-006", "passed", [])]
    after = {"messages": [{"role": "assistant", "content": [USE, {"type": "text", "text": TEXT}]}]}
    assert _judge("anthropic", after)[0][1] == "failed"


def test_not_judged_for_a_responses_upstream_or_without_text_before_a_call() -> None:
    assert _judge("responses", {"input": []}) == []
    plain = {"input": [FRONT["input"][0], *FRONT["input"][2:]]}
    assert _judge("chat", {"messages": []}, plain) == []


def test_a_missing_call_is_left_to_the_pairing_check() -> None:
    assert _judge("chat", {"messages": [{"role": "assistant", "content": TEXT}]}) == [("GW-REQ-006", "passed", [])]
