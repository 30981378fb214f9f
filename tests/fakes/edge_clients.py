"""Broken clients for the edge-case judgements of docs/spec/verdicts.md (`python -m tests.fakes.clients --defect
NAME`): each does what a real client or agent framework was seen to do, and names the one rule that owns it.

- a response that ended incomplete (a length or content-filter cut) reported as an error, the calls that were
  complete before the cut handed on (run) beside it (docs/spec/verdicts.md §3): CLI-005 alone;
- `sdk_chat` (not a defect): a Chat client that accumulates the stream with the openai SDK's own
  `ChatCompletionStreamState`, so a name or id repeated on later chunks comes out concatenated, as the SDK makes it
  (docs/spec/verdicts.md §4: the stream's bug, shown, not failed). `--client tests.fakes.edge_clients:sdk_chat`.
"""

from __future__ import annotations

from typing import Any

from .clients import Item, ReferenceClient

__all__ = ["DEFECTS", "sdk_chat"]


class ErrorsOnIncomplete(ReferenceClient):
    """errors_on_incomplete: hands on the calls that were done before a length cut, as an agent framework that runs
    them does, and reports the incomplete response as an error (`incomplete` stays false) instead of an incomplete
    result. Caught by CLI-005 alone (docs/spec/verdicts.md §3): CLI-006, EXP-001 and EXP-004 do not count it again."""

    def on_incomplete(self) -> None:
        self.error = self.error or "the response ended incomplete (max_output_tokens)"

    def is_complete(self, item: Item) -> bool:
        return item.done and item.status != "incomplete"


#: Defect name -> the broken Responses client.
DEFECTS: dict[str, type[ReferenceClient]] = {
    "errors_on_incomplete": ErrorsOnIncomplete,
}


def sdk_chat(request: dict[str, Any], base_url: str, dialect: str = "chat", tool_loop: bool = False,
             max_retries: int = 0) -> dict[str, Any]:
    """One Chat request streamed with the openai SDK and accumulated by its `ChatCompletionStreamState`: the calls
    of the snapshot as the SDK built them (a repeated name or id concatenated), no error unless the SDK raised."""
    assert dialect == "chat", "sdk_chat speaks Chat Completions only"
    import openai  # here: the SDK takes most of a fake client process's start-up to import, and only this needs it
    from openai.lib.streaming.chat import ChatCompletionStreamState

    with openai.OpenAI(base_url=base_url, api_key="callproof", max_retries=0) as client:
        state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
        try:
            for chunk in client.chat.completions.create(**{**request, "stream": True}):
                state.handle_chunk(chunk)
        except openai.OpenAIError as exc:
            return {"text": "", "tool_calls": [], "error": f"{type(exc).__name__}: {exc}", "incomplete": False}
        choice = state.current_completion_snapshot.choices[0]
        calls = [{"call_id": c.id, "name": c.function.name, "arguments": c.function.arguments or "{}"}
                 for c in choice.message.tool_calls or [] if c.type == "function"]
        return {"text": choice.message.content or "", "tool_calls": calls, "error": None,
                "incomplete": choice.finish_reason in ("length", "content_filter")}
