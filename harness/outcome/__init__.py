"""What an implementation answered: one HTTP exchange as a value, and the outcome (status, text, calls) a client
holds after it, read from a stream or a body of any dialect or from a client adapter's result."""

from __future__ import annotations

from ._exchange import Chunk, Exchange
from ._outcome import Call, Result, Status, result_of_adapter, status_matches
from ._outcome_anthropic import stopped_refusing
from ._wire import OUTCOME_READERS, reads_as_refusal, result_of_body, result_of_events

__all__ = [
    "Call",
    "Chunk",
    "Exchange",
    "OUTCOME_READERS",
    "Result",
    "Status",
    "reads_as_refusal",
    "result_of_adapter",
    "result_of_body",
    "result_of_events",
    "status_matches",
    "stopped_refusing",
]
