"""Broken gateways for the seed behaviours, in the style of `gateways.py` (which merges `SEED_DEFECTS` into its
own): the reference gateway with one defect, named with the rule that must catch it."""

from __future__ import annotations

import json
import weakref
from typing import Any

from examples.gateway import ChatUpstream, Front, Json, Upstream
from examples.gateway.model import ArgumentsDelta, Event
from examples.gateway.upstreams.chat import ReadState

__all__ = ["SEED_DEFECTS"]

_HELD: weakref.WeakKeyDictionary[ReadState, list[Event]] = weakref.WeakKeyDictionary()


def _not_json(events: list[Event]) -> bool:
    """Whether a held call's joined arguments are not JSON (`""` is none: no arguments)."""
    joined: dict[int, str] = {}
    for event in events:
        if isinstance(event, ArgumentsDelta):
            joined[event.key] = joined.get(event.key, "") + event.fragment
    for text in joined.values():
        try:
            json.loads(text or "{}")
        except ValueError:
            return True
    return False


class DropsCallsBesideMalformed(ChatUpstream):
    """drops_calls_beside_malformed: tool calls are held until the finish, and when one's arguments are not JSON
    the whole batch is dropped and the turn completes without calls: the valid call beside the bad one is lost
    (EXP-001; GW-ARGS-001 too, for the bad call neither passed through nor refused)."""

    def on_tool_call(self, state: ReadState, tool_call: Json, position: int) -> list[Event]:
        _HELD.setdefault(state, []).extend(super().on_tool_call(state, tool_call, position))
        return []

    def finish(self, state: ReadState) -> list[Event]:
        events = super().finish(state)
        held = _HELD.pop(state, []) + events[:-1]  # calls still pending start at the finish
        return [*([] if _not_json(held) else held), events[-1]]


SEED_DEFECTS: dict[str, type[Front[Any]] | type[Upstream]] = {
    "drops_calls_beside_malformed": DropsCallsBesideMalformed,
}
