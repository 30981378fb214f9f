"""The JUnit XML report, validated against the Jenkins xUnit plugin's JUnit schema (data/junit-10.xsd)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import xmlschema

from callproof.reports import render_junit

WithCases = Callable[[Mapping[str, Any], list[dict[str, Any]]], dict[str, Any]]


def _testcase(root: ET.Element, case_id: str) -> ET.Element:
    scenario, group = case_id.split("::")
    found = root.find(f"testcase[@classname='callproof.{scenario}'][@name='{group}']")
    assert found is not None, case_id
    return found


def _failed(case: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in case["results"] if r["outcome"] == "failed"]


@pytest.mark.parametrize("name", ["failing", "passing", "incomplete", "many_failures"])
def test_validates_against_the_junit_xsd(
    name: str, request: pytest.FixtureRequest, junit_schema: xmlschema.XMLSchema,
) -> None:
    junit_schema.validate(render_junit(request.getfixturevalue(name)))


def test_suite_counts(failing: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(failing))
    summary = failing["summary"]
    must = [c for c in failing["cases"] if c["outcome"] == "failed" and any(r["level"] == "MUST" for r in _failed(c))]
    assert root.tag == "testsuite" and root.get("name") == "callproof"
    assert root.get("tests") == str(summary["cases"]) == str(len(root.findall("testcase")))
    assert root.get("failures") == str(len(must)) == str(len(root.findall("testcase/failure")))
    assert root.get("errors") == str(summary["error"]) == str(len(root.findall("testcase/error")))
    assert root.get("skipped") == str(summary["skipped"] + summary["xfailed"])
    assert root.get("time") == f"{failing['duration_s']:.3f}"
    assert root.get("timestamp") == failing["started_at"].removesuffix("+00:00")
    properties = {p.get("name"): p.get("value") for p in root.findall("properties/property")}
    assert properties["profile"] == failing["profile"] and properties["complete"] == "true"


def test_one_testcase_per_case(failing: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(failing))
    for case, element in zip(failing["cases"], root.findall("testcase"), strict=True):
        assert element.get("classname") == f"callproof.{case['scenario']}" and element.get("name") == case["group"]
        assert element.get("time") == f"{case['duration_s']:.3f}"


def test_a_must_failure_is_a_failure_with_every_rule(failing: dict[str, Any]) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_disconnect_after_bytes::lifecycle")
    failure = _testcase(ET.fromstring(render_junit(failing)), case["id"]).find("failure")
    assert failure is not None and failure.text is not None
    first = _failed(case)[0]
    assert failure.get("message") == f"{first['rule']} MUST: {first['message']}"
    for result in _failed(case):
        assert f"{result['rule']} MUST ({result['family']}): {result['message']}" in failure.text
        assert f"fix: {result['fix']}" in failure.text
    assert failure.text.rstrip().endswith(f"repro: {case['repro']}")


def test_failure_text_has_evidence_and_excerpt(failing: dict[str, Any]) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_malformed::framing")
    result = _failed(case)[0]
    failure = _testcase(ET.fromstring(render_junit(failing)), case["id"]).find("failure")
    assert failure is not None and failure.text is not None
    evidence = result["evidence"]
    assert (f"evidence: event {evidence['event_index']} ({evidence['event_type']}), byte {evidence['offset']}, at $"
            in failure.text)
    assert "stream around it:" in failure.text and result["excerpt"].splitlines()[0] in failure.text


def test_should_only_failures_pass_with_a_note(failing: dict[str, Any]) -> None:
    element = _testcase(ET.fromstring(render_junit(failing)), "parallel_calls_disabled::translation")
    assert element.find("failure") is None and element.find("error") is None
    out = element.find("system-out")
    assert out is not None and out.text is not None
    assert out.text.startswith("SHOULD failure (reported, does not fail the run):\nGW-REQ-004 SHOULD (gateway)")


def test_errors_skips_known_failures_and_stale_entries(failing: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(failing))
    error = _testcase(root, "large_arguments::expected").find("error")
    assert error is not None and error.text is not None
    assert error.get("message") == (
        "the IUT did not answer: RemoteProtocolError: Server disconnected without sending a response.; the IUT exited; "
        "stderr tail:")  # the first line of the case's message
    assert "dies_on_large_arguments: exiting mid-request" in error.text
    skipped = _testcase(root, "fault_slow_first_byte::streaming").find("skipped")
    assert skipped is not None and "no rule of group 'streaming' applies" in str(skipped.get("message"))
    known = _testcase(root, "duplicate_call_ids::identity").find("skipped")
    assert known is not None and known.get("message") == "known failure (baseline)" and "RSP-ID-008" in str(known.text)
    stale = _testcase(root, "text_only::identity")
    assert len(stale) == 1 and "stale baseline entry" in str(stale[0].text)
    assert list(_testcase(root, "one_call::framing")) == []


def test_an_incomplete_run_gets_an_error_testcase(
    incomplete: dict[str, Any], passing: dict[str, Any], junit_schema: xmlschema.XMLSchema,
) -> None:
    root = ET.fromstring(render_junit(incomplete))
    run = root.find("testcase[@classname='callproof.run'][@name='complete']")
    assert run is not None and run.find("error") is not None
    assert root.get("tests") == str(len(incomplete["cases"]) + 1)
    cut = render_junit({**passing, "complete": False})
    junit_schema.validate(cut)
    assert ET.fromstring(cut).get("errors") == "1"


def test_text_xml_cannot_carry_is_made_visible(
    failing: dict[str, Any], with_cases: WithCases, junit_schema: xmlschema.XMLSchema,
) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_malformed::framing")
    result = _failed(case)[0]
    result["message"] = "bell\x07 nul\x00 lone \udc80 ]]> <tag> & \"quoted\""
    result["excerpt"] = "esc\x1b[31m"
    junit = render_junit(with_cases(failing, [case]))
    junit_schema.validate(junit)
    failure = ET.fromstring(junit).find("testcase/failure")
    assert failure is not None
    assert failure.get("message") == "SSE-003 MUST: bell\\x07 nul\\x00 lone \\udc80 ]]> <tag> & \"quoted\""
    assert "esc\\x1b[31m" in str(failure.text)
    junit.encode("utf-8")  # no lone surrogate left


def test_the_run_policies_are_a_suite_property(failing: dict[str, Any]) -> None:
    def properties() -> dict[str | None, str | None]:
        root = ET.fromstring(render_junit(failing))
        return {p.get("name"): p.get("value") for p in root.findall("properties/property")}

    assert "policy" not in properties()
    failing["target"]["policy"] = {"xml-tool-text": "passthrough"}
    assert properties()["policy"] == "xml-tool-text=passthrough"


def test_the_transports_are_suite_properties(passing: dict[str, Any]) -> None:
    """Always named (`http` for a report from before they were recorded), for a gateway its front's and its
    upstream's, for a client its own."""
    def properties(report: dict[str, Any]) -> dict[str | None, str | None]:
        root = ET.fromstring(render_junit(report))
        return {p.get("name"): p.get("value") for p in root.findall("properties/property")}

    got = properties(passing)
    assert (got["front_transport"], got["upstream_transport"], "client_transport" in got) == ("http", "http", False)
    ws = properties({**passing, "target": {**passing["target"], "front_transport": "websocket"}})
    assert ws["front_transport"] == "websocket" and ws["dialects"] == "responses front over WebSocket, chat upstream"
    client = properties({**passing, "target": {"kind": "client", "how": "client", "client": "m:f",
                                               "client_transport": "websocket"}})
    assert client["client_transport"] == "websocket" and "front_transport" not in client
    assert client["dialects"] == "responses client over WebSocket"
