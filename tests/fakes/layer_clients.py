"""Clients that declare the layer they report (docs/adapters.md#layers, docs/spec/contracts.md §5 and §7.9), in the
three dialects: what CLI-008 asks of a call whose arguments are not JSON depends on it.

- `RawClient` (and its Chat and Anthropic forms) is correct: it reports `"layer": "raw"`, what a library such as
  openai-python gives (`arguments: str`, never parsed), and hands a call whose arguments are not JSON on as it came,
  byte for byte, with no error. `run` is its in-process form (`--client tests.fakes.layer_clients:run`).
- the defects (`--defect NAME` of tests/fakes/clients.py, wired through `dialect_defects`) each name the rule that
  catches them.

Each client is a reference client of tests/fakes/clients.py, chat_clients.py or anthropic_clients.py with its
`refuse` hook and its result changed, nothing else.
"""

from __future__ import annotations

import os
from typing import Any

from .anthropic_clients import AnthropicReferenceClient
from .chat_clients import ChatReferenceClient
from .clients import Driver, ReferenceClient, _parses, unusable_call

__all__ = ["ANTHROPIC_DEFECTS", "CHAT_DEFECTS", "DEFECTS", "RAW_CLIENTS", "run"]


def _declared(result: dict[str, Any], layer: object) -> dict[str, Any]:
    return {**result, "layer": layer}


def _repaired(result: dict[str, Any]) -> dict[str, Any]:
    """Each call whose arguments are not JSON closed with the braces it lacks, as a lenient partial-JSON parser does
    (`{"city": "Paris"` becomes `{"city": "Paris"}`)."""
    calls = []
    for call in result["tool_calls"]:
        text = call.get("arguments")
        if isinstance(text, str) and not _parses(text):
            call = {**call, "arguments": text + "}" * (text.count("{") - text.count("}"))}
        calls.append(call)
    return {**result, "tool_calls": calls}


def _nameless(calls: list[dict[str, Any]]) -> str | None:
    """A raw layer still cannot hand on a call without a name (there is no tool to name): the reference clients'
    error for it; arguments are not checked."""
    return unusable_call([c for c in calls if not c["name"]])


class RawClient(ReferenceClient):
    """A correct raw-layer client: `"layer": "raw"`, every call handed on with its arguments as the stream gave them
    (the joined deltas, or the done event's text), a call whose arguments are not JSON too, with no error."""

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return _nameless(calls)

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "raw")


class ChatRawClient(ChatReferenceClient):
    """The Chat form of `RawClient`: the tool call's joined `function.arguments` as they came."""

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return _nameless(calls)

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "raw")


class AnthropicRawClient(AnthropicReferenceClient):
    """The Anthropic form of `RawClient`: a tool_use block's joined `partial_json` as it came."""

    def refuse(self, calls: list[dict[str, Any]]) -> str | None:
        return _nameless(calls)

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "raw")


class RawRepairs(RawClient):
    """raw_layer_repairs: declares `"layer": "raw"` but closes arguments that are not JSON into JSON the model never
    produced, as a lenient partial-JSON parser does: the raw layer's leave covers the wire's text only. Caught by
    CLI-008."""

    def result(self) -> dict[str, Any]:
        return _repaired(super().result())


class ChatRawRepairs(ChatRawClient):
    """raw_layer_repairs (Chat): as the Responses one. Caught by CLI-008."""

    def result(self) -> dict[str, Any]:
        return _repaired(super().result())


class AnthropicRawRepairs(AnthropicRawClient):
    """raw_layer_repairs (Anthropic): as the Responses one. Caught by CLI-008."""

    def result(self) -> dict[str, Any]:
        return _repaired(super().result())


class ExecutingHandsOn(RawClient):
    """executing_hands_on_malformed: declares `"layer": "executing"` (an agent runtime that runs the calls it
    reports) and hands a call whose arguments are not JSON on as it came, with no error: the tool would run with
    them. Caught by CLI-008."""

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "executing")


class ChatParsedHandsOn(ChatRawClient):
    """parsed_hands_on_malformed (Chat): declares `"layer": "parsed"` and hands the call on as it came, with no
    error. Caught by CLI-008."""

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "parsed")


class AnthropicParsedHandsOn(AnthropicRawClient):
    """parsed_hands_on_malformed (Anthropic): as the Chat one. Caught by CLI-008."""

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "parsed")


class UnknownLayer(ReferenceClient):
    """unknown_layer: declares `"layer": "unparsed"`, a value the protocol does not know: an adapter error. Caught by
    CLI-001 (the result object breaks the protocol)."""

    def result(self) -> dict[str, Any]:
        return _declared(super().result(), "unparsed")


DEFECTS: dict[str, type[ReferenceClient]] = {
    "raw_layer_repairs": RawRepairs,
    "executing_hands_on_malformed": ExecutingHandsOn,
    "unknown_layer": UnknownLayer,
}
CHAT_DEFECTS: dict[str, type[ChatReferenceClient]] = {
    "raw_layer_repairs": ChatRawRepairs,
    "parsed_hands_on_malformed": ChatParsedHandsOn,
}
ANTHROPIC_DEFECTS: dict[str, type[AnthropicReferenceClient]] = {
    "raw_layer_repairs": AnthropicRawRepairs,
    "parsed_hands_on_malformed": AnthropicParsedHandsOn,
}

#: Dialect -> its correct raw-layer client.
RAW_CLIENTS: dict[str, type[ReferenceClient] | type[ChatReferenceClient] | type[AnthropicReferenceClient]] = {
    "responses": RawClient, "chat": ChatRawClient, "anthropic": AnthropicRawClient,
}


def run(request: dict[str, Any], base_url: str, dialect: str = "responses", tool_loop: bool = False,
        max_retries: int = 0) -> dict[str, Any]:
    """The raw-layer client of `dialect` in-process (`--client tests.fakes.layer_clients:run`)."""
    kind = RAW_CLIENTS[dialect]
    key = os.environ.get("OPENAI_API_KEY", "callproof")
    return Driver(lambda body: kind(base_url, key).run(body), dialect, tool_loop=tool_loop,
                  max_retries=max_retries).run(request)
