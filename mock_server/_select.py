"""Selection by `match` (docs/spec/contracts.md §3, step 4): the first scenario, in load order, whose match block
holds for a request that named no scenario; and, when none holds, the nearest candidates with the keys that failed
(for the strict mode's 404)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from callproof.harness.scenario import RequestFacts, Scenario, request_facts

from .dialects import Dialect

__all__ = ["by_match", "nearest_matches", "no_match"]


def by_match(
    scenarios: Iterable[Scenario], dialect: Dialect, body: Mapping[str, Any]
) -> tuple[Scenario | None, str, RequestFacts | None]:
    """The first scenario whose match holds, how it was selected (e.g. "match user_text.contains, model"), and the
    request's facts (None when no scenario has a match block: nothing was read)."""
    facts: RequestFacts | None = None
    for scenario in scenarios:
        if scenario.match is None:
            continue
        if facts is None:
            facts = request_facts(dialect, body)
        if scenario.match.holds(facts):
            return scenario, "match " + ", ".join(scenario.match.keys), facts
    return None, "", facts


def nearest_matches(
    scenarios: Iterable[Scenario], facts: RequestFacts, limit: int = 3
) -> list[tuple[str, tuple[str, ...]]]:
    """The scenarios whose match failed on the fewest keys (ties in load order), each with the keys that failed."""
    scored = [(scenario.id, scenario.match.failures(facts)) for scenario in scenarios if scenario.match is not None]
    return sorted(scored, key=lambda row: len(row[1]))[:limit]


def no_match(scenarios: Iterable[Scenario], facts: RequestFacts) -> tuple[str, list[str]]:
    """The strict 404's message when no scenario was named and no match holds (the nearest matches and the keys
    that failed), and the nearest ids."""
    nearest = nearest_matches(scenarios, facts)
    detail = "; ".join(f"{sid} (failed: {', '.join(failed)})" for sid, failed in nearest)
    message = (f"No scenario selected and no scenario's match holds (last user text {facts.user_text[:80]!r}, "
               f"model {facts.model!r}, dialect {facts.dialect}); nearest: {detail}.")
    return message, [sid for sid, _ in nearest]
