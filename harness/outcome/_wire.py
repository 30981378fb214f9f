"""The result a client holds after a stream or a body of any dialect: the one entry point over the per-dialect
readers (`_outcome`, `_outcome_chat`, `_outcome_anthropic`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.check import SSEEvent
from callproof.harness.dialects import DIALECTS

from ._outcome import Result, responses_body, responses_events
from ._outcome_anthropic import anthropic_body, anthropic_events, stopped_refusing
from ._outcome_chat import chat_body, chat_events

__all__ = ["OUTCOME_READERS", "reads_as_refusal", "result_of_body", "result_of_events"]

#: How a client of each dialect reads an answer: (its stream's events, its non-stream body). One row per row of
#: the dialect table (tests/harness/dialects/test_tables.py binds them).
OUTCOME_READERS: dict[str, tuple[Callable[[Iterable[SSEEvent]], Result], Callable[[Mapping[str, Any]], Result]]] = {
    "responses": (responses_events, responses_body),
    "chat": (chat_events, chat_body),
    "anthropic": (anthropic_events, anthropic_body),
}


def result_of_events(events: Iterable[SSEEvent], dialect: Dialect, *, aborted: str | None = None) -> Result:
    """The result a client of `dialect` holds after reading these events. `aborted`: why the body that carried them
    did not end cleanly (the connection closed before a chunked body's last chunk, or short of its Content-Length).
    The official SDKs read the body to its end and raise then (httpx's `RemoteProtocolError`; openai-python wraps it
    in `APIConnectionError`), so the client holds an error, ended by `abort`, and nothing the SDK would have settled
    (docs/spec/verdicts.md §7); only a Chat stream whose `data: [DONE]` came first is read as usual (openai-python
    stops reading there and never sees the abort)."""
    seen = list(events)
    result = OUTCOME_READERS[dialect][0](seen)
    if aborted is None or (DIALECTS[dialect].done_sentinel and any(e.data.strip() == "[DONE]" for e in seen)):
        return result
    return Result("error", result.text, result.calls, "abort", error=f"the body was aborted: {aborted}",
                  refusal=result.refusal, reasoning=result.reasoning)


def result_of_body(body: JSONValue, http_status: int, dialect: Dialect) -> Result:
    """The result of a non-stream answer in `dialect`, or of an HTTP error."""
    if http_status >= 400:
        return Result("error", "", (), f"http {http_status}", error=f"HTTP {http_status}")
    if not isinstance(body, Mapping):
        return Result("error", "", (), "invalid body", error="the body is not a JSON object")
    return OUTCOME_READERS[dialect][1](body)


def reads_as_refusal(result: Result) -> bool:
    """Whether a client holds the model refusing: a refusal's text (a Responses refusal part, a Chat refusal), or
    an Anthropic turn that stopped with "refusal" and `stop_details` of type refusal, with or without text."""
    return bool(result.refusal) or stopped_refusing(result)
