"""The order of a Responses stream's events: which items are added, which fragments sent and which items closed,
in what order, for items whose fragments may interleave (docs/spec/responses.md §2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from callproof.harness.scenario import Scenario

__all__ = ["Action", "Plan", "plan_events"]

#: ("add", output, 0), ("fragment", output, fragment index) or ("close", output, 0).
Action = tuple[Literal["add", "fragment", "close"], int, int]


@dataclass(frozen=True, slots=True)
class Plan:
    """What happens on the wire, in order: items added, fragments sent, items closed.

    `actions` are ("add", output, 0), ("fragment", output, fragment index) and ("close", output, 0); `cut` are
    the items still open when the model stopped (the last group): with a length or content_filter ending they
    close with status "incomplete", with a failed ending they are never closed."""

    actions: tuple[Action, ...]
    cut: frozenset[int]


def plan_events(scenario: Scenario) -> Plan:
    """Group items whose fragments interleave; each group's items are added right before their first fragment
    (in output order: an item is never added after a later one) and all close, in output order, right after the
    group's last fragment. Items without fragments are added and closed on their own, in output order."""
    steps = scenario.steps
    count = len(scenario.output)
    first = [len(steps)] * count
    last = [-1] * count
    for position, step in enumerate(steps):
        first[step.output] = min(first[step.output], position)
        last[step.output] = position
    # An item is added before any later item is: its start is the earliest first fragment from it on.
    start = [0] * count
    earliest = len(steps)
    for index in reversed(range(count)):
        earliest = min(earliest, first[index])
        start[index] = earliest
    # An item without fragments ends right where it starts, before the fragment at its start position.
    end = [last[i] + 0.0 if last[i] >= 0 else start[i] - 0.5 for i in range(count)]
    groups: list[list[int]] = []
    group_end = float("-inf")
    for index in range(count):
        if groups and start[index] <= group_end:
            groups[-1].append(index)
            group_end = max(group_end, end[index])
        else:
            groups.append([index])
            group_end = end[index]
    actions: list[Action] = []
    for group in groups:
        high = max(end[i] for i in group)
        pending = list(group)
        for position in range(start[group[0]], math.floor(high) + 1):
            while pending and start[pending[0]] <= position:
                actions.append(("add", pending.pop(0), 0))
            step = steps[position]
            actions.append(("fragment", step.output, step.fragment))
        actions += [("add", index, 0) for index in pending]
        actions += [("close", index, 0) for index in group]
    return Plan(tuple(actions), frozenset(groups[-1]) if groups else frozenset())
