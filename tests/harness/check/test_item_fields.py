"""The streamed item fields beyond function calls and message text (RSP-ITEM-001..009, docs/spec/responses.md §2.6):
the bundled captures are what tests/harness/check/item_wire.py builds, every event of the correct ones is valid for
both our schemas and the SDK's `ResponseStreamEvent`, the issue's stream fails RSP-ITEM-001 through `callproof
check`, and each lifecycle, identity and final-response defect fails its one rule."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pydantic
import pytest
from openai.types.responses import ResponseStreamEvent

from callproof.harness import check_body, check_events
from callproof.harness.check import schema_store
from callproof.harness.cli import main
from tests.harness.check.item_wire import BROKEN, OK, OPENAI, Event, Stream, custom_call, reasoning, shell_call, sse

SDK_EVENT: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)


def _failed(events: list[Event]) -> tuple[str, ...]:
    return check_events(events, front="responses", profile="openai").failed_rules


def _messages(events: list[Event], rule: str) -> list[str]:
    report = check_events(events, front="responses", profile="openai")
    return [v.message for r in report.failed if r.rule.id == rule for v in r.violations]


def _build(*steps: Callable[[Stream], None]) -> list[Event]:
    s = Stream()
    for step in steps:
        step(s)
    return s.completed()


def _renumbered(events: list[Event]) -> list[Event]:
    for n, event in enumerate(events):
        event["sequence_number"] = n
    return events


# -- the captures ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OK))
def test_ok_capture_is_what_the_builder_writes(name: str) -> None:
    written = (OPENAI / "ok" / f"items-{name}.sse").read_bytes()
    assert written == sse(OK[name]()), "run python -m tests.harness.check.item_wire"


@pytest.mark.parametrize("stem", sorted(BROKEN))
def test_broken_capture_is_what_the_builder_writes(stem: str) -> None:
    assert (OPENAI / "broken" / f"{stem}.sse").read_bytes() == sse(BROKEN[stem][0]())


@pytest.mark.parametrize("name", sorted(OK))
def test_every_event_of_an_ok_stream_is_valid_for_our_schemas_and_the_sdk(name: str) -> None:
    validators = schema_store().front("responses", "openai").events
    for event in OK[name]():
        errors = validators[event["type"]].errors(event)
        assert errors == [], f"{event['type']}: {[str(e) for e in errors]}"
        parsed = SDK_EVENT.validate_python(event)
        assert parsed.type == event["type"]


def test_the_sdk_rejects_what_our_schema_rejects() -> None:
    """The double validation is not vacuous: an event without its content fails both."""
    event = OK["custom-tool-call"]()[3]
    assert event["type"] == "response.custom_tool_call_input.delta"
    broken = {k: v for k, v in event.items() if k != "delta"}
    assert schema_store().front("responses", "openai").events[event["type"]].errors(broken)
    with pytest.raises(pydantic.ValidationError):
        SDK_EVENT.validate_python(broken)


@pytest.mark.parametrize("stem", sorted(BROKEN))
def test_broken_stream_fails_its_rule_alone(stem: str) -> None:
    build, rules = BROKEN[stem]
    assert _failed(build()) == rules


def test_the_issue_stream_fails_rsp_item_001_in_callproof_check(capsys: pytest.CaptureFixture[str]) -> None:
    path = OPENAI / "broken" / "RSP-ITEM-001--custom-input-done-differs.sse"
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL RSP-ITEM-001 [MUST]" in out and "NOT conformant: 1 MUST" in out
    assert '"rm -rf /"' in out and '"echo hello"' in out and '"echo bye"' in out
    assert "$.input" in out and "$.item.input" in out and "custom tool input" in out
    assert "fix: Send every input fragment as a custom_tool_call_input.delta" in out


# -- lifecycle (RSP-ITEM-009) ------------------------------------------------------------------------------------
def _second_done(events: list[Event]) -> list[Event]:
    done = next(e for e in events if e["type"] == "response.custom_tool_call_input.done")
    events.insert(events.index(done) + 1, copy.deepcopy(done))
    return _renumbered(events)


def _without(etype: str, **match: Any) -> Callable[[list[Event]], list[Event]]:
    def drop(events: list[Event]) -> list[Event]:
        return _renumbered([e for e in events if not (e["type"] == etype and all(e.get(k) == v
                                                                                 for k, v in match.items()))])
    return drop


def _audio_after_done(events: list[Event]) -> list[Event]:
    audio = [{"type": "response.audio.delta", "delta": "UklGRg=="}, {"type": "response.audio.done"},
             {"type": "response.audio.delta", "delta": "AAAA"}]
    return _renumbered(events[:-1] + audio + events[-1:])


def _transcript_done_twice(events: list[Event]) -> list[Event]:
    extra = [{"type": "response.audio.transcript.delta", "delta": "hi"}, {"type": "response.audio.transcript.done"},
             {"type": "response.audio.transcript.done"}]
    return _renumbered(events[:-1] + extra + events[-1:])


LIFECYCLE: dict[str, tuple[Callable[[], list[Event]], str]] = {
    "a second done": (lambda: _second_done(OK["custom-tool-call"]()), "a second"),
    "a command never added": (lambda: _without("response.shell_call_command.added", command_index=1)(
        OK["shell-call"]()), "never added"),
    "a summary part never added": (lambda: _without("response.reasoning_summary_part.added", summary_index=0)(
        OK["reasoning"]()), "never added"),
    "a field open at its item's done": (lambda: _without("response.mcp_call_arguments.done")(OK["mcp-call"]()),
                                        "still open"),
    "a summary part never done": (lambda: _without("response.reasoning_summary_part.done", summary_index=1)(
        OK["reasoning"]()), "no part done event"),
    "an annotation after its part is done": (lambda: _annotation_late(), "after its content_part.done"),
    "an audio delta after audio.done": (lambda: _audio_after_done(OK["custom-tool-call"]()), "after its done"),
    "a second audio.transcript.done": (lambda: _transcript_done_twice(OK["custom-tool-call"]()), "a second"),
}


def _annotation_late() -> list[Event]:
    events = OK["annotations"]()
    last = max(i for i, e in enumerate(events) if e["type"] == "response.output_text.annotation.added")
    moved = events.pop(last)
    part_done = next(i for i, e in enumerate(events) if e["type"] == "response.content_part.done")
    events.insert(part_done + 1, moved)
    return _renumbered(events)


#: A late annotation also leaves the part's done event without it: RSP-ITEM-008 as well, by construction.
ALSO = {"an annotation after its part is done": ("RSP-ITEM-008",)}


@pytest.mark.parametrize("case", sorted(LIFECYCLE))
def test_a_lifecycle_defect_fails_rsp_item_009(case: str) -> None:
    build, says = LIFECYCLE[case]
    events = build()
    assert _failed(events) == (*ALSO.get(case, ()), "RSP-ITEM-009")
    assert any(says in m for m in _messages(events, "RSP-ITEM-009")), _messages(events, "RSP-ITEM-009")


# -- identity ----------------------------------------------------------------------------------------------------
def test_an_event_naming_an_item_of_another_type_fails_rsp_id_001() -> None:
    events = OK["mcp-call"]()
    for event in events:
        if event["type"] == "response.mcp_call_arguments.delta":
            event["type"] = "response.custom_tool_call_input.delta"
    assert _failed(events) == ("RSP-ID-001", "RSP-ITEM-002")  # the MCP arguments lost their deltas too
    assert any("not a 'custom_tool_call'" in m for m in _messages(events, "RSP-ID-001"))


def test_custom_and_shell_call_ids_are_claimed_like_function_calls() -> None:
    events = _build(lambda s: custom_call(s, ["a"], call_id="call_same"),
                    lambda s: custom_call(s, ["b"], call_id="call_same"))
    assert _failed(events) == ("RSP-ID-008",)
    shell = _build(lambda s: custom_call(s, ["a"], call_id="call_shell_1"), lambda s: shell_call(s, [["ls"]]))
    assert _failed(shell) == ("RSP-ID-008",)


def test_a_custom_call_id_that_changes_on_done_fails_rsp_id_006() -> None:
    events = OK["custom-tool-call"]()
    done = next(e for e in events if e["type"] == "response.output_item.done")
    done["item"]["call_id"] = "call_other"
    events[-1]["response"]["output"][0]["call_id"] = "call_other"
    assert _failed(events) == ("RSP-ID-006",)


def test_a_non_stream_body_with_duplicate_custom_call_ids_fails_rsp_id_008() -> None:
    response = OK["custom-tool-call"]()[-1]["response"]
    response["output"].append({**response["output"][0], "id": "ctc_second"})
    body = json.dumps(response).encode()
    assert check_body(body, front="responses", profile="openai").failed_rules == ("RSP-ID-008",)


# -- the terminal response (RSP-ID-011 holds for these items) ----------------------------------------------------
@pytest.mark.parametrize(("name", "key", "value"), [
    ("custom-tool-call", "input", "echo bye"),
    ("mcp-call", "arguments", "{}"),
    ("code-interpreter", "code", "print(3)"),
    ("reasoning", "encrypted_content", "gAAAAAchanged"),
])
def test_a_final_item_that_differs_from_its_done_item_fails_rsp_id_011(name: str, key: str, value: str) -> None:
    events = OK[name]()
    events[-1]["response"]["output"][-1][key] = value
    assert _failed(events) == ("RSP-ID-011",)


def test_annotations_dropped_from_the_stream_fail_rsp_item_008() -> None:
    events = _without("response.output_text.annotation.added")(OK["annotations"]())
    assert _failed(events) == ("RSP-ITEM-008",)
    assert any("the annotation.added events gave []" in m for m in _messages(events, "RSP-ITEM-008"))


def test_a_summary_text_changed_only_in_the_item_fails_rsp_item_006() -> None:
    events = _build(lambda s: reasoning(s, [["Look ", "first."]]))
    for event in events:
        if event["type"] == "response.output_item.done":
            event["item"]["summary"][0]["text"] = "Look later."
    events[-1]["response"]["output"][0]["summary"][0]["text"] = "Look later."
    assert _failed(events) == ("RSP-ITEM-006",)
    assert any("item.summary[0].text" in m for m in _messages(events, "RSP-ITEM-006"))


def test_open_responses_reasoning_events_are_reassembled_too() -> None:
    """Open Responses streams reasoning text as response.reasoning.delta / .done: the same rule (RSP-ITEM-005)."""
    def renamed(text_done: str | None) -> list[Event]:
        events = _build(lambda s: reasoning(s, [["Short."]], text=["Let me ", "think."], text_done=text_done))
        for event in events:
            event["type"] = event["type"].replace("response.reasoning_text.", "response.reasoning.")
        return events

    def failed(events: list[Event]) -> set[str]:
        return set(check_events(events, front="responses", profile="open-responses").failed_rules)

    correct = failed(renamed(None))
    assert "RSP-ITEM-005" not in correct
    assert failed(renamed("Let me think!")) == correct | {"RSP-ITEM-005"}
