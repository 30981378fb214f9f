"""The result a client holds after a stream or a body of any dialect: the one entry point over the per-dialect
readers (`_outcome`, `_outcome_chat`, `_outcome_anthropic`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.check import SSEEvent

from ._outcome import Result, responses_body, responses_events
from ._outcome_anthropic import anthropic_body, anthropic_events, stopped_refusing
from ._outcome_chat import chat_body, chat_events

__all__ = ["reads_as_refusal", "result_of_body", "result_of_events"]

_EVENTS: dict[str, Callable[[Iterable[SSEEvent]], Result]] = {
    "responses": responses_events, "chat": chat_events, "anthropic": anthropic_events,
}
_BODY: dict[str, Callable[[Mapping[str, Any]], Result]] = {
    "responses": responses_body, "chat": chat_body, "anthropic": anthropic_body,
}


def result_of_events(events: Iterable[SSEEvent], dialect: Dialect) -> Result:
    """The result a client of `dialect` holds after reading these events."""
    return _EVENTS[dialect](events)


def result_of_body(body: JSONValue, http_status: int, dialect: Dialect) -> Result:
    """The result of a non-stream answer in `dialect`, or of an HTTP error."""
    if http_status >= 400:
        return Result("error", "", (), f"http {http_status}", error=f"HTTP {http_status}")
    if not isinstance(body, Mapping):
        return Result("error", "", (), "invalid body", error="the body is not a JSON object")
    return _BODY[dialect](body)


def reads_as_refusal(result: Result) -> bool:
    """Whether a client holds the model refusing: a refusal's text (a Responses refusal part, a Chat refusal), or
    an Anthropic turn that stopped with "refusal" and `stop_details` of type refusal, with or without text."""
    return bool(result.refusal) or stopped_refusing(result)
