"""The rule catalogue: every rule's id, level, family, fronts, profiles, statement, spec reference and fix."""

from __future__ import annotations

from ._catalogue import CATALOGUE, RULES, STREAM_RULES, rules_for
from ._rule import (
    FAMILIES,
    FRONTS,
    PROFILES,
    STREAM_FAMILIES,
    Evidence,
    Family,
    Level,
    Profile,
    Rule,
    RuleResult,
    Violation,
)

__all__ = [
    "CATALOGUE",
    "Evidence",
    "FAMILIES",
    "FRONTS",
    "Family",
    "Level",
    "PROFILES",
    "Profile",
    "RULES",
    "Rule",
    "RuleResult",
    "STREAM_FAMILIES",
    "STREAM_RULES",
    "Violation",
    "rules_for",
]
