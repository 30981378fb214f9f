"""The Chat Completions front checker (harness/check/_chat.py): incremental feeding, decoded chunks, the body rules,
and evidence that points at the chunk at fault. Every rule's broken capture: tests/examples/test_captures.py."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from callproof.harness import check_body, check_bytes, check_events
from tests.harness.check.support import CAPTURES, captures, decoded, fed_byte_by_byte, violations

PARALLEL = CAPTURES / "chat" / "openai" / "ok" / "parallel-calls.sse"


@pytest.mark.parametrize("path", [*captures("chat", "ok"), *captures("chat", "broken")], ids=lambda p: p.name)
def test_one_byte_at_a_time_gives_the_same_report(path: Path) -> None:
    data = path.read_bytes()
    assert violations(fed_byte_by_byte(data, "chat")) == violations(check_bytes(data, front="chat"))


def test_decoded_chunks_are_checked_without_framing_rules() -> None:
    """Decoded chunks carry no [DONE]: CHAT-FRAME-001 does not apply to them, like the SSE rules."""
    report = check_events(decoded(PARALLEL.read_bytes()), front="chat")
    assert report.kind == "events" and report.failed_rules == ()
    not_applicable = {r.rule.id for r in report.results if r.outcome == "not-applicable"}
    assert {"CHAT-FRAME-001", "SSE-001", "SSE-003"} <= not_applicable


def test_a_missing_finish_reason_is_caught_in_decoded_chunks() -> None:
    events = decoded(PARALLEL.read_bytes())
    finish = next(i for i, e in enumerate(events) if e["choices"] and e["choices"][0].get("finish_reason"))
    assert check_events(events[:finish] + events[finish + 1 :], front="chat").failed_rules == ("CHAT-FIN-001",)


def test_a_duplicate_call_id_points_at_the_second_call() -> None:
    events = copy.deepcopy(decoded(PARALLEL.read_bytes()))
    starts = [
        (index, call)
        for index, event in enumerate(events) if event["choices"]
        for call in event["choices"][0]["delta"].get("tool_calls", []) if "id" in call
    ]
    (_, first), (second_index, second) = starts
    second["id"] = first["id"]
    report = check_events(events, front="chat")
    assert report.failed_rules == ("CHAT-TC-004",)
    (violation,) = report.failed[0].violations
    assert violation.evidence.event_index == second_index
    assert violation.evidence.path == "$.choices[0].delta.tool_calls[0].id"


def test_body_rules_only_apply_to_bodies() -> None:
    (body,) = captures("chat", "ok", ".json")
    report = check_body(body.read_bytes(), front="chat")
    assert report.kind == "json" and report.failed_rules == ()
    applied = {r.rule.id for r in report.results if r.outcome != "not-applicable"}
    assert "CHAT-SCHEMA-002" in applied and not applied & {"CHAT-FRAME-001", "CHAT-FIN-001", "CHAT-SCHEMA-001"}


def test_a_finish_reason_without_index_is_named_where_it_is() -> None:
    """CHAT-FIN-001 names the chunk whose finish_reason has no `index` (and so belongs to no choice), not a choice
    that "never gets" one; CHAT-SCHEMA-001 reports the missing field itself."""
    events = copy.deepcopy(decoded(PARALLEL.read_bytes()))
    finish = next(i for i, e in enumerate(events) if e["choices"] and e["choices"][0].get("finish_reason"))
    del events[finish]["choices"][0]["index"]
    report = check_events(events, front="chat")
    assert set(report.failed_rules) == {"CHAT-FIN-001", "CHAT-SCHEMA-001"}
    (violation,) = next(r for r in report.failed if r.rule.id == "CHAT-FIN-001").violations
    assert violation.message == (
        f"choice 0 gets no finish_reason of its own: chunk #{finish} has finish_reason 'tool_calls' at "
        "$.choices[0] but no `index`, so it belongs to no choice (CHAT-SCHEMA-001 reports the missing field): send "
        "`index` on every choice")
    assert (violation.evidence.event_index, violation.evidence.path) == (finish, "$.choices[0].index")
    schema = next(r for r in report.failed if r.rule.id == "CHAT-SCHEMA-001").violations
    assert any(v.evidence.event_index == finish for v in schema)


def _errored(done: bool) -> bytes:
    """PARALLEL's first chunks, then an in-stream error object, with or without `data: [DONE]` after it."""
    head = PARALLEL.read_bytes().split(b"\n\n")[:3]
    error = b'data: {"error": {"message": "upstream died", "type": "server_error", "param": null, "code": null}}'
    return b"\n\n".join([*head, error, *([b"data: [DONE]"] if done else [])]) + b"\n\n"


@pytest.mark.parametrize("done", [False, True], ids=["error-last", "error-then-done"])
def test_a_stream_may_end_at_its_error_object_or_with_done_after_it(done: bool) -> None:
    """docs/spec/verdicts.md §11: CHAT-FRAME-001 passes a failed stream that ends at its error object (OpenAI's
    pattern, LiteLLM) and one that writes `data: [DONE]` after it (vLLM); neither owes a finish_reason."""
    report = check_bytes(_errored(done), front="chat")
    assert report.failed_rules == ()
    assert {r.rule.id: r.outcome for r in report.results}["CHAT-FRAME-001"] == "passed"


def test_a_stream_without_an_error_object_still_owes_its_done() -> None:
    """The exemption is the error object's: the same chunks cut with neither fail CHAT-FRAME-001 (and CHAT-FIN-001)."""
    cut = b"\n\n".join(PARALLEL.read_bytes().split(b"\n\n")[:3]) + b"\n\n"
    assert check_bytes(cut, front="chat").failed_rules == ("CHAT-FRAME-001", "CHAT-FIN-001")
