"""Gateways and Chat streams as real OpenAI-compatible servers send them (docs/spec/verdicts.md §11, §12), in the style
of `gateways.py` (which merges `CHAT_STREAM_DEFECTS` into its own): the reference gateway with one change, named with
the rule that must catch it, or, for a correct variant, the test that shows it passes."""

from __future__ import annotations

from examples.gateway import ChatFront, ChatUpstream, Json
from examples.gateway.fronts.chat import ChatTurn
from examples.gateway.upstreams.chat import ReadState

__all__ = ["CHAT_STREAM_DEFECTS"]


class IndexlessCallsMerged(ChatUpstream):
    """indexless_calls_merged: a Chat upstream's tool-call delta without `index` is taken for the call at its position
    in the delta's `tool_calls` (0), whatever id it carries, as readers built on OpenAI's pattern do: parallel calls
    streamed with their ids but no index (Gemini) merge into one call, the first one's name and id, both argument
    texts joined. Caught by EXP-001 (chat_parallel_calls_without_index). A defect of the Chat upstream reader,
    whatever the front."""

    def key(self, state: ReadState, tool_call: Json, position: int) -> int:
        index = tool_call.get("index")
        return index if isinstance(index, int) else position


class ErrorThenDone(ChatFront):
    """error_then_done (correct, not a defect): the Chat front ends a failed stream with its error object and then
    `data: [DONE]`, as vLLM does. A Chat front may (docs/spec/verdicts.md §11): CHAT-FRAME-001 accepts either end and
    the openai SDK raises at the error object. tests/harness/run/test_edge_verdicts.py shows it passes."""

    def fail(self, turn: ChatTurn, code: str, message: str) -> None:
        super().fail(turn, code, message)
        turn.done = True


#: Defect (or correct variant) name -> the changed part of the reference gateway.
CHAT_STREAM_DEFECTS: dict[str, type[ChatUpstream] | type[ChatFront]] = {
    "indexless_calls_merged": IndexlessCallsMerged,
    "error_then_done": ErrorThenDone,
}
