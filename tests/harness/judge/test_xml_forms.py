"""The `xml-tool-text` policy on the markup forms beyond a JSON body (docs/spec/contracts.md §7.11): the parameter
form, a block left open at the end or cut by the length limit, a block naming a tool the request did not offer
(GW-XML-002). Hand-made results here; real converters in the mutation table (tests/fakes/xml_tool_text.py)."""

from __future__ import annotations

from callproof.harness.judge import Findings, XmlCall, check_xml_policy, policy_expect, xml_tool_calls
from callproof.harness.outcome import Call, Result
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
PASS = {"xml-tool-text": "passthrough"}
CONVERT = {"xml-tool-text": "convert"}


def _failed(scenario: str, result: Result, policies: dict[str, str]) -> dict[str, list[str]]:
    findings = Findings()
    check_xml_policy(findings, SCENARIOS[scenario], result, policies)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _checked(scenario: str, result: Result, policies: dict[str, str]) -> list[str]:
    findings = Findings()
    check_xml_policy(findings, SCENARIOS[scenario], result, policies)
    return [r.rule.id for r in findings.results()]


def _result(text: str, *calls: tuple[str, str], status: str = "completed") -> Result:
    made = tuple(Call(f"call_{i}", name, arguments) for i, (name, arguments) in enumerate(calls))
    return Result(status, text, made, "response.completed")  # type: ignore[arg-type]


def _verbatim(scenario: str) -> str:
    text = SCENARIOS[scenario].expect.text
    assert text is not None
    return text


def test_the_parameter_form_is_parsed_into_string_values() -> None:
    text = ("Go.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "<parameter=unit> celsius </parameter>\n</function>")
    calls = (XmlCall("get_weather", '{"city": "Paris", "unit": "celsius"}'),)
    assert xml_tool_calls(text) == (calls, "Go.\n")


def test_a_parameter_form_with_stray_text_stays_text() -> None:
    text = "<function=f><parameter=a>1</parameter> stray </function>"
    assert xml_tool_calls(text) == ((), text)


def test_the_parameter_form_converted_passes_and_left_as_text_fails_under_convert() -> None:
    converted = _result("I will look it up.", ("get_weather", '{"city": "Paris", "unit": "celsius"}'))
    assert _failed("xml_tool_text_parameter_form", converted, CONVERT) == {}
    assert "GW-XML-001" in _failed("xml_tool_text_parameter_form", _result(_verbatim("xml_tool_text_parameter_form")),
                                   CONVERT)
    assert _failed("xml_tool_text_parameter_form", _result(_verbatim("xml_tool_text_parameter_form")), PASS) == {}


def test_a_block_open_at_the_end_stays_text_under_convert() -> None:
    verbatim = _verbatim("xml_tool_text_open_at_end")
    assert _failed("xml_tool_text_open_at_end", _result(verbatim), CONVERT) == {}
    dropped = _failed("xml_tool_text_open_at_end", _result("Let me check. "), CONVERT)
    assert "is not dropped" in dropped["GW-XML-001"][0]
    closed = _failed("xml_tool_text_open_at_end", _result("Let me check. ", ("get_weather", '{"city": "Paris"}')),
                     CONVERT)
    assert "a block left open or cut short is no call" in closed["GW-XML-001"][0]


def test_a_block_cut_by_the_length_limit_is_no_call_and_stays_incomplete() -> None:
    verbatim = _verbatim("xml_tool_text_cut_by_length")
    assert SCENARIOS["xml_tool_text_cut_by_length"].ending == "length"
    assert policy_expect(SCENARIOS["xml_tool_text_cut_by_length"], CONVERT).tool_calls == ()
    assert _failed("xml_tool_text_cut_by_length", _result(verbatim, status="incomplete"), CONVERT) == {}
    repaired = _result("", ("get_weather", "{}"), status="incomplete")
    assert "GW-XML-001" in _failed("xml_tool_text_cut_by_length", repaired, CONVERT)


def test_a_block_naming_a_tool_not_offered_stays_text_gw_xml_002() -> None:
    scenario = "xml_tool_text_unoffered_tool"
    foreign = '<function=delete_files>{"path": "/"}</function>'
    right = _result(f"On it.\n\n{foreign}", ("get_weather", '{"city": "Paris"}'))
    assert _failed(scenario, right, CONVERT) == {}
    assert _checked(scenario, right, CONVERT) == ["GW-XML-001", "GW-XML-002"]
    assert [c["name"] for c in policy_expect(SCENARIOS[scenario], CONVERT).tool_calls] == ["get_weather"]
    wrong = _result("On it.\n\n", ("get_weather", '{"city": "Paris"}'), ("delete_files", '{"path": "/"}'))
    failed = _failed(scenario, wrong, CONVERT)
    assert set(failed) == {"GW-XML-002"}
    assert "'delete_files'" in failed["GW-XML-002"][0] and "did not offer" in failed["GW-XML-002"][0]
    assert len(failed["GW-XML-002"]) == 2  # the call made, and the markup missing from the text


def test_gw_xml_002_is_not_judged_under_passthrough_or_without_foreign_markup() -> None:
    assert _checked("xml_tool_text_unoffered_tool", _result(_verbatim("xml_tool_text_unoffered_tool")), PASS) == [
        "GW-XML-001"]
    assert _checked("xml_tool_text", _result(""), CONVERT) == ["GW-XML-001"]
