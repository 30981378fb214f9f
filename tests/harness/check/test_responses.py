"""The Responses front checker (harness/check/_responses.py): its stream and body rules through the check entry
points, profile differences, and arguments streamed in more deltas than one joined run holds (the checker joins
deltas in runs to bound memory)."""

from __future__ import annotations

import json
from typing import Any

from callproof.harness import check_body, check_bytes, check_events
from tests.harness.check.support import CAPTURES, captures, decoded

OK = captures("responses", "ok")
ONE_CALL = CAPTURES / "responses" / "openai" / "ok" / "one-call.sse"
ARGUMENTS = json.dumps({"note": "abcdefghij" * 100})  # 1,012 characters: one delta each, several joined runs


def test_decoded_events_still_fail_stream_rules() -> None:
    events = decoded(OK[0].read_bytes())
    report = check_events(events[:-1])  # the terminal event dropped
    assert report.failed_rules == ("RSP-LIFE-002",)


def test_body_rules_only_apply_to_bodies() -> None:
    (body,) = captures("responses", "ok", ".json")
    report = check_body(body.read_bytes())
    assert report.kind == "json" and report.conformant and report.failed_rules == ()
    applied = {r.rule.id for r in report.results if r.outcome != "not-applicable"}
    assert "RSP-SCHEMA-003" in applied and "RSP-SEQ-003" not in applied


def test_lenient_accepts_the_open_responses_error_then_failed_ending() -> None:
    capture = CAPTURES / "responses" / "open-responses" / "ok" / "error-then-failed.sse"
    data = capture.read_bytes().replace(b"data: [DONE]\n\n", b"")
    assert check_bytes(data, profile="lenient").failed_rules == ()
    assert "RSP-LIFE-003" in check_bytes(data, profile="openai").failed_rules


def _one_call(deltas: list[str], done: str) -> list[dict[str, Any]]:
    """one-call.sse with the call's argument deltas and final arguments replaced, sequence numbers renumbered."""
    events: list[dict[str, Any]] = decoded(ONE_CALL.read_bytes())
    first = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta")
    template = events[first]
    kept = [e for e in events if e["type"] != "response.function_call_arguments.delta"]
    rebuilt = kept[:first] + [{**template, "delta": d} for d in deltas] + kept[first:]
    for seq, event in enumerate(rebuilt):
        event["sequence_number"] = seq
        if event["type"] == "response.function_call_arguments.done":
            event["arguments"] = done
        elif event["type"] == "response.output_item.done":
            event["item"]["arguments"] = done
        elif event["type"] == "response.completed":
            for item in event["response"]["output"]:
                if item["type"] == "function_call":
                    item["arguments"] = done
    return rebuilt


def test_a_thousand_deltas_join_to_the_done_arguments() -> None:
    report = check_events(_one_call(list(ARGUMENTS), ARGUMENTS))
    assert report.conformant, report.failed_rules


def test_a_difference_after_many_deltas_is_caught_and_the_deltas_counted() -> None:
    deltas = list(ARGUMENTS)
    deltas[700] = "X"
    report = check_events(_one_call(deltas, ARGUMENTS))
    failed = {r.rule.id: r for r in report.failed}
    assert "RSP-ARGS-001" in failed
    assert f"the {len(ARGUMENTS)} joined deltas" in failed["RSP-ARGS-001"].violations[0].message


TEXT_ONLY = CAPTURES / "responses" / "openai" / "ok" / "text-only.sse"


def _final_changed(path: Any, change: Any, etype: str = "response.completed") -> list[dict[str, Any]]:
    events = decoded(path.read_bytes())
    final = next(e for e in events if e["type"] == etype)
    change(final["response"])
    return events


def test_final_items_are_compared_field_by_field_with_the_done_items() -> None:
    def annotate(response: dict[str, Any]) -> None:
        response["output"][0]["content"][0]["annotations"] = [{"type": "url_citation", "url": "https://x.test",
                                                               "title": "x", "start_index": 0, "end_index": 1}]
    report = check_events(_final_changed(TEXT_ONLY, annotate))
    assert report.failed_rules == ("RSP-ID-011",)
    evidence = report.failed[0].violations[0].evidence
    assert evidence.path == "$.response.output[0].content[0].annotations" and evidence.expected == []

    events = decoded(TEXT_ONLY.read_bytes())
    next(e for e in events if e["type"] == "response.output_item.done")["item"]["x_trace"] = "t1"
    report = check_events(events)  # an extra key the done item carried and the final item lacks
    assert report.failed_rules == ("RSP-ID-011",) and "missing" in report.failed[0].violations[0].message


def test_a_field_another_rule_compares_fails_only_that_rule() -> None:
    def retext(response: dict[str, Any]) -> None:
        response["output"][0]["content"][0]["text"] = "something else"
    assert check_events(_final_changed(TEXT_ONLY, retext)).failed_rules == ("RSP-TEXT-002",)

    def rename(response: dict[str, Any]) -> None:
        response["output"][0]["name"] = "get_time"
    assert check_events(_final_changed(ONE_CALL, rename)).failed_rules == ("RSP-ID-007",)


def test_a_failed_response_is_compared_for_the_items_it_lists() -> None:
    events = [e for e in decoded(ONE_CALL.read_bytes()) if e["type"] != "response.completed"]
    done = next(e for e in events if e["type"] == "response.output_item.done")
    response = {**events[0]["response"], "status": "failed", "error": {"code": "server_error", "message": "boom"},
                "output": [{**done["item"], "status": "in_progress"}]}
    failed: dict[str, Any] = {"type": "response.failed", "sequence_number": len(events), "response": response}
    assert check_events([*events, failed]).failed_rules == ("RSP-ID-011",)
    failed["response"]["output"] = []
    assert check_events([*events, failed]).failed_rules == ()


def test_a_completed_body_with_an_incomplete_item_fails() -> None:
    body = json.loads((CAPTURES / "responses" / "openai" / "ok" / "text-and-calls.json").read_text())
    body["output"][-1]["status"] = "incomplete"
    report = check_body(json.dumps(body).encode())
    assert report.failed_rules == ("RSP-LIFE-011",)
    assert report.failed[0].violations[0].evidence.path == f"$.output[{len(body['output']) - 1}].status"
    body["status"], body["incomplete_details"] = "incomplete", {"reason": "max_output_tokens"}
    assert check_body(json.dumps(body).encode()).failed_rules == ()


def _terminal_item(events: list[dict[str, Any]]) -> dict[str, Any]:
    terminal = next(e for e in events if e["type"] == "response.completed")
    item: dict[str, Any] = terminal["response"]["output"][0]
    return item


def test_a_terminal_snapshot_equal_to_the_done_items_passes() -> None:
    # Its output is validated once, on the done events; the snapshot itself still validates without it.
    events = decoded(ONE_CALL.read_bytes())
    assert check_events(events).failed_rules == ()
    next(e for e in events if e["type"] == "response.completed")["response"]["status"] = 5
    report = check_events(events)
    assert "RSP-SCHEMA-001" in report.failed_rules
    assert any(v.evidence.path == "$.response.status" for r in report.failed for v in r.violations)


def test_a_terminal_snapshot_item_that_differs_from_its_done_item_is_validated() -> None:
    events = decoded(ONE_CALL.read_bytes())
    _terminal_item(events)["name"] = ""  # valid on its done event; invalid (minLength 1) in the snapshot only
    report = check_events(events)
    found = [(v.rule, v.evidence.path) for r in report.failed for v in r.violations if "(schema " in v.message]
    assert found == [("RSP-ID-005", "$.response.output[0].name")]
