"""A content filter's ending is not a refusal (docs/spec/items.md §3.2, docs/spec/verdicts.md §5, §6): the model
refusing and a content filter cutting the turn are distinct endings. Where the upstream's content filter ended the
turn, an answer that reports a refusal (an Anthropic stop_reason "refusal" with `stop_details` of type refusal, a
Responses refusal content part, a Chat `delta.refusal` / `message.refusal`) is GW-FAULT-004's finding, in each form
the front answers. The other rules read such an answer as the content filter's ending it should have been
(`as_filtered`): its words as text, an Anthropic turn's ending from its stop_reason alone, so that the one defect
is counted once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from callproof.harness.dialects import Column
from callproof.harness.outcome import Result, reads_as_refusal, stopped_refusing
from callproof.harness.scenario import Scenario

__all__ = ["REFUSAL_AT", "as_filtered", "filtered", "filter_reported_as_refusal"]

#: Where each front says a turn is the model refusing, streamed and in the non-stream body (a column of the
#: dialect table).
REFUSAL_AT: Mapping[str, tuple[str, str]] = Column[tuple[str, str]]("refusal_at")

def filtered(scenario: Scenario) -> bool:
    """Whether the upstream's content filter ends the scenario's turn, with no refusal of the model in its output
    (whose refusal the front rightly carries as one)."""
    return scenario.ending == "content_filter" and not any(getattr(o, "type", "") == "refusal"
                                                          for o in scenario.output)


def filter_reported_as_refusal(scenario: Scenario, result: Result) -> bool:
    """Whether the answer reports the model refusing where the upstream's content filter cut the turn."""
    return filtered(scenario) and reads_as_refusal(result)


def as_filtered(scenario: Scenario, result: Result, *, words: bool = True) -> Result:
    """The answer as the content filter's ending it should have been, when it reported a refusal instead (else
    unchanged): the refusal's words are text (after the answer text; left out with `words=False`, which GW-EQ-001
    also tries, so that words one half adds after its text are GW-FAULT-004's finding alone), and an Anthropic turn
    that stopped with "refusal" ended incomplete, by the content filter (its stop_details not read). Any other
    status stays: a Responses or Chat answer that also says `completed` / `stop` has another stop reason, still
    judged."""
    if not filter_reported_as_refusal(scenario, result):
        return result
    anthropic = stopped_refusing(result)
    status = "incomplete" if anthropic else result.status
    reason = "content_filter" if anthropic else result.incomplete_reason
    text = result.text + (result.refusal if words else "")
    return dataclasses.replace(result, status=status, incomplete_reason=reason, text=text, refusal="")
