"""The `xml-tool-text` run policy (harness/judge/_policy.py): the markup parsed out of a scenario's text, the
expectation under `convert`, and GW-XML-001 on hand-made results under both policies."""

from __future__ import annotations

import pytest

from callproof.harness.judge import XmlCall, check_xml_policy, expected_outcome, policy_expect, xml_tool_calls
from callproof.harness.judge._findings import Findings
from callproof.harness.outcome import Call, Result
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
PASS = {"xml-tool-text": "passthrough"}
CONVERT = {"xml-tool-text": "convert"}


def _failed(scenario: str, result: Result, policies: dict[str, str]) -> dict[str, list[str]]:
    findings = Findings()
    check_xml_policy(findings, SCENARIOS[scenario], result, policies)
    expected_outcome(findings, policy_expect(SCENARIOS[scenario], policies), result)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _text(text: str | None) -> Result:
    assert text is not None
    return Result("completed", text, (), "response.completed")


def test_both_markup_forms_are_parsed_in_order_and_cut_from_the_text() -> None:
    text = ('Checking.\n<function=get_weather>{"city": "Paris"}</function>\n'
            '<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call> done')
    calls, rest = xml_tool_calls(text)
    assert calls == (XmlCall("get_weather", '{"city": "Paris"}'), XmlCall("get_time", '{"tz": "CET"}'))
    assert rest == "Checking.\n\n done"


def test_markup_without_json_stays_text() -> None:
    text = "<function=f>not json</function> and <tool_call>{\"arguments\": {}}</tool_call>"
    assert xml_tool_calls(text) == ((), text)


@pytest.mark.parametrize("scenario", ["xml_tool_text", "xml_tool_call_tag_text", "xml_tool_text_two_calls",
                                      "xml_tool_text_split_mid_tag"])
def test_passthrough_expects_the_text_verbatim_and_no_call(scenario: str) -> None:
    text = SCENARIOS[scenario].expect.text
    assert text is not None
    assert policy_expect(SCENARIOS[scenario], PASS) is SCENARIOS[scenario].expect
    assert _failed(scenario, _text(text), PASS) == {}
    calls, rest = xml_tool_calls(text)
    converted = Result("completed", rest, tuple(Call(f"call_{i}", c.name, c.arguments) for i, c in enumerate(calls)),
                       "response.completed")
    failed = _failed(scenario, converted, PASS)
    assert set(failed) == {"GW-XML-001", "EXP-001", "EXP-003"}
    assert failed["GW-XML-001"][0].startswith("--policy xml-tool-text=passthrough: the answer holds the tool calls "
                                              "['get_weather")


def test_convert_expects_the_calls_the_markup_holds() -> None:
    expect = policy_expect(SCENARIOS["xml_tool_text_two_calls"], CONVERT)
    assert expect.text is None
    assert [dict(c) for c in expect.tool_calls] == [
        {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"name": "get_weather", "arguments": '{"city": "Tokyo", "unit": "celsius"}'}]
    # the arguments are compared parsed; the text around the blocks is kept, its surrounding whitespace not judged
    good = Result("completed", "Checking both cities.", (
        Call("a", "get_weather", '{"city":"Paris"}'), Call("b", "get_weather", '{"unit":"celsius","city":"Tokyo"}')),
        "response.completed")
    assert _failed("xml_tool_text_two_calls", good, CONVERT) == {}


def test_convert_fails_kept_markup_missing_calls_and_lost_text() -> None:
    scenario = SCENARIOS["xml_tool_text_split_mid_tag"]
    kept = _failed("xml_tool_text_split_mid_tag", _text(scenario.expect.text), CONVERT)
    assert set(kept) == {"GW-XML-001", "EXP-001"}
    assert kept["GW-XML-001"][0].startswith(
        "--policy xml-tool-text=convert: the answer holds the tool calls [], expected the calls the markup holds, "
        '[["get_weather", {"city": "Lyon"}]]')
    assert kept["GW-XML-001"][1].startswith(
        "--policy xml-tool-text=convert: the visible text still holds the markup '<function=' at character 21: ")
    call = (Call("a", "get_weather", '{"city": "Lyon"}'),)
    lost = _failed("xml_tool_text_split_mid_tag", Result("completed", "Let me look that up.", call, "x"), CONVERT)
    assert list(lost) == ["GW-XML-001"]
    assert "expected the upstream's text without the markup" in lost["GW-XML-001"][0]
    assert _failed("xml_tool_text_split_mid_tag",
                   Result("completed", " Let me look that up.  One moment.\n", call, "x"), CONVERT) == {}


def test_scenarios_outside_the_policy_are_left_alone() -> None:
    scenario = SCENARIOS["one_call"]
    assert policy_expect(scenario, CONVERT) is scenario.expect
    findings = Findings()
    check_xml_policy(findings, scenario, _text("<function=f>{}</function>"), CONVERT)
    assert findings.results() == ()
