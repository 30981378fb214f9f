"""Run policies: what the IUT chose to do where the spec leaves the choice to it, and the expectation that follows
(docs/cli.md#policies, docs/spec/contracts.md §7.11).

`xml-tool-text`: some backends emit tool calls as markup in their text (`<function=NAME>{json}</function>`,
Hermes-style `<tool_call>{"name": ..., "arguments": ...}</tool_call>`). Under `passthrough` (the default) a gateway
passes that text on verbatim and invents no call; under `convert` it turns each complete markup block into a real
tool call (the name and the arguments parsed from it, in text order) and strips the markup from the visible text.
Scenarios tagged `xml-tool-text` carry the verbatim text as their `expect.text`; the expectation under `convert` is
derived from it here, deterministically.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.outcome import Result
from callproof.harness.scenario import Expect, Scenario

from ._expected import expected_calls
from ._findings import Findings

__all__ = ["XML_TAG", "XmlCall", "check_xml_policy", "policy_expect", "xml_tool_calls"]

#: The scenario tag that puts a scenario under the `xml-tool-text` policy.
XML_TAG = "xml-tool-text"
_POLICY = "xml-tool-text"
_MARKUP = re.compile(r"<function=(?P<name>[A-Za-z0-9_.:-]+)>(?P<arguments>.*?)</function>"
                     r"|<tool_call>(?P<body>.*?)</tool_call>", re.S)
#: What shows that markup reached the visible text (an opening or a closing tag of either form).
_LEFTOVER = re.compile(r"</?tool_call>|<function=|</function>")


@dataclasses.dataclass(frozen=True, slots=True)
class XmlCall:
    """One tool call written as markup: its name and its arguments (JSON text)."""

    name: str
    arguments: str


def _call(match: re.Match[str]) -> XmlCall | None:
    """The call one markup block holds, or None when its JSON does not make one (then it stays text)."""
    if match.group("name") is not None:
        arguments = match.group("arguments").strip()
        try:
            json.loads(arguments)
        except ValueError:
            return None
        return XmlCall(match.group("name"), arguments)
    try:
        body = json.loads(match.group("body"))
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return None
    arguments = body.get("arguments", {})
    return XmlCall(body["name"], arguments if isinstance(arguments, str) else json.dumps(arguments))


def xml_tool_calls(text: str) -> tuple[tuple[XmlCall, ...], str]:
    """The calls the markup in `text` holds, in order, and the text without those blocks."""
    calls: list[XmlCall] = []
    kept: list[str] = []
    end = 0
    for match in _MARKUP.finditer(text):
        call = _call(match)
        if call is None:
            continue
        calls.append(call)
        kept.append(text[end:match.start()])
        end = match.end()
    kept.append(text[end:])
    return tuple(calls), "".join(kept)


def _under_policy(scenario: Scenario) -> bool:
    return XML_TAG in scenario.tags and scenario.expect.text is not None


def policy_expect(scenario: Scenario, policies: Mapping[str, str]) -> Expect:
    """The scenario's `expect` under the run's policies: under `xml-tool-text=convert`, a scenario tagged
    `xml-tool-text` expects the calls its text's markup holds, after any calls of its own, and no text check here
    (GW-XML-001 judges the visible text, which may keep the whitespace around the markup)."""
    text = scenario.expect.text
    if policies.get(_POLICY) != "convert" or not _under_policy(scenario) or text is None:
        return scenario.expect
    calls, _ = xml_tool_calls(text)
    converted = tuple({"name": c.name, "arguments": c.arguments} for c in calls)
    return dataclasses.replace(scenario.expect, tool_calls=(*scenario.expect.tool_calls, *converted), text=None)


def check_xml_policy(findings: Findings, scenario: Scenario, result: Result, policies: Mapping[str, str]) -> None:
    """GW-XML-001: the tool-call markup in the upstream's text is treated as `--policy xml-tool-text` declares."""
    verbatim = scenario.expect.text
    if not _under_policy(scenario) or verbatim is None:
        return
    findings.check("GW-XML-001")
    mode = policies.get(_POLICY, "passthrough")
    flag = f"--policy xml-tool-text={mode}"
    own = [name for name, _ in expected_calls(scenario.expect.tool_calls)]
    names = [c.name for c in result.calls]
    if mode == "passthrough":
        if names != own:
            findings.fail("GW-XML-001", f"{flag}: the answer holds the tool calls {names}, expected {own}: the "
                          "markup in the upstream's text became calls; run with --policy xml-tool-text=convert if "
                          "the gateway converts it on purpose",
                          Evidence(path="the final result.tool_calls[*].name", expected=short(own),
                                   actual=short(names)))
        if result.text != verbatim:
            findings.fail("GW-XML-001", f"{flag}: the text is {short(result.text)}, expected the upstream's text "
                          f"verbatim, {short(verbatim)}",
                          Evidence(path="the final result.text", expected=verbatim, actual=result.text))
        return
    calls, rest = xml_tool_calls(verbatim)
    wanted = [*expected_calls(scenario.expect.tool_calls),
              *((c.name, json.loads(c.arguments)) for c in calls)]
    got = [(c.name, c.parsed()) for c in result.calls]
    if got != wanted:
        findings.fail("GW-XML-001", f"{flag}: the answer holds the tool calls {short(got)}, expected the calls the "
                      f"markup holds, {short(wanted)}",
                      Evidence(path="the final result.tool_calls", expected=short(wanted), actual=short(got)))
    leftover = _LEFTOVER.search(result.text)
    if leftover is not None:
        findings.fail("GW-XML-001", f"{flag}: the visible text still holds the markup {leftover.group(0)!r} at "
                      f"character {leftover.start()}: {short(result.text)}",
                      Evidence(path="the final result.text", expected=rest, actual=result.text))
    elif result.text.strip() != rest.strip():
        findings.fail("GW-XML-001", f"{flag}: the visible text is {short(result.text)}, expected the upstream's "
                      f"text without the markup, {short(rest)} (surrounding whitespace aside)",
                      Evidence(path="the final result.text", expected=rest, actual=result.text))
