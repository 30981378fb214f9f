"""Broken gateways whose findings are easy to misreport, in the style of `gateways.py` (which merges
`EVIDENCE_DEFECTS` into its own): the reference gateway with one defect, named with the rule that must catch it and
what its evidence must say."""

from __future__ import annotations

import weakref

from examples.gateway import ChatUpstream, Json, Request
from examples.gateway.model import Event
from examples.gateway.upstreams.chat import ReadState

__all__ = ["EVIDENCE_DEFECTS"]

#: Per answer read: the upstream tool-call index -> the key of the call its deltas now feed.
_KEYS: weakref.WeakKeyDictionary[ReadState, dict[int, int]] = weakref.WeakKeyDictionary()


class NoIncludeUsage(ChatUpstream):
    """no_include_usage: the streaming Chat upstream request carries no `stream_options`, so the upstream sends no
    usage and the front reports none. Caught by GW-USAGE-001, whose evidence names the missing request field
    (`$.stream_options.include_usage`), not counts the upstream never sent."""

    def translate_request(self, request: Request) -> Json:
        body = super().translate_request(request)
        body.pop("stream_options", None)
        return body


class NameFragmentsAsCalls(ChatUpstream):
    """name_fragments_as_calls: a delta that brings a `function.name` for a tool call that already has one starts
    a new call, so a name split across deltas (`get_`, `weat`, `her`) becomes three calls, the arguments going to
    the last. Caught by EXP-001, whose message lists the calls the front held, phantoms and all, not only names."""

    def on_tool_call(self, state: ReadState, tool_call: Json, position: int) -> list[Event]:
        given = tool_call.get("index")
        index = given if isinstance(given, int) else position
        keys = _KEYS.setdefault(state, {})
        key = keys.setdefault(index, index)
        function = tool_call.get("function") or {}
        if function.get("name") and key in state.calls and state.calls[key].name:
            key = keys[index] = 1000 + len(state.calls)  # a fresh key: a call of its own to this reader
        return super().on_tool_call(state, {**tool_call, "index": key}, position)


#: Defect name -> the broken part of the reference gateway.
EVIDENCE_DEFECTS: dict[str, type[ChatUpstream]] = {
    "no_include_usage": NoIncludeUsage,
    "name_fragments_as_calls": NameFragmentsAsCalls,
}
