"""The stateful-field rules (GW-STATE-001..003, docs/spec/stateful.md) on hand-made turns and upstream bodies."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness.judge import (
    EarlierTurn,
    Findings,
    Refusal,
    check_continuation,
    check_encrypted_reasoning,
    check_store,
    entries_of,
    responses_output,
)

TURN1 = {"model": "m", "input": [{"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": "Weather in Paris? [m]"}]}]}
OUTPUT1 = ({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
           {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'})
TURN2 = {"model": "m", "previous_response_id": "resp_front_1",
         "input": [{"type": "function_call_output", "call_id": "call_1", "output": "18C, sunny"}]}
EARLIER = (EarlierTurn(TURN1, OUTPUT1, "resp_front_1", "resp_up_1"),)

CHAT_HONOURED = {"messages": [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "Weather in Paris? [m]"},
    {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "18C, sunny"}]}
ANTHROPIC_HONOURED = {"messages": [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris? [m]"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                      {"type": "tool_use", "id": "call_1", "name": "get_weather",
                                       "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "18C, sunny"}]}]}
RESPONSES_HONOURED = {"input": [*TURN1["input"], *OUTPUT1, *TURN2["input"]]}
DOCUMENTED = Refusal(400, {"error": {"message": "no state here", "type": "invalid_request_error",
                                     "param": "previous_response_id", "code": "unsupported_parameter"}})


def _continuation(upstream: dict[str, Any] | None, dialect: str = "chat", refusal: Refusal | None = None,
                  policy: str = "either") -> list[str]:
    findings = Findings()
    check_continuation(findings, earlier=EARLIER, request=TURN2, upstream=upstream, upstream_dialect=dialect,
                       refusal=refusal, policy=policy)
    (result,) = findings.results()
    assert result.rule.id == "GW-STATE-001"
    return [v.message for v in result.violations]


@pytest.mark.parametrize(("dialect", "body"), [("chat", CHAT_HONOURED), ("anthropic", ANTHROPIC_HONOURED),
                                               ("responses", RESPONSES_HONOURED)])
def test_an_honoured_continuation_passes_in_every_upstream_dialect(dialect: str, body: dict[str, Any]) -> None:
    assert _continuation(body, dialect) == []
    assert _continuation(body, dialect, policy="honor") == []


def test_a_silently_dropped_previous_response_id_fails_naming_the_earlier_items() -> None:
    dropped = {"messages": [{"role": "tool", "tool_call_id": "call_1", "content": "18C, sunny"}]}
    messages = _continuation(dropped)
    assert len(messages) == 3
    assert "the user text \"Weather in Paris? [m]\" of the earlier turns is missing" in messages[0]
    assert "dropped previous_response_id silently" in messages[0]
    assert "the function call 'call_1' (get_weather) of the earlier turns is missing" in messages[2]


def test_a_duplicated_or_reordered_item_fails() -> None:
    doubled = {"messages": [*CHAT_HONOURED["messages"], CHAT_HONOURED["messages"][-1]]}
    assert _continuation(doubled) == ["the output of call 'call_1' of the new input is duplicated in the upstream "
                                      "request of the continuation"]
    swapped = {"messages": [CHAT_HONOURED["messages"][2], CHAT_HONOURED["messages"][1],
                            CHAT_HONOURED["messages"][3]]}
    assert any("the assistant text \"Checking.\" of the earlier turns is out of order" in m
               for m in _continuation(swapped))


def test_a_responses_upstream_may_get_the_id_it_issued_and_only_that() -> None:
    passed = {"previous_response_id": "resp_up_1", "input": TURN2["input"]}
    assert _continuation(passed, "responses") == []
    wrong = {"previous_response_id": "resp_front_1", "input": TURN2["input"]}
    (message,) = _continuation(wrong, "responses")
    assert 'names previous_response_id "resp_front_1", which is not the response the upstream issued' in message


def test_a_documented_refusal_passes_unless_the_policy_is_honor() -> None:
    assert _continuation(None, refusal=DOCUMENTED) == []
    assert _continuation(None, refusal=DOCUMENTED, policy="reject") == []
    (message,) = _continuation(None, refusal=DOCUMENTED, policy="honor")
    assert message.startswith("--policy stateful=honor: the gateway refused the continuation")


def test_an_honoured_continuation_fails_under_reject() -> None:
    (message,) = _continuation(CHAT_HONOURED, policy="reject")
    assert "--policy stateful=reject: the gateway called its upstream for a continuation" in message


@pytest.mark.parametrize(("refusal", "why"), [
    (Refusal(500, DOCUMENTED.body), "HTTP 500, not 400"),
    (Refusal(400, {"detail": "no"}), "not an OpenAI error object"),
    (Refusal(400, {"error": {"message": "no", "type": "invalid_request_error", "code": "unsupported_parameter"}}),
     "error.param is null"),
    (Refusal(400, {"error": {"message": "no", "type": "invalid_request_error", "param": "previous_response_id"}}),
     "error.code is null"),
    (Refusal(400, {"error": {"message": "no", "type": "server_error", "param": "previous_response_id",
                             "code": "unsupported_parameter"}}), 'error.type is "server_error"'),
])
def test_a_refusal_in_another_shape_fails_naming_what_it_lacks(refusal: Refusal, why: str) -> None:
    (message,) = _continuation(None, refusal=refusal)
    assert why in message and "docs/spec/stateful.md §1" in message


def test_a_websocket_error_event_is_a_refusal_without_a_status() -> None:
    flat = Refusal(None, {"type": "error", "message": "unknown", "param": "previous_response_id",
                          "code": "previous_response_not_found", "sequence_number": 0})
    nested = Refusal(None, {"type": "error", "status": 400, "error": {
        "message": "no state here", "type": "invalid_request_error", "param": "previous_response_id",
        "code": "unsupported_parameter"}})
    assert _continuation(None, refusal=flat) == []
    assert _continuation(None, refusal=nested) == []


def test_a_continuation_judged_under_another_rule_id() -> None:
    findings = Findings()
    check_continuation(findings, earlier=EARLIER, request=TURN2, upstream=CHAT_HONOURED, upstream_dialect="chat",
                       rule="GW-STATE-002")
    assert [r.rule.id for r in findings.results()] == ["GW-STATE-002"]


def _store(first: dict[str, Any] | None, dialect: str, continued: dict[str, Any] | None,
           refusal: Refusal | None) -> list[str]:
    findings = Findings()
    check_store(findings, request={"store": False, "input": "hi"}, first_upstream=first, upstream_dialect=dialect,
                continued=continued, refusal=refusal)
    (result,) = findings.results()
    return [v.message for v in result.violations]


def test_store_false_is_forwarded_and_its_response_not_continued() -> None:
    not_found = Refusal(400, {"error": {"message": "gone", "type": "invalid_request_error",
                                        "param": "previous_response_id", "code": "previous_response_not_found"}})
    assert _store({"store": False, "input": "hi"}, "responses", None, not_found) == []
    assert _store({"messages": []}, "chat", None, not_found) == []
    (message,) = _store({"input": "hi"}, "responses", None, not_found)
    assert "the Responses upstream got no store field" in message
    (message,) = _store({"store": False}, "chat", {"messages": [{"role": "user", "content": "again"}]}, None)
    assert "continued a response made with store: false" in message
    passed_on = {"store": False, "previous_response_id": "resp_up_1", "input": "again"}
    assert _store({"store": False, "input": "hi"}, "responses", passed_on, None) == []


ENCRYPTED = "gAAAAABo-ciphertext+/="
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": ENCRYPTED}
WITH_REASONING = {"model": "m", "store": False, "include": ["reasoning.encrypted_content"], "input": [
    TURN1["input"][0], REASONING, OUTPUT1[1], TURN2["input"][0]]}


def _reasoning(upstream: dict[str, Any] | None, dialect: str, refusal: Refusal | None = None,
               policy: str = "either") -> list[str]:
    findings = Findings()
    check_encrypted_reasoning(findings, request=WITH_REASONING, upstream=upstream, upstream_dialect=dialect,
                              refusal=refusal, policy=policy)
    (result,) = findings.results()
    assert result.rule.id == "GW-STATE-003"
    return [v.message for v in result.violations]


def test_encrypted_reasoning_passes_byte_for_byte_to_a_responses_upstream() -> None:
    same = {"include": ["reasoning.encrypted_content"], "input": WITH_REASONING["input"]}
    assert _reasoning(same, "responses", policy="honor") == []
    altered = {**same, "input": [TURN1["input"][0], {**REASONING, "encrypted_content": ENCRYPTED.strip("=")},
                                 OUTPUT1[1], TURN2["input"][0]]}
    assert "other encrypted_content than the client sent" in _reasoning(altered, "responses")[0]
    dropped = {**same, "input": [TURN1["input"][0], OUTPUT1[1], TURN2["input"][0]]}
    messages = _reasoning(dropped, "responses")
    assert "the reasoning item 'rs_1' (input[1]) is missing" in messages[0]
    assert "the encrypted reasoning" in messages[1] and "is missing" in messages[1]
    no_include = {"input": WITH_REASONING["input"]}
    assert "include reasoning.encrypted_content" in _reasoning(no_include, "responses")[0]


def test_a_chat_upstream_gets_the_other_items_and_never_the_ciphertext() -> None:
    calls = [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]
    chat = {"messages": [{"role": "user", "content": "Weather in Paris? [m]"},
                         {"role": "assistant", "content": None, "tool_calls": calls},
                         {"role": "tool", "tool_call_id": "call_1", "content": "18C, sunny"}]}
    assert _reasoning(chat, "chat") == []
    leaked = {"messages": [{"role": "assistant", "content": ENCRYPTED}, *chat["messages"]]}
    assert "the ciphertext of reasoning item input[1] reached the chat upstream" in _reasoning(leaked, "chat")[0]
    lost = {"messages": chat["messages"][:2]}
    assert "the output of call 'call_1' is missing" in _reasoning(lost, "chat")[0]


def test_a_reasoning_refusal_is_documented_or_fails() -> None:
    refused = Refusal(400, {"error": {"message": "no", "type": "invalid_request_error",
                                      "param": "input[1].encrypted_content", "code": "unsupported_parameter"}})
    assert _reasoning(None, "chat", refused) == []
    assert _reasoning(None, "chat", refused, policy="honor") == []
    assert "--policy stateful=honor" in _reasoning(None, "responses", refused, policy="honor")[0]
    assert 'error.param is "store"' in _reasoning(None, "responses", Refusal(400, {"error": {
        "message": "no", "type": "invalid_request_error", "param": "store", "code": "unsupported_parameter"}}))[0]


def test_entries_and_the_answers_output() -> None:
    assert entries_of("responses", {"input": "hi"}) == [("user", "hi")]
    assert entries_of("anthropic", {"messages": [{"role": "user", "content": "hi"}]}) == [("user", "hi")]
    completed = {"type": "response.completed", "response": {"id": "resp_1", "output": list(OUTPUT1)}}
    assert responses_output([{"type": "response.created", "response": {"id": "resp_1"}}, completed]) == (
        "resp_1", OUTPUT1)
    done = [{"type": "response.created", "response": {"id": "resp_1"}},
            {"type": "response.output_item.done", "item": OUTPUT1[1]}]
    assert responses_output(done) == ("resp_1", (OUTPUT1[1],))
    assert responses_output(body={"id": "resp_2", "output": [OUTPUT1[0]]}) == ("resp_2", (OUTPUT1[0],))
