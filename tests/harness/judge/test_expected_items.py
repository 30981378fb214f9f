"""The expected outcome of the item scenarios (scenarios/items.json): a custom call must arrive as a custom call
with its input byte for byte (EXP-001 names the kinds, EXP-002 the input), and an expected refusal as a refusal,
not as answer text (EXP-005)."""

from __future__ import annotations

import pytest

from callproof.harness.judge import Findings, expected_outcome
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import CustomToolCall, bundled_scenarios

SCENARIOS = bundled_scenarios()
PATCH_SCENARIO = SCENARIOS["custom_tool_beside_function"]
READ = Call("call_read_1", "read_file", '{"path": "app/greet.py"}')
PATCH = next(o for o in PATCH_SCENARIO.output if isinstance(o, CustomToolCall)).input
REFUSAL = SCENARIOS["refusal_plain"].expect.refusal or ""


def _failed(scenario_id: str, result: Result) -> dict[str, list[str]]:
    findings = Findings()
    expected_outcome(findings, SCENARIOS[scenario_id].expect, result)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _calls(*calls: Call) -> Result:
    return Result("completed", "", calls, "response.completed")


def test_a_custom_call_with_its_raw_input_passes() -> None:
    assert _failed("custom_tool_beside_function", _calls(READ, Call("c", "apply_patch", PATCH, kind="custom"))) == {}


def test_a_custom_call_that_arrives_as_a_function_call_fails_exp_001_naming_the_kinds() -> None:
    wrapped = Call("c", "apply_patch", '{"input": ' + repr(PATCH) + "}")
    failed = _failed("custom_tool_beside_function", _calls(READ, wrapped))
    assert list(failed) == ["EXP-001"]
    assert "['function', 'function']" in failed["EXP-001"][0] and "['function', 'custom']" in failed["EXP-001"][0]


@pytest.mark.parametrize("mangled", [PATCH.replace("\\n", "\n"), PATCH.rstrip("\n"), PATCH.replace('"', "'")])
def test_a_custom_input_not_byte_for_byte_fails_exp_002(mangled: str) -> None:
    failed = _failed("custom_tool_apply_patch", _calls(Call("c", "apply_patch", mangled, kind="custom")))
    assert list(failed) == ["EXP-002"] and "byte for byte" in failed["EXP-002"][0]


def test_a_refusal_as_a_refusal_passes() -> None:
    assert _failed("refusal_plain", Result("completed", "", (), "response.completed", refusal=REFUSAL)) == {}


def test_a_refusal_as_answer_text_fails_exp_005() -> None:
    failed = _failed("refusal_plain", Result("completed", REFUSAL, (), "response.completed"))
    assert list(failed) == ["EXP-005"] and "arrived as answer text" in failed["EXP-005"][0]


def test_a_refusal_in_both_places_or_with_another_text_fails_exp_005() -> None:
    both = _failed("refusal_plain", Result("completed", REFUSAL, (), "response.completed", refusal=REFUSAL))
    other = _failed("refusal_plain", Result("completed", "", (), "response.completed", refusal="No."))
    assert list(both) == ["EXP-005"] and "again in the answer text" in both["EXP-005"][0]
    assert list(other) == ["EXP-005"] and "expected" in other["EXP-005"][0]
