"""The gateway fakes of the `xml-tool-text` run policy (docs/cli.md#policies, GW-XML-001), kept apart from
gateways.py (which lists them in its `DEFECTS`): a Chat upstream reader that converts tool-call markup in the
upstream's text into real calls, as one of the seed systems does, and the unchanged reader under a name of its own.

Each is a defect only relative to the policy the run declares: `converts_xml_tool_text` passes every case under
`--policy xml-tool-text=convert` and fails the `xml-tool-text` scenarios under the default `passthrough`;
`keeps_xml_tool_text` (the reference gateway) is the other way round. Three converters are wrong under `convert`
too (docs/spec/contracts.md §7.11): `json_only_xml_tool_text` knows only JSON bodies, not the parameter form;
`converts_unoffered_xml_tool` converts markup naming a tool the request did not offer (GW-XML-002);
`closes_open_xml_markup` turns a block still open at the end of the answer into a call, its arguments repaired.
"""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import AsyncIterator, Collection

import httpx

from examples.gateway import ChatUpstream, Json, Request
from examples.gateway.model import ArgumentsDelta, CallDone, CallStart, Event, TextDelta

__all__ = [
    "XML_DEFECTS", "ClosesOpenXmlMarkup", "ConvertsUnofferedXmlTool", "ConvertsXmlToolText", "JsonOnlyXmlToolText",
    "KeepsXmlToolText", "XmlConverter",
]

#: The opening tags, and the closing tag each one waits for.
_CLOSERS = {"<function=": "</function>", "<tool_call>": "</tool_call>"}
#: Converted calls get keys of their own, far from the upstream's tool_calls indexes.
_FIRST_KEY = 10_000
_PARAMETER = re.compile(r"\s*<parameter=([^>\s]+)>(.*?)</parameter>\s*", re.S)
#: The names of the tools the request being answered offered (set when its upstream request is built; the answer is
#: read in the same task, or one started from it).
_OFFERED: contextvars.ContextVar[frozenset[str] | None] = contextvars.ContextVar("offered", default=None)


def _parameters(body: str) -> str | None:
    """The JSON arguments of a parameter-form body (string values), or None when it is not one."""
    values: dict[str, str] = {}
    end = 0
    for match in _PARAMETER.finditer(body):
        if match.start() != end:
            return None
        values[match.group(1)] = match.group(2).strip()
        end = match.end()
    return json.dumps(values) if values and end == len(body) else None


class XmlConverter:
    """Text deltas in, neutral events out: text outside markup as it comes (holding back only a tail that may
    begin an opening tag), and one call (start, arguments, done) per complete block once its closing tag arrived.
    A block whose JSON does not make a call, or naming a tool outside `offered` (None: any), stays text. One converter
    reads one answer. `parameters`: the parameter form is read too; `close_open`: a block still open at the end
    becomes a call (a defect)."""

    def __init__(self, offered: Collection[str] | None = None, *, parameters: bool = True,
                 close_open: bool = False) -> None:
        self.held = ""
        self.calls = 0
        self.offered = offered
        self.parameters = parameters
        self.close_open = close_open

    def feed(self, text: str) -> list[Event]:
        self.held += text
        out: list[Event] = []
        while True:
            starts = [(self.held.find(tag), tag) for tag in _CLOSERS if tag in self.held]
            if not starts:
                keep = self._partial_tail()
                self._text(out, len(self.held) - keep)
                return out
            start, tag = min(starts)
            self._text(out, start)
            close = self.held.find(_CLOSERS[tag])
            if close < 0:
                return out  # wait for the closing tag
            end = close + len(_CLOSERS[tag])
            call = self._call(self.held[:close], tag)
            if call is None or (self.offered is not None and call[0] not in self.offered):
                self._text(out, end)
                continue
            self._emit(out, call)
            self.held = self.held[end:]

    def _emit(self, out: list[Event], call: tuple[str, str]) -> None:
        key = _FIRST_KEY + self.calls
        self.calls += 1
        out += [CallStart(key, None, call[0]), ArgumentsDelta(key, call[1]), CallDone(key)]

    def flush(self) -> list[Event]:
        """What is held back (a partial tag, an unclosed block) goes out as text."""
        out: list[Event] = []
        if self.close_open and self.held.startswith("<function="):
            name, _, arguments = self.held[len("<function="):].partition(">")
            try:
                json.loads(arguments)
            except ValueError:
                arguments = "{}"  # the defect: a cut block "repaired" into a call
            self.held = ""
            self._emit(out, (name, arguments.strip()))
            return out
        self._text(out, len(self.held))
        return out

    def _text(self, out: list[Event], upto: int) -> None:
        if upto > 0:
            out.append(TextDelta(self.held[:upto]))
            self.held = self.held[upto:]

    def _partial_tail(self) -> int:
        """The length of the longest end of the held text that an opening tag begins with."""
        return max((n for tag in _CLOSERS for n in range(1, len(tag)) if self.held.endswith(tag[:n])), default=0)

    def _call(self, block: str, tag: str) -> tuple[str, str] | None:
        """(name, arguments) of a block without its closing tag, or None."""
        if tag == "<function=":
            name, _, arguments = block[len(tag):].partition(">")
            try:
                json.loads(arguments)
            except ValueError:
                parameters = _parameters(arguments) if self.parameters else None
                return (name, parameters) if name and parameters is not None else None
            return (name, arguments.strip()) if name else None
        try:
            body = json.loads(block[len(tag):])
        except ValueError:
            return None
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            return None
        arguments = body.get("arguments", {})
        return body["name"], arguments if isinstance(arguments, str) else json.dumps(arguments)


def _converted(events: list[Event], converter: XmlConverter) -> list[Event]:
    out: list[Event] = []
    for event in events:
        if isinstance(event, TextDelta):
            out += converter.feed(event.text)
        else:
            out += [*converter.flush(), event]
    return [*out, *converter.flush()]


class ConvertsXmlToolText(ChatUpstream):
    """converts_xml_tool_text: tool-call markup in the upstream's text (`<function=NAME>{json}</function>`,
    `<tool_call>{json}</tool_call>`, even split across deltas) becomes real calls and leaves the text. Correct under
    `--policy xml-tool-text=convert`; under the default passthrough it invents calls (GW-XML-001, EXP-001, EXP-003)."""

    def converter(self) -> XmlConverter:
        """The converter of one answer: it converts markup naming the tools the request offered."""
        return XmlConverter(_OFFERED.get())

    def translate_request(self, request: Request) -> Json:
        _OFFERED.set(frozenset(tool.name for tool in request.tools))
        return super().translate_request(request)

    async def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        converter = self.converter()
        async for event in super().events(response):
            if isinstance(event, TextDelta):
                for out in converter.feed(event.text):
                    yield out
            else:
                for out in [*converter.flush(), event]:
                    yield out
        for out in converter.flush():
            yield out

    def body_events(self, body: object) -> list[Event]:
        return _converted(super().body_events(body), self.converter())


class JsonOnlyXmlToolText(ConvertsXmlToolText):
    """json_only_xml_tool_text: converts JSON-bodied markup only; a parameter-form block
    (`<function=NAME><parameter=KEY>value</parameter></function>`) stays text (GW-XML-001 under convert)."""

    def converter(self) -> XmlConverter:
        return XmlConverter(_OFFERED.get(), parameters=False)


class ConvertsUnofferedXmlTool(ConvertsXmlToolText):
    """converts_unoffered_xml_tool: converts markup naming any tool, one the request never offered included
    (GW-XML-002 under convert)."""

    def converter(self) -> XmlConverter:
        return XmlConverter()


class ClosesOpenXmlMarkup(ConvertsXmlToolText):
    """closes_open_xml_markup: a `<function=NAME>` block still open when the answer ends (no closing tag, or cut by
    the length limit) becomes a call, its arguments "repaired" to `{}` when they are not JSON (GW-XML-001 under
    convert)."""

    def converter(self) -> XmlConverter:
        return XmlConverter(_OFFERED.get(), close_open=True)


class KeepsXmlToolText(ChatUpstream):
    """keeps_xml_tool_text: the reference Chat upstream reader, which passes tool-call markup on as text. Correct under
    the default passthrough; a run declaring `--policy xml-tool-text=convert` expects calls it never makes
    (GW-XML-001, EXP-001)."""


XML_DEFECTS = {
    "converts_xml_tool_text": ConvertsXmlToolText,  # defects relative to --policy xml-tool-text
    "keeps_xml_tool_text": KeepsXmlToolText,
    "json_only_xml_tool_text": JsonOnlyXmlToolText,  # wrong under convert too
    "converts_unoffered_xml_tool": ConvertsUnofferedXmlTool,
    "closes_open_xml_markup": ClosesOpenXmlMarkup,
}
