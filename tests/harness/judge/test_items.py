"""GW-ITEM-001..004 (harness/judge/_items.py, docs/spec/items.md §3) on hand-made upstream bytes and front answers:
each rule passes on a correct carry and fails, naming what changed, on a broken one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import (
    Findings,
    carried_expect,
    check_items,
    front_cannot_carry,
    items_skipped,
    read_answer,
)
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.scenario import Expect
from callproof.mock_server import bundled_scenarios

RAW = '*** Begin Patch\n*** Update File: a.txt\n-say "bye"\n+say "hello\\n"\n*** End Patch\n'
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def _sse(events: list[dict[str, Any]], named: bool = True) -> bytes:
    out = ""
    for event in events:
        out += (f"event: {event['type']}\n" if named and "type" in event else "") + f"data: {json.dumps(event)}\n\n"
    return out.encode()


def responses(output: list[dict[str, Any]], status: str = "completed", reason: str | None = None) -> bytes:
    response = {"id": "resp_1", "object": "response", "status": status, "output": output,
                "incomplete_details": {"reason": reason} if reason else None}
    return _sse([{"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
                 {"type": f"response.{status}", "response": response}])


def chat(deltas: list[dict[str, Any]], finish: str = "stop") -> bytes:
    chunks = [{"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d,
                                                                         "finish_reason": None}]} for d in deltas]
    chunks.append({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {},
                                                                             "finish_reason": finish}]})
    return _sse(chunks, named=False) + b"data: [DONE]\n\n"


def anthropic(blocks: list[dict[str, Any]], stop: str = "end_turn") -> bytes:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"id": "msg_1", "content": []}}]
    for index, block in enumerate(blocks):
        kind = block["type"]
        events.append({"type": "content_block_start", "index": index,
                       "content_block": {"type": kind, kind if kind != "thinking" else "thinking": ""}})
        key = {"text": "text_delta", "thinking": "thinking_delta"}[kind]
        events.append({"type": "content_block_delta", "index": index,
                       "delta": {"type": key, kind: block[kind]}})
        if "signature" in block:
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "signature_delta", "signature": block["signature"]}})
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": stop}}, {"type": "message_stop"}]
    return _sse(events)


def front(data: bytes, dialect: Dialect, status: int = 200) -> Any:
    headers = SSE if data.startswith((b"event:", b"data:")) else JSON
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, status, headers, (Chunk(0.1, data),), None, False)
    return read_answer(exchange, "openai", dialect)


def judge(front_dialect: Dialect, upstream_dialect: Dialect, upstream: bytes, answer: bytes,
          status: int = 200) -> tuple[dict[str, str], list[str]]:
    findings = Findings()
    check_items(findings, front_dialect, upstream_dialect, front(answer, front_dialect, status), upstream)
    results = findings.results()
    return {r.rule.id: r.outcome for r in results}, [v.message for r in results for v in r.violations]


CUSTOM = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "apply_patch", "input": RAW,
          "status": "completed"}


def test_a_custom_call_carried_byte_for_byte_passes() -> None:
    assert judge("responses", "responses", responses([CUSTOM]), responses([{**CUSTOM, "id": "ctc_9"}])) == (
        {"GW-ITEM-001": "passed"}, [])


def test_a_custom_call_with_a_changed_input_fails_naming_the_difference() -> None:
    changed = {**CUSTOM, "input": RAW.replace('\\n"', '\n"')}
    outcomes, messages = judge("responses", "responses", responses([CUSTOM]), responses([changed]))
    assert outcomes == {"GW-ITEM-001": "failed"}
    assert "not the upstream's input byte for byte (first difference at character" in messages[0]


def test_a_custom_call_turned_into_a_function_call_with_wrapped_input_fails_naming_the_wrapping() -> None:
    function = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "apply_patch",
                "arguments": json.dumps({"input": RAW}), "status": "completed"}
    outcomes, messages = judge("responses", "responses", responses([CUSTOM]), responses([function]))
    assert outcomes == {"GW-ITEM-001": "failed"}
    assert 'a function call whose arguments wrap the input as {"input": <the input>}' in messages[0]


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
def test_a_custom_call_at_a_front_that_cannot_carry_it_must_fail_clearly(dialect: Dialect) -> None:
    body: dict[str, Any] = {"error": {"message": "a custom tool call cannot be carried", "type": "server_error"}}
    if dialect == "anthropic":
        body = {"type": "error", "error": {"type": "api_error", "message": "a custom tool call cannot be carried"}}
    assert judge(dialect, "responses", responses([CUSTOM]), json.dumps(body).encode(), 502)[0] == {
        "GW-ITEM-001": "passed"}
    silent = chat([{"content": "done"}]) if dialect == "chat" else anthropic([{"type": "text", "text": "done"}])
    outcomes, messages = judge(dialect, "responses", responses([CUSTOM]), silent)
    assert outcomes == {"GW-ITEM-001": "failed"} and "cannot carry, yet the answer ended completed" in messages[0]


def test_a_custom_call_as_a_wrapped_chat_function_call_fails_naming_the_wrapping() -> None:
    call = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                            "function": {"name": "apply_patch", "arguments": json.dumps({"input": RAW})}}]}
    outcomes, messages = judge("chat", "responses", responses([CUSTOM]), chat([call], "tool_calls"))
    assert outcomes == {"GW-ITEM-001": "failed"}
    assert any('wrap the input as {"input": <the input>}' in m for m in messages), messages


REFUSAL = "I can't help with that."
REFUSED = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
           "content": [{"type": "refusal", "refusal": REFUSAL}]}
AS_TEXT = {**REFUSED, "content": [{"type": "output_text", "text": REFUSAL, "annotations": []}]}


@pytest.mark.parametrize(("dialect", "good", "bad"), [
    ("responses", responses([REFUSED]), responses([AS_TEXT])),
    ("chat", chat([{"refusal": REFUSAL}]), chat([{"content": REFUSAL}])),
    ("anthropic", anthropic([{"type": "text", "text": REFUSAL}], "refusal"),
     anthropic([{"type": "text", "text": REFUSAL}], "end_turn")),
])
def test_a_refusal_reaches_each_front_as_its_refusal_never_as_text(dialect: Dialect, good: bytes, bad: bytes) -> None:
    for upstream in (responses([REFUSED]), chat([{"refusal": REFUSAL}])):
        upstream_dialect: Dialect = "responses" if upstream.startswith(b"event:") else "chat"
        assert judge(dialect, upstream_dialect, upstream, good) == ({"GW-ITEM-002": "passed"}, [])
        outcomes, messages = judge(dialect, upstream_dialect, upstream, bad)
        assert outcomes == {"GW-ITEM-002": "failed"} and "never as answer text" in messages[0]


def test_an_anthropic_refusal_may_reach_a_chat_or_responses_front_as_text_ending_in_the_content_filter() -> None:
    upstream = anthropic([{"type": "text", "text": REFUSAL}], "refusal")
    assert judge("chat", "anthropic", upstream, chat([{"content": REFUSAL}], "content_filter"))[0] == {
        "GW-ITEM-002": "passed"}
    assert judge("responses", "anthropic", upstream, responses([AS_TEXT], "incomplete", "content_filter"))[0] == {
        "GW-ITEM-002": "passed"}
    outcomes, messages = judge("chat", "anthropic", upstream, chat([{"content": REFUSAL}], "stop"))
    assert outcomes == {"GW-ITEM-002": "failed"} and "(it arrived as answer text)" in messages[0]


REASONING = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Check the file."},
                                                             {"type": "summary_text", "text": "Then patch it."}],
             "encrypted_content": "gAAAAB+ciphertext/=="}
ANSWER = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
          "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}


def test_reasoning_is_carried_byte_for_byte_responses_to_responses() -> None:
    upstream = responses([REASONING, ANSWER])
    assert judge("responses", "responses", upstream, responses([{**REASONING, "id": "rs_x"}, ANSWER]))[0] == {
        "GW-ITEM-003": "passed"}
    outcomes, messages = judge("responses", "responses", upstream,
                               responses([{**REASONING, "encrypted_content": "gAAAAB+ciphertext"}, ANSWER]))
    assert outcomes == {"GW-ITEM-003": "failed"} and "encrypted_content" in messages[0]
    outcomes, messages = judge("responses", "responses", upstream,
                               responses([{**REASONING, "summary": REASONING["summary"][:1]}, ANSWER]))
    assert outcomes == {"GW-ITEM-003": "failed"} and "summary" in messages[0]


def test_thinking_and_its_signature_are_carried_anthropic_to_anthropic() -> None:
    thinking = {"type": "thinking", "thinking": "Check the file.", "signature": "EqQBCkYIBx=="}
    upstream = anthropic([thinking, {"type": "text", "text": "Done."}])
    assert judge("anthropic", "anthropic", upstream, upstream)[0] == {"GW-ITEM-003": "passed"}
    broken = anthropic([{**thinking, "signature": "EqQBCkYIBx"}, {"type": "text", "text": "Done."}])
    outcomes, messages = judge("anthropic", "anthropic", upstream, broken)
    assert outcomes == {"GW-ITEM-003": "failed"} and "signature" in messages[0]


def test_reasoning_never_reaches_a_front_as_answer_text() -> None:
    upstream = responses([REASONING, ANSWER])
    assert judge("chat", "responses", upstream, chat([{"content": "Done."}]))[0] == {"GW-ITEM-003": "passed"}
    outcomes, messages = judge("chat", "responses", upstream, chat([{"content": "Check the file.Done."}]))
    assert outcomes == {"GW-ITEM-003": "failed"} and "shows in the front's answer text" in messages[0]


MCP = {"type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "search_docs",
       "arguments": '{"query":"custom tools","limit":3}', "output": "3 results", "status": "completed"}
CITED = {**ANSWER, "content": [{"type": "output_text", "text": "See the docs.", "annotations": [
    {"type": "url_citation", "url": "https://example.com/docs", "title": "Docs", "start_index": 4,
     "end_index": 12}]}]}


def test_provider_run_items_and_annotations_are_carried_unchanged_but_their_id() -> None:
    upstream = responses([MCP, CITED])
    assert judge("responses", "responses", upstream, responses([{**MCP, "id": "mcp_9"}, CITED]))[0] == {
        "GW-ITEM-004": "passed"}
    respaced = {**MCP, "arguments": json.dumps(json.loads(MCP["arguments"]))}
    outcomes, messages = judge("responses", "responses", upstream, responses([respaced, CITED]))
    assert outcomes == {"GW-ITEM-004": "failed"} and "changed in ['arguments']" in messages[0]
    outcomes, messages = judge("responses", "responses", upstream, responses([MCP, ANSWER]))
    assert outcomes == {"GW-ITEM-004": "failed"} and "annotations" in messages[0]


def test_nothing_to_judge_without_those_items() -> None:
    assert judge("responses", "responses", responses([ANSWER]), responses([ANSWER])) == ({}, [])


def test_a_front_that_cannot_carry_a_custom_or_shell_call_is_not_judged_on_the_expected_outcome() -> None:
    scenarios = bundled_scenarios()
    for sid in ("custom_tool_apply_patch", "custom_tool_beside_function", "shell_call_commands"):
        assert not front_cannot_carry(scenarios[sid], "responses")
        assert front_cannot_carry(scenarios[sid], "chat") and front_cannot_carry(scenarios[sid], "anthropic")
    assert not front_cannot_carry(scenarios["mcp_call_search"], "chat")  # dropped, the text that follows arrives
    assert not front_cannot_carry(scenarios["one_call"], "chat")


def test_an_anthropic_upstreams_refusal_may_be_text_at_a_chat_or_responses_front() -> None:
    expect = Expect("completed", refusal=REFUSAL)
    assert carried_expect(expect, "chat", "anthropic", False) == Expect("incomplete", text=REFUSAL)
    assert carried_expect(expect, "responses", "anthropic", False) == Expect("incomplete", text=REFUSAL)
    assert carried_expect(expect, "responses", "anthropic", True) == expect  # the gateway answered a refusal
    assert carried_expect(expect, "anthropic", "anthropic", False) == expect
    assert carried_expect(expect, "chat", "responses", False) == expect


def test_an_items_case_with_nothing_to_judge_says_why() -> None:
    reason = items_skipped(bundled_scenarios()["mcp_call_search"], "chat")
    assert reason.startswith("the chat front has no form for this scenario's mcp_call, text output")
