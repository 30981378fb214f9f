"""Selection by `match` (docs/spec/contracts.md §3, step 4): the first scenario, in load order, whose match block
holds for a request that named no scenario, or that named by its model name (`callproof/<id>`) an id no scenario
has; and, when none holds, the nearest candidates with the keys that failed (for the strict mode's 404).

The model name is both a selector and a fact a `match` reads: `callproof record` writes `match.model:
"callproof/<id>"` for a request that selected `<id>` by model name, and that recording must replay the same
request through a mock that does not have `<id>` (docs/mock.md#endpoints-and-scenario-selection). The header and
the marker are only selectors: an unknown id there stays an unknown id, never a content match."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from callproof.harness.scenario import RequestFacts, Scenario, request_facts

from .dialects import Dialect

__all__ = ["BY_MODEL", "by_match", "nearest_matches", "no_match", "select"]

#: How a request named its scenario by model name (the journal's `how`).
BY_MODEL = "model callproof/<id>"


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


def select(
    found: Scenario | None, wanted: str | None, how: str, scenarios: Iterable[Scenario], dialect: Dialect,
    body: Mapping[str, Any],
) -> tuple[Scenario | None, str, RequestFacts | None]:
    """The scenario answering a request that asked for `wanted` (`how`; None: it named none), given `found`, the
    scenario of that id it can see: that one; else, for a request that named none or named an unknown id by model
    name, the first whose match holds. Also how it was chosen, and the request's facts when a match was tried and
    none held (None: nothing was read, or no scenario has a match block)."""
    if found is not None:
        return found, how, None
    if wanted is not None and how != BY_MODEL:
        return None, how, None
    scenario, matched, facts = by_match(scenarios, dialect, body)
    if scenario is None:
        return None, how, facts
    if wanted is not None:
        matched += f" (no scenario {wanted!r})"
    return scenario, matched, None


def nearest_matches(
    scenarios: Iterable[Scenario], facts: RequestFacts, limit: int = 3
) -> list[tuple[str, tuple[str, ...]]]:
    """The scenarios whose match failed on the fewest keys (ties in load order), each with the keys that failed."""
    scored = [(scenario.id, scenario.match.failures(facts)) for scenario in scenarios if scenario.match is not None]
    return sorted(scored, key=lambda row: len(row[1]))[:limit]


def no_match(scenarios: Iterable[Scenario], facts: RequestFacts, wanted: str | None = None) -> tuple[str, list[str]]:
    """The strict 404's message when no scenario was named (or `wanted`, named by model name, is unknown) and no
    match holds (the nearest matches and the keys that failed), and the nearest ids."""
    nearest = nearest_matches(scenarios, facts)
    detail = "; ".join(f"{sid} (failed: {', '.join(failed)})" for sid, failed in nearest)
    first = "No scenario selected" if wanted is None else f"Unknown scenario {wanted!r} (from {BY_MODEL})"
    model = "null" if facts.model is None else repr(facts.model)
    message = (f"{first} and no scenario's match holds (last user text {facts.user_text[:80]!r}, "
               f"model {model}, dialect {facts.dialect}); nearest: {detail}.")
    return message, [sid for sid, _ in nearest]
