"""The cache of rendered plans: which requests may replay a plan rendered before (deterministic scenarios: no
chaos faults, no jitter), keyed by scenario, leg, dialect, stream and the echoed request fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callproof.harness.scenario import Scenario

__all__ = ["PLAN_CACHE", "plan_key"]

#: Plans kept for replay (least recently used dropped first).
PLAN_CACHE = 256
#: Request fields the renderers never echo: they do not change a plan.
_NOT_ECHOED = frozenset(("input", "messages", "system"))


def plan_key(
    scenario: Scenario, dialect: str, stream: bool, body: Mapping[str, Any], leg: int | None = None,
) -> str | None:
    """The cache key of a plan, or None when the plan draws from the seeded generator (chaos faults, jitter) and
    so may differ per request. Everything else is deterministic, so a rendered plan can be replayed."""
    if scenario.timing.jitter_ms or any(f.probability < 1 for f in scenario.faults):
        return None
    echoed = {k: v for k, v in body.items() if k not in _NOT_ECHOED}
    # repr is exact for decoded JSON (it tells 1, 1.0 and True apart, and keeps key order) and cheaper than dumps.
    return repr((scenario.id, leg, dialect, stream, echoed))
