"""Broken clients for the edge-case judgements of docs/spec/verdicts.md (`python -m tests.fakes.clients --defect
NAME`): each does what a real client or agent framework was seen to do, and names the one rule that owns it.

- a response that ended incomplete (a length or content-filter cut) reported as an error, the calls that were
  complete before the cut handed on (run) beside it (docs/spec/verdicts.md §3): CLI-005 alone.
"""

from __future__ import annotations

from .clients import Item, ReferenceClient

__all__ = ["DEFECTS"]


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
