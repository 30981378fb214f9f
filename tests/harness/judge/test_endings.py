"""How a turn ends (docs/spec/verdicts.md §5, §6; harness/judge/_endings.py): a content filter reported as a refusal
fails GW-FAULT-004 in the stream and in the non-stream body, at each front; GW-EQ-001 compares the stop reason, text
and calls of the two forms, not the refusal an Anthropic body alone adds with `stop_details`; a real disagreement
still fails it. Hand-made answers; tests/harness/run/test_edge_verdicts.py plays the fakes of
tests/fakes/edge_gateways.py."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import (
    Findings,
    FrontAnswer,
    as_filtered,
    check_ending,
    check_equivalence,
    expected_outcome,
    read_answer,
)
from callproof.harness.outcome import Chunk, Exchange, reads_as_refusal
from callproof.harness.scenario import Scenario
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
FILTERED = SCENARIOS["content_filter_text"]
TEXT = "Here is how you"  # what the upstream's content filter cut (content_filter_text)
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def _sse(events: list[dict[str, Any]], *, done: bool = False) -> bytes:
    text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + ("data: [DONE]\n\n" if done else "")
    return text.encode()


def _answer(front: Dialect, body: bytes, headers: dict[str, str]) -> FrontAnswer:
    return read_answer(Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, 200, headers, (Chunk(0.0, body),)), "openai",
                       front)


def anthropic(text: str = TEXT, stop: str = "refusal", *, details: bool = False, stream: bool = True) -> FrontAnswer:
    """A message with one text block (none for ""), its stop_reason, with `stop_details` of type refusal or none."""
    extra: dict[str, Any] = {"stop_details": {"type": "refusal", "category": None, "explanation": None}} \
        if details else {}
    if not stream:
        content = [{"type": "text", "text": text}] if text else []
        return _answer("anthropic", json.dumps({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
            **extra}).encode(), JSON)
    blocks: list[dict[str, Any]] = [] if not text else [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0}]
    return _answer("anthropic", _sse([
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        *blocks, {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None, **extra},
                  "usage": {"output_tokens": 1}},
        {"type": "message_stop"}]), SSE)


def responses(text: str = TEXT, *, refusal: bool = False, status: str = "incomplete",
              stream: bool = True) -> FrontAnswer:
    """A response whose message holds `text` as output_text, or as a refusal part."""
    part = {"type": "refusal", "refusal": text} if refusal else {"type": "output_text", "text": text,
                                                                 "annotations": []}
    response = {"id": "resp_1", "object": "response", "status": status,
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "incomplete",
                            "content": [part]}],
                "incomplete_details": {"reason": "content_filter"} if status == "incomplete" else None}
    if not stream:
        return _answer("responses", json.dumps(response).encode(), JSON)
    return _answer("responses", _sse([{"type": f"response.{status}", "sequence_number": 0, "response": response}]),
                   SSE)


def chat(text: str = TEXT, *, refusal: bool = False, finish: str = "content_filter",
         stream: bool = True) -> FrontAnswer:
    """A completion holding `text` as content, or as the refusal."""
    key = "refusal" if refusal else "content"
    if not stream:
        message = {"role": "assistant", "content": None, "refusal": None, key: text}
        return _answer("chat", json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                           "choices": [{"index": 0, "message": message,
                                                        "finish_reason": finish}]}).encode(), JSON)
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return _answer("chat", _sse([{**chunk, "choices": [{"index": 0, "delta": {key: text}, "finish_reason": None}]},
                                 {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}],
                                done=True), SSE)


def _ending(scenario: Scenario, answer: FrontAnswer, *, twin: bool = False) -> list[tuple[str, str | None]]:
    """GW-FAULT-004's violations on one answer: (message, evidence path)."""
    findings = Findings()
    check_ending(findings, scenario, answer, twin=twin)
    (result,) = findings.results()
    assert result.rule.id == "GW-FAULT-004"
    return [(v.message, v.evidence.path) for v in result.violations]


#: (front, a faithful content filter's ending, the same reported as a refusal, where the refusal is), per form.
def _pairs() -> list[Any]:
    rows = []
    for stream in (True, False):
        form = "stream" if stream else "body"
        rows += [
            pytest.param("anthropic", anthropic(stream=stream), anthropic(details=True, stream=stream),
                         "$.delta.stop_details" if stream else "$.stop_details", id=f"anthropic-{form}"),
            pytest.param("responses", responses(stream=stream), responses(refusal=True, stream=stream),
                         ("$.response" if stream else "$") + ".output[?(@.type=='message')].content"
                         "[?(@.type=='refusal')]", id=f"responses-{form}"),
            pytest.param("chat", chat(stream=stream), chat(refusal=True, stream=stream),
                         "$.choices[0].delta.refusal" if stream else "$.choices[0].message.refusal", id=f"chat-{form}"),
        ]
    return rows


@pytest.mark.parametrize(("front", "faithful", "refused", "path"), _pairs())
def test_a_content_filter_reported_as_a_refusal_fails_gw_fault_004(front: str, faithful: FrontAnswer,
                                                                   refused: FrontAnswer, path: str) -> None:
    """§6: the front's stop reason is the content filter's, but the answer says the model refused: one finding,
    naming where the refusal is; the faithful answer passes."""
    assert _ending(FILTERED, faithful) == []
    [(message, at)] = _ending(FILTERED, refused)
    assert at == path
    assert "the upstream's content filter cut the turn; the front reported the model refusing instead" in message
    assert "a refusal and a content filter are distinct endings" in message and f'text "{TEXT}"' in message


def test_the_non_stream_response_is_named_and_judged_in_its_own_terms() -> None:
    """The twin (the non-stream response to the same request) is judged by GW-FAULT-004 too, its message saying so,
    with the body's paths; a wrong stop reason there is named like the stream's."""
    [(message, path)] = _ending(FILTERED, anthropic(details=True, stream=False), twin=True)
    assert message.startswith("the non-stream response: the upstream's content filter cut the turn")
    assert path == "$.stop_details"
    [(message, path)] = _ending(FILTERED, anthropic(stop="end_turn", stream=False), twin=True)
    assert message == ("the non-stream response: the upstream finished with content_filter; the front ended "
                       "completed (by stop_reason end_turn), expected stop_reason 'refusal'")
    assert path == "$.stop_reason"


def test_an_anthropic_refusal_without_text_is_still_a_refusal() -> None:
    """content_filter_no_output: stop_details of type refusal with no text block is the model refusing."""
    scenario = SCENARIOS["content_filter_no_output"]
    assert _ending(scenario, anthropic("")) == []
    [(message, path)] = _ending(scenario, anthropic("", details=True))
    assert path == "$.delta.stop_details" and "text" not in message.split("instead (")[1].split(")")[0]


def test_a_refusal_with_another_stop_reason_fails_both_ways() -> None:
    """A Responses answer `completed` with a refusal part has another stop reason as well: two findings."""
    messages = [m for m, _ in _ending(FILTERED, responses(refusal=True, status="completed"))]
    assert len(messages) == 2 and "the front ended completed" in messages[0]


def test_a_refusal_the_upstream_made_is_not_a_content_filter_finding() -> None:
    """A scenario whose output holds the model's refusal: the front's refusal is right, not a content filter's
    ending misreported (its stop reason is judged as before)."""
    scenario = dataclasses.replace(SCENARIOS["refusal_plain"], ending="content_filter")
    answer = anthropic(details=True)
    assert reads_as_refusal(answer.result)
    assert as_filtered(scenario, answer.result) == answer.result
    assert [m for m, _ in _ending(scenario, answer) if "refusing" in m] == []


def _equivalence(streamed: FrontAnswer, plain: FrontAnswer, scenario: Scenario | None = FILTERED) -> list[str]:
    findings = Findings()
    check_equivalence(findings, streamed.result, plain, scenario.expect if scenario else None, scenario=scenario)
    (result,) = findings.results()
    return [v.message for v in result.violations]


def test_gw_eq_001_passes_a_body_that_alone_adds_stop_details() -> None:
    """§5: stream and body agree on the text and stop_reason "refusal"; the body alone adds stop_details of type
    refusal. GW-EQ-001 passes (GW-FAULT-004 judges the body's refusal); without the scenario (as before), the two
    read as different endings."""
    streamed, plain = anthropic(), anthropic(details=True, stream=False)
    assert _equivalence(streamed, plain) == []
    assert _equivalence(streamed, plain, None) != []
    assert _equivalence(responses(), responses(refusal=True, stream=False)) == []
    assert _equivalence(chat(), chat(refusal=True, stream=False)) == []


def test_gw_eq_001_passes_refusal_words_one_half_adds_after_its_text() -> None:
    """§5, as llm-rosetta answers: the non-stream message keeps the stream's text and adds a refusal ("Request
    refused by model."); that refusal is GW-FAULT-004's finding alone, not a second one by GW-EQ-001. Other text
    beside it still differs."""
    def added(text: str) -> FrontAnswer:
        message = {"role": "assistant", "content": text, "refusal": "Request refused by model."}
        return _answer("chat", json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                           "choices": [{"index": 0, "message": message,
                                                        "finish_reason": "content_filter"}]}).encode(), JSON)

    assert _equivalence(chat(), added(TEXT)) == []
    [message] = _equivalence(chat(), added("Here"))
    assert message.startswith("the non-stream response differs from the stream in text")


@pytest.mark.parametrize(("plain", "differ"), [
    (anthropic(stop="end_turn", stream=False), "status"),
    (anthropic("Here is how", stream=False), "text"),
    (anthropic("Here is how", details=True, stream=False), "text"),
    (responses("Here", stream=False), "text"),
    (chat(finish="stop", stream=False), "status"),
])
def test_gw_eq_001_still_fails_a_real_disagreement(plain: FrontAnswer, differ: str) -> None:
    """§5: a different stop reason or different text is still GW-EQ-001's, blaming the half that differs from the
    scenario's expected outcome."""
    streamed = anthropic() if plain.front == "anthropic" else responses() if plain.front == "responses" else chat()
    [message] = _equivalence(streamed, plain)
    assert message.startswith(f"the non-stream response differs from the stream in {differ}")
    assert "the non-stream response differs from the scenario's expected outcome, the stream matches it" in message


def test_a_refusal_the_upstream_made_is_still_compared_as_one() -> None:
    """Not a content filter's ending: a body that turns the model's refusal into a content filter (drops the
    stop_details the stream carried) still fails GW-EQ-001."""
    scenario = SCENARIOS["refusal_plain"]
    refusal = scenario.expect.refusal
    assert refusal is not None
    assert _equivalence(anthropic(refusal, details=True), anthropic(refusal, stream=False), scenario) != []


def test_the_expected_outcome_reads_the_refusal_as_the_content_filters_ending() -> None:
    """The expected group (gateway mode) judges what the answer holds as the content filter's ending: the words and
    the stop reason pass, the refusal is GW-FAULT-004's alone."""
    for answer in (anthropic(details=True), responses(refusal=True), chat(refusal=True)):
        findings = Findings()
        expected_outcome(findings, FILTERED.expect, as_filtered(FILTERED, answer.result))
        assert [r.rule.id for r in findings.results() if r.outcome == "failed"] == [], answer.front
        findings = Findings()
        expected_outcome(findings, FILTERED.expect, answer.result)
        assert [r.rule.id for r in findings.results() if r.outcome == "failed"], answer.front
