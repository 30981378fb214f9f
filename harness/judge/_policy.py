"""Run policies: what the IUT chose to do where the spec leaves the choice to it, and the expectation that follows
(docs/cli.md#policies, docs/spec/contracts.md §7.11).

`xml-tool-text`: some backends emit tool calls as markup in their text (`<function=NAME>{json}</function>`, the
parameter form `<function=NAME><parameter=KEY>value</parameter>...</function>`, Hermes-style
`<tool_call>{"name": ..., "arguments": ...}</tool_call>`). Under `passthrough` (the default) a gateway passes that
text on verbatim and invents no call; under `convert` it turns each complete markup block naming a tool the request
offered into a real tool call (the name and the arguments parsed from it, in text order) and strips the markup from
the visible text. A block left open (the stream ended, or was cut by the length limit, before its closing tag) and a
block naming a tool the request did not offer stay text (GW-XML-002 for the latter). Scenarios tagged
`xml-tool-text` carry the verbatim text as their `expect.text`; the expectation under `convert` is derived from it
here, deterministically.

`custom-tools` (docs/spec/items.md §2, §5): what a gateway does with a custom (free-form) tool toward an upstream
without custom tools (Chat Completions, Anthropic Messages). Under `either` (the default) a clear refusal or a
faithful conversion, whichever the gateway does; under `refuse` a 4xx naming the tool before any upstream request;
under `convert` a function tool with one required string parameter, its call turned back into a custom call at the
front. Toward a Responses upstream the tool is carried whatever the policy (`custom_tool_expectation`; GW-REQ-012
in `_custom_tools` and `_rejection`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Mapping
from typing import Literal

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS
from callproof.harness.outcome import Result
from callproof.harness.scenario import Expect, Scenario

from ._expected import expected_calls
from ._findings import Findings

__all__ = [
    "CUSTOM_TOOLS_POLICY", "XML_TAG", "XmlCall", "check_xml_policy", "custom_tool_expectation", "policy_expect",
    "xml_tool_calls",
]

#: The run policy of custom tools toward an upstream without them.
CUSTOM_TOOLS_POLICY = "custom-tools"

#: The scenario tag that puts a scenario under the `xml-tool-text` policy.
XML_TAG = "xml-tool-text"
_POLICY = "xml-tool-text"
_MARKUP = re.compile(r"<function=(?P<name>[A-Za-z0-9_.:-]+)>(?P<arguments>.*?)</function>"
                     r"|<tool_call>(?P<body>.*?)</tool_call>", re.S)
#: One parameter of the parameter form; its value is the text between the tags, surrounding whitespace aside.
_PARAMETER = re.compile(r"\s*<parameter=(?P<key>[^>\s]+)>(?P<value>.*?)</parameter>\s*", re.S)


@dataclasses.dataclass(frozen=True, slots=True)
class XmlCall:
    """One tool call written as markup: its name and its arguments (JSON text)."""

    name: str
    arguments: str


def _parameters(body: str) -> str | None:
    """The arguments (JSON text) of a parameter-form body, every value a string; None unless the body is nothing but
    one or more `<parameter=KEY>value</parameter>` elements."""
    values: dict[str, str] = {}
    end = 0
    for match in _PARAMETER.finditer(body):
        if match.start() != end:
            return None
        values[match.group("key")] = match.group("value").strip()
        end = match.end()
    return json.dumps(values) if values and end == len(body) else None


def _call(match: re.Match[str]) -> XmlCall | None:
    """The call one markup block holds, or None when neither its JSON nor its parameters make one (then it stays
    text)."""
    if match.group("name") is not None:
        arguments = match.group("arguments").strip()
        try:
            json.loads(arguments)
        except ValueError:
            parameters = _parameters(match.group("arguments"))
            return None if parameters is None else XmlCall(match.group("name"), parameters)
        return XmlCall(match.group("name"), arguments)
    try:
        body = json.loads(match.group("body"))
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        return None
    arguments = body.get("arguments", {})
    return XmlCall(body["name"], arguments if isinstance(arguments, str) else json.dumps(arguments))


def xml_tool_calls(text: str, offered: Collection[str] | None = None) -> tuple[tuple[XmlCall, ...], str]:
    """The calls the markup in `text` holds, in order, and the text without those blocks; with `offered`, a block
    naming a tool outside it stays text."""
    calls: list[XmlCall] = []
    kept: list[str] = []
    end = 0
    for match in _MARKUP.finditer(text):
        call = _call(match)
        if call is None or (offered is not None and call.name not in offered):
            continue
        calls.append(call)
        kept.append(text[end:match.start()])
        end = match.end()
    kept.append(text[end:])
    return tuple(calls), "".join(kept)


def _under_policy(scenario: Scenario) -> bool:
    return XML_TAG in scenario.tags and scenario.expect.text is not None


def _offered_tools(scenario: Scenario) -> frozenset[str]:
    """The names of the tools the scenario's request offers."""
    tools = scenario.request.get("tools") or ()
    return frozenset(str(t["name"]) for t in tools if isinstance(t, Mapping) and "name" in t)


def _unoffered_blocks(text: str, offered: Collection[str]) -> tuple[tuple[str, str], ...]:
    """The complete markup blocks in `text` that would make a call to a tool outside `offered`: (block, name)."""
    blocks = ((match.group(0), _call(match)) for match in _MARKUP.finditer(text))
    return tuple((block, call.name) for block, call in blocks if call is not None and call.name not in offered)


def _without(text: str, blocks: tuple[tuple[str, str], ...]) -> str:
    for block, _ in blocks:
        text = text.replace(block, "", 1)
    return text


def policy_expect(scenario: Scenario, policies: Mapping[str, str]) -> Expect:
    """The scenario's `expect` under the run's policies: under `xml-tool-text=convert`, a scenario tagged
    `xml-tool-text` expects the calls its text's markup holds (blocks naming offered tools), after any calls of its
    own, and no text check here (GW-XML-001 judges the visible text, which may keep the whitespace around the
    markup)."""
    text = scenario.expect.text
    if policies.get(_POLICY) != "convert" or not _under_policy(scenario) or text is None:
        return scenario.expect
    calls, _ = xml_tool_calls(text, _offered_tools(scenario))
    converted = tuple({"name": c.name, "arguments": c.arguments} for c in calls)
    return dataclasses.replace(scenario.expect, tool_calls=(*scenario.expect.tool_calls, *converted), text=None)


def check_xml_policy(findings: Findings, scenario: Scenario, result: Result, policies: Mapping[str, str]) -> None:
    """GW-XML-001: the tool-call markup in the upstream's text is treated as `--policy xml-tool-text` declares;
    GW-XML-002 (under `convert`): markup naming a tool the request did not offer stays text."""
    verbatim = scenario.expect.text
    if not _under_policy(scenario) or verbatim is None:
        return
    findings.check("GW-XML-001")
    mode = policies.get(_POLICY, "passthrough")
    flag = f"--policy xml-tool-text={mode}"
    if mode != "passthrough":
        _check_converted(findings, scenario, result, verbatim, flag)
        return
    own = [name for name, _ in expected_calls(scenario.expect.tool_calls)]
    names = [c.name for c in result.calls]
    if names != own:
        findings.fail("GW-XML-001", f"{flag}: the answer holds the tool calls {names}, expected {own}: the "
                      "markup in the upstream's text became calls; run with --policy xml-tool-text=convert if "
                      "the gateway converts it on purpose",
                      Evidence(path="the final result.tool_calls[*].name", expected=short(own), actual=short(names)))
    if result.text != verbatim:
        findings.fail("GW-XML-001", f"{flag}: the text is {short(result.text)}, expected the upstream's text "
                      f"verbatim, {short(verbatim)}",
                      Evidence(path="the final result.text", expected=verbatim, actual=result.text))


def _check_converted(findings: Findings, scenario: Scenario, result: Result, verbatim: str, flag: str) -> None:
    """GW-XML-001 and GW-XML-002 under `convert`: one call per complete block naming an offered tool, its markup
    gone from the text; open or cut blocks and blocks naming other tools stay text."""
    offered = _offered_tools(scenario)
    calls, rest = xml_tool_calls(verbatim, offered)
    foreign = _unoffered_blocks(verbatim, offered)
    _check_unoffered(findings, result, foreign, offered, flag)
    own = expected_calls(scenario.expect.tool_calls)
    wanted = [*own, *((c.name, json.loads(c.arguments)) for c in calls)]
    allowed = offered | {name for name, _ in own}
    got = [(c.name, c.parsed()) for c in result.calls if c.name in allowed]
    if got != wanted:
        findings.fail("GW-XML-001", f"{flag}: the answer holds the tool calls {short(got)}, expected the calls the "
                      f"markup holds, {short(wanted)} (complete blocks naming offered tools; a block left open or "
                      "cut short is no call)",
                      Evidence(path="the final result.tool_calls", expected=short(wanted), actual=short(got)))
    text, rest = _without(result.text, foreign), _without(rest, foreign)
    leftover = next((m for m in _MARKUP.finditer(text) if (c := _call(m)) is not None and c.name in offered), None)
    if leftover is not None:
        tag = "<function=" if leftover.group("name") is not None else "<tool_call>"
        findings.fail("GW-XML-001", f"{flag}: the visible text still holds the markup {tag!r} at character "
                      f"{leftover.start()}: {short(result.text)}",
                      Evidence(path="the final result.text", expected=rest, actual=result.text))
    elif text.strip() != rest.strip():
        findings.fail("GW-XML-001", f"{flag}: the visible text is {short(result.text)}, expected the upstream's "
                      f"text without the markup, {short(rest)} (surrounding whitespace aside; an open or cut "
                      "block stays text, it is not dropped)",
                      Evidence(path="the final result.text", expected=rest, actual=result.text))


def _check_unoffered(findings: Findings, result: Result, foreign: tuple[tuple[str, str], ...],
                     offered: frozenset[str], flag: str) -> None:
    """GW-XML-002: a block naming a tool the request did not offer stays in the text, and no call to it is made
    (a client would run a tool it never offered)."""
    if not foreign:
        return
    findings.check("GW-XML-002")
    names = {name for _, name in foreign}
    made = [c.name for c in result.calls if c.name in names and c.name not in offered]
    if made:
        findings.fail("GW-XML-002", f"{flag}: the answer calls {made}, a tool the request did not offer (it "
                      f"offered {sorted(offered)}); markup naming it must stay text",
                      Evidence(path="the final result.tool_calls[*].name", expected=short(sorted(offered)),
                               actual=short(made)))
    missing = [block for block, _ in foreign if block not in result.text]
    if missing:
        findings.fail("GW-XML-002", f"{flag}: the markup {short(missing[0])} names a tool the request did not "
                      f"offer and is missing from the visible text {short(result.text)}; it stays text, verbatim",
                      Evidence(path="the final result.text", expected=missing[0], actual=result.text))


def custom_tool_expectation(upstream: str, policies: Mapping[str, str]) -> Literal[
        "carry", "refuse", "convert", "either"]:
    """What a gateway must do with a custom tool toward an `upstream` dialect under the run's `--policy
    custom-tools`: carry it as a custom tool (a Responses upstream, whatever the policy), refuse the request,
    convert it to a function tool with one string parameter, or either of the last two (the default)."""
    if DIALECTS[upstream].custom_tools_carried:
        return "carry"
    policy = policies.get(CUSTOM_TOOLS_POLICY, "either")
    if policy == "refuse":
        return "refuse"
    return "convert" if policy == "convert" else "either"
