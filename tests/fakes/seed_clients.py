"""Broken Responses clients for the seed behaviours (`python -m tests.fakes.clients --defect NAME`): each one does
what a client written from one of the project's seed notes might do, and names the rule that catches it.

- events that are not in the API's event set (`response.done` after the terminal event, `ping`,
  `response.required_action`, `response.output_tool_call.*` beside the standard argument events): a correct client
  ignores them (`ReferenceClient` does); these break on them;
- usage read from a Responses terminal event, without its cached tokens;
- one call whose arguments are not JSON costing the valid calls beside it, in every dialect.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

from .anthropic_clients import AnthropicReferenceClient
from .chat_clients import ChatReferenceClient
from .clients import Item, ReferenceClient, _str, run

__all__ = ["ANTHROPIC_DEFECTS", "CHAT_DEFECTS", "DEFECTS", "known_events", "run_without_usage"]


@functools.cache
def known_events() -> frozenset[str]:
    """The Responses stream event types the API defines (the `type` of every event in the openai SDK's union): what
    a strict client accepts. Read on first use: the SDK takes most of a fake client process's start-up to import."""
    from openai.types.responses import ResponseStreamEvent

    union = typing.get_args(ResponseStreamEvent)[0]
    return frozenset(name for member in typing.get_args(union)
                     for name in typing.get_args(member.model_fields["type"].annotation))


class RejectsUnknownEvents(ReferenceClient):
    """rejects_unknown_events: reports an error for any event type outside the SDK's union (`ping`,
    `response.required_action`, `response.output_tool_call.delta`), where a client must ignore what it does not
    know. Caught by CLI-006 (a completed response is not an error)."""

    def on_event(self, event: dict[str, Any]) -> bool:
        if event.get("type") not in known_events():
            raise ValueError(f"unknown event type {event.get('type')!r}")
        return super().on_event(event)


class ErrorsAfterTerminal(ReferenceClient):
    """errors_after_terminal: reads on after the terminal event and reports an error for any event after it (a
    `response.done`), where a client stops at the terminal event. Caught by CLI-006."""

    terminal = False

    def on_event(self, event: dict[str, Any]) -> bool:
        if self.terminal:
            raise ValueError(f"event {event.get('type')!r} after the terminal event")
        self.terminal = super().on_event(event) or self.terminal
        return False

    def fail(self, message: str) -> None:
        if not (self.terminal and message == "the stream ended without a terminal event"):
            super().fail(message)


class JoinsLegacyArgumentDeltas(ReferenceClient):
    """joins_legacy_argument_deltas: takes `response.output_tool_call.delta` as argument text too and builds each
    call from its joined deltas rather than its done events, so a stream that sends every fragment under both names
    gives arguments that are not JSON. Caught by CLI-006 (it reports an error for a completed response)."""

    def on_event(self, event: dict[str, Any]) -> bool:
        if event.get("type") == "response.output_tool_call.delta":
            self._item(event).deltas.append(_str(event, "delta"))
            return False
        return super().on_event(event)

    def call(self, item: Item) -> dict[str, Any]:
        return {**super().call(item), "arguments": "".join(item.deltas) or "{}"}


class CallsFromRequiredAction(ReferenceClient):
    """calls_from_required_action: also hands on the calls listed by a `response.required_action` event, as clients
    that wait for it do, so each call, already a function_call item, is reported twice. Caught by EXP-001."""

    extra: list[dict[str, Any]]

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.extra = []
        return super().run(request)

    def on_event(self, event: dict[str, Any]) -> bool:
        if event.get("type") == "response.required_action":
            for call in event["required_action"]["submit_tool_outputs"]["tool_calls"]:
                self.extra.append({"call_id": call["id"], "name": call["function"]["name"],
                                   "arguments": call["function"]["arguments"]})
        return super().on_event(event)

    def tool_calls(self) -> list[dict[str, Any]]:
        return super().tool_calls() + self.extra


class UsageDropsCached(ReferenceClient):
    """usage_drops_cached: reports the terminal response's usage with `cached_tokens` 0 (it reads
    `input_tokens_details` nowhere). Caught by CLI-009."""

    def result(self) -> dict[str, Any]:
        result = super().result()
        if result["usage"] is not None:
            result["usage"] = {**result["usage"], "cached_tokens": 0}
        return result


def _no_calls_on_error(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "tool_calls": []} if result["error"] is not None else result


class DropsCallsBesideMalformed(ReferenceClient):
    """drops_calls_beside_malformed: one call whose arguments are not JSON makes it report an error and no call at
    all, the valid ones beside it lost. Caught by CLI-020 alone (the error itself is right: CLI-008)."""

    def result(self) -> dict[str, Any]:
        return _no_calls_on_error(super().result())


class ChatDropsCallsBesideMalformed(ChatReferenceClient):
    """drops_calls_beside_malformed (Chat): as the Responses one. Caught by CLI-020."""

    def result(self) -> dict[str, Any]:
        return _no_calls_on_error(super().result())


class AnthropicDropsCallsBesideMalformed(AnthropicReferenceClient):
    """drops_calls_beside_malformed (Anthropic): as the Responses one. Caught by CLI-020."""

    def result(self) -> dict[str, Any]:
        return _no_calls_on_error(super().result())


DEFECTS: dict[str, type[ReferenceClient]] = {
    "rejects_unknown_events": RejectsUnknownEvents,
    "errors_after_terminal": ErrorsAfterTerminal,
    "joins_legacy_argument_deltas": JoinsLegacyArgumentDeltas,
    "calls_from_required_action": CallsFromRequiredAction,
    "usage_drops_cached": UsageDropsCached,
    "drops_calls_beside_malformed": DropsCallsBesideMalformed,
}
CHAT_DEFECTS: dict[str, type[ChatReferenceClient]] = {"drops_calls_beside_malformed": ChatDropsCallsBesideMalformed}
ANTHROPIC_DEFECTS: dict[str, type[AnthropicReferenceClient]] = {
    "drops_calls_beside_malformed": AnthropicDropsCallsBesideMalformed,
}


def run_without_usage(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """The reference client of `dialect` in-process, its result without `usage` (the adapter protocol makes it
    optional): correct, and CLI-009 is then not judged (the case's details say why)."""
    return {key: value for key, value in run(request, base_url, dialect).items() if key != "usage"}
