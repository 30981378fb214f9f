"""Broken gateways of issue 17's upstream-stream gaps, in the style of `gateways.py` (which merges `DEFECTS`
into its own): the reference gateway with one defect each, named with the rule that must catch it. Arguments that
are not JSON, JSON escaping, tool calls ended by finish_reason stop, a tool name that never arrives, usage."""

from __future__ import annotations

import json
import weakref
from typing import Any

from examples.gateway import ChatUpstream, Front, Json, ResponsesFront, Upstream
from examples.gateway.guard import ArgumentsGuard
from examples.gateway.model import Event, Finish, Usage
from examples.gateway.upstreams.chat import FINISH_REASONS, ReadState

__all__ = ["DEFECTS"]


class RepairsArguments(ResponsesFront):
    """repairs_arguments: arguments that are not JSON are "repaired" (missing closing quotes and braces added)
    and the call completes with JSON the model never produced (GW-ARGS-001)."""

    def guard(self) -> ArgumentsGuard | None:
        return None

    def final_arguments(self, arguments: str) -> str:
        for tail in ("", "}", '"}', "]}", '"]}'):
            try:
                json.loads(arguments + tail)
            except ValueError:
                continue
            return super().final_arguments(arguments + tail)
        return super().final_arguments(arguments)


class JsonByStringFormatting(ResponsesFront):
    """json_by_string_formatting: text and argument deltas are written with a JSON template filled by string
    formatting (`'"delta":"%s"' % delta`) instead of a JSON encoder, so quotes, backslashes and control
    characters break the event's JSON (SSE-003)."""

    def encode_event(self, event: Json) -> bytes:
        if event["type"] not in ("response.output_text.delta", "response.function_call_arguments.delta"):
            return super().encode_event(event)
        head = json.dumps({key: value for key, value in event.items() if key != "delta"}, separators=(",", ":"))
        data = head[:-1] + ',"delta":"%s"}' % event["delta"]  # noqa: UP031 (the defect itself)
        return f"event: {event['type']}\ndata: {data}\n\n".encode()


#: The tool-call events a DropsCallsOnStop reader holds back, per answer.
_HELD: weakref.WeakKeyDictionary[ReadState, list[Event]] = weakref.WeakKeyDictionary()


class DropsCallsOnStop(ChatUpstream):
    """drops_calls_on_stop: tool calls are held until the finish and passed on only when finish_reason is
    "tool_calls"; a choice that ends with "stop" (as vLLM and others send it) loses its calls (EXP-001)."""

    def on_tool_call(self, state: ReadState, tool_call: Json, position: int) -> list[Event]:
        _HELD.setdefault(state, []).extend(super().on_tool_call(state, tool_call, position))
        return []

    def finish(self, state: ReadState) -> list[Event]:
        events = super().finish(state)
        held = _HELD.pop(state, []) + events[:-1]  # calls still pending start at the finish
        return [*(held if state.finish_reason == "tool_calls" else []), events[-1]]


class EmptyNameCalls(ChatUpstream):
    """empty_name_calls: a Chat tool call whose function.name never arrived is passed on with name "", so the
    front emits a call nobody can run instead of failing the response (RSP-ID-005, EXP-004)."""

    def finish(self, state: ReadState) -> list[Event]:
        if state.finish_reason is None:
            return super().finish(state)  # a cut stream stays cut
        events: list[Event] = [event for call in state.calls.values() if not call.started
                               for event in self.start(call)]
        return [*events, Finish(FINISH_REASONS.get(state.finish_reason, "stop"))]


class DropsCachedTokens(ResponsesFront):
    """drops_cached_tokens: the front's usage reports no cached input tokens, whatever the upstream counted
    (GW-USAGE-001)."""

    def translate_usage(self, usage: Usage) -> Json:
        full = super().translate_usage(usage)
        return {**full, "input_tokens_details": {**full["input_tokens_details"], "cached_tokens": 0}}


class UpstreamUsageTrailingOnly(ChatUpstream):
    """upstream_usage_trailing_only: the Chat upstream's usage is read only from a trailing chunk with
    `choices: []`; usage on the finish chunk is lost and the front reports none (GW-USAGE-001)."""

    def on_chunk(self, state: ReadState, chunk: Json) -> list[Event]:
        if chunk.get("choices"):
            chunk = {key: value for key, value in chunk.items() if key != "usage"}
        return super().on_chunk(state, chunk)


DEFECTS: dict[str, type[Front[Any]] | type[Upstream]] = {
    "repairs_arguments": RepairsArguments,
    "json_by_string_formatting": JsonByStringFormatting,
    "drops_calls_on_stop": DropsCallsOnStop,
    "empty_name_calls": EmptyNameCalls,
    "drops_cached_tokens": DropsCachedTokens,
    "upstream_usage_trailing_only": UpstreamUsageTrailingOnly,
}
