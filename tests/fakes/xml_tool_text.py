"""The gateway fakes of the `xml-tool-text` run policy (docs/cli.md#policies, GW-XML-001), kept apart from
gateways.py (which lists them in its `DEFECTS`): a Chat upstream reader that converts tool-call markup in the
upstream's text into real calls, as one of the seed systems does, and the unchanged reader under a name of its own.

Each is a defect only relative to the policy the run declares: `converts_xml_tool_text` passes every case under
`--policy xml-tool-text=convert` and fails the `xml-tool-text` scenarios under the default `passthrough`;
`keeps_xml_tool_text` (the reference gateway) is the other way round.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx

from examples.gateway import ChatUpstream
from examples.gateway.model import ArgumentsDelta, CallDone, CallStart, Event, TextDelta

__all__ = ["ConvertsXmlToolText", "KeepsXmlToolText", "XmlConverter"]

#: The opening tags, and the closing tag each one waits for.
_CLOSERS = {"<function=": "</function>", "<tool_call>": "</tool_call>"}
#: Converted calls get keys of their own, far from the upstream's tool_calls indexes.
_FIRST_KEY = 10_000


class XmlConverter:
    """Text deltas in, neutral events out: text outside markup as it comes (holding back only a tail that may
    begin an opening tag), and one call (start, arguments, done) per complete block once its closing tag arrived.
    A block whose JSON does not make a call stays text. One converter reads one answer."""

    def __init__(self) -> None:
        self.held = ""
        self.calls = 0

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
            if call is None:
                self._text(out, end)
                continue
            key = _FIRST_KEY + self.calls
            self.calls += 1
            out += [CallStart(key, None, call[0]), ArgumentsDelta(key, call[1]), CallDone(key)]
            self.held = self.held[end:]

    def flush(self) -> list[Event]:
        """What is held back (a partial tag, an unclosed block) goes out as text."""
        out: list[Event] = []
        self._text(out, len(self.held))
        return out

    def _text(self, out: list[Event], upto: int) -> None:
        if upto > 0:
            out.append(TextDelta(self.held[:upto]))
            self.held = self.held[upto:]

    def _partial_tail(self) -> int:
        """The length of the longest end of the held text that an opening tag begins with."""
        return max((n for tag in _CLOSERS for n in range(1, len(tag)) if self.held.endswith(tag[:n])), default=0)

    @staticmethod
    def _call(block: str, tag: str) -> tuple[str, str] | None:
        """(name, arguments) of a block without its closing tag, or None."""
        try:
            if tag == "<function=":
                name, _, arguments = block[len(tag):].partition(">")
                json.loads(arguments)
                return (name, arguments.strip()) if name else None
            body = json.loads(block[len(tag):])
        except ValueError:
            return None
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            return None
        arguments = body.get("arguments", {})
        return body["name"], arguments if isinstance(arguments, str) else json.dumps(arguments)


def _converted(events: list[Event]) -> list[Event]:
    converter = XmlConverter()
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

    async def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        converter = XmlConverter()
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
        return _converted(super().body_events(body))


class KeepsXmlToolText(ChatUpstream):
    """keeps_xml_tool_text: the reference Chat upstream reader, which passes tool-call markup on as text. Correct under
    the default passthrough; a run declaring `--policy xml-tool-text=convert` expects calls it never makes
    (GW-XML-001, EXP-001)."""
