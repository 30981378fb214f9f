"""CLI-018 and CLI-019 on hand-made results: a custom tool call is handed on as a custom call with its input byte for
byte (not dropped, not a function call, not wrapped or re-serialised); reasoning never shows in the answer text, and
a reported `reasoning` equals the summary the stream carried."""

from __future__ import annotations

import json
from typing import Any

from callproof.harness.judge._client_items import check_client_items
from callproof.harness.judge._findings import Findings
from callproof.harness.outcome import Call, Result
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
PATCH = '*** Begin Patch\n*** Update File: a.py\n@@\n-print("hi")\n+print(\'hi\\n\')\n*** End Patch'
CUSTOM = Call("call_patch", "apply_patch", PATCH, kind="custom")
WIRE = Result("completed", "", (Call("call_w", "get_weather", '{"city":"Paris"}'), CUSTOM), "response.completed")


def _failed(reported: Result, wire: Result = WIRE, scenario: str = "one_call", printed: dict[str, Any] | None = None,
            dialect: str = "responses") -> dict[str, list[str]]:
    findings = Findings()
    check_client_items(findings, SCENARIOS[scenario], printed, reported, wire, dialect)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _checked(reported: Result, wire: Result = WIRE, scenario: str = "one_call") -> set[str]:
    findings = Findings()
    check_client_items(findings, SCENARIOS[scenario], None, reported, wire, "responses")
    return {r.rule.id for r in findings.results()}


def _reported(*calls: Call, text: str = "") -> Result:
    return Result("completed", text, calls, "adapter")


def test_a_custom_call_handed_on_as_it_came_passes_cli_018() -> None:
    assert _failed(_reported(WIRE.calls[0], CUSTOM)) == {}
    assert "CLI-018" in _checked(_reported(WIRE.calls[0], CUSTOM))
    # its call_id lost is CLI-004's business: the call is still found by its name
    assert _failed(_reported(WIRE.calls[0], Call(None, "apply_patch", PATCH, kind="custom"))) == {}


def test_a_custom_call_dropped_fails_cli_018() -> None:
    failed = _failed(_reported(WIRE.calls[0]))
    assert list(failed) == ["CLI-018"]
    message = failed["CLI-018"][0]
    assert "custom tool call apply_patch (call_id 'call_patch') is not in the adapter's tool_calls" in message


def test_a_custom_call_as_a_function_call_fails_cli_018_naming_the_wrapping() -> None:
    wrapped = Call("call_patch", "apply_patch", '{"input": ' + json.dumps(PATCH) + "}")
    failed = _failed(_reported(WIRE.calls[0], wrapped))
    assert 'a function call with its input wrapped as {"input": ...}' in failed["CLI-018"][0]
    lang = Call("call_patch", "apply_patch", '{"__arg1": ' + json.dumps(PATCH) + "}")
    assert 'wrapped as {"__arg1": ...}' in _failed(_reported(WIRE.calls[0], lang))["CLI-018"][0]
    plain = Call("call_patch", "apply_patch", PATCH)  # the raw text, but as a function call's arguments
    assert "a function call with arguments" in _failed(_reported(WIRE.calls[0], plain))["CLI-018"][0]


def test_a_custom_input_changed_fails_cli_018_at_its_first_difference() -> None:
    trimmed = Call("call_patch", "apply_patch", PATCH.replace("\\n", "\n"), kind="custom")
    failed = _failed(_reported(WIRE.calls[0], trimmed))
    assert "differs from the streamed input" in failed["CLI-018"][0]
    assert f"at character {PATCH.index(chr(92))}" in failed["CLI-018"][0]
    json_wire = Result("completed", "", (Call("c", "run_sql", '{"q": 1,  "x": [1, 2]}', kind="custom"),), "done")
    parsed = Call("c", "run_sql", '{"q": 1, "x": [1, 2]}', kind="custom")
    assert "the input was parsed and re-serialised" in _failed(_reported(parsed), json_wire)["CLI-018"][0]


def test_no_custom_call_on_the_wire_or_an_error_leaves_cli_018_unjudged() -> None:
    assert "CLI-018" not in _checked(_reported(WIRE.calls[0]), Result("completed", "", WIRE.calls[:1], "done"))
    errored = Result("error", "", (), "adapter", error="HTTP 500")
    assert "CLI-018" not in _checked(errored)


REASONING = "Simple arithmetic: 17 times 3 is 51."  # reasoning_before_text's reasoning
ANSWER = "17 \u00d7 3 = 51."


def test_reasoning_in_the_text_fails_cli_019() -> None:
    wire = Result("completed", ANSWER, (), "response.completed")
    assert _failed(_reported(text=ANSWER), wire, "reasoning_before_text") == {}
    failed = _failed(_reported(text=REASONING + ANSWER), wire, "reasoning_before_text")
    assert list(failed) == ["CLI-019"] and "holds the stream's reasoning" in failed["CLI-019"][0]
    # Chat carries no reasoning: nothing to judge
    findings = Findings()
    check_client_items(findings, SCENARIOS["reasoning_before_text"], None, _reported(text=ANSWER), wire, "chat")
    assert findings.results() == ()


def test_a_reported_reasoning_equals_the_streams_summary_cli_019() -> None:
    wire = Result("completed", ANSWER, (), "response.completed", reasoning="Part one.\n\nPart two.")
    ok = {"reasoning": "Part one.\n\nPart two."}
    assert _failed(_reported(text=ANSWER), wire, "reasoning_before_text", ok) == {}
    failed = _failed(_reported(text=ANSWER), wire, "reasoning_before_text", {"reasoning": "Part one."})
    assert 'the adapter reported reasoning "Part one."' in failed["CLI-019"][0]
    # null (or absent): the adapter does not expose reasoning, not judged
    assert _failed(_reported(text=ANSWER), wire, "one_call", {"reasoning": None}) == {}
