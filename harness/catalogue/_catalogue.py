"""The rule catalogue (docs/spec/contracts.md §7): families 1-6 check one stream, 7-9 are the harness's rules.

The rules are data: `rules.json` beside this module, validated by schemas/catalogue.schema.json in the tests.
Rule ids are stable: once published, an id never changes meaning. `callproof rules` prints the catalogue and
docs/rules.md is generated from it (`make docs`; tests/harness/catalogue/test_catalogue.py keeps them equal).
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any, cast

from callproof.harness._types import Dialect

from ._rule import FAMILIES, FRONTS, LEVELS, PROFILES, Family, Level, Profile, Rule

__all__ = ["CATALOGUE", "RULES", "STREAM_RULES", "rules_for"]


def _rule(entry: dict[str, Any]) -> Rule:
    """One entry of rules.json; a value outside its vocabulary is a packaging bug, reported by id."""
    rule_id = entry["id"]
    checks = (("level", entry["level"], LEVELS), ("family", entry["family"], FAMILIES))
    for field, value, allowed in checks:
        if value not in allowed:
            raise ValueError(f"rules.json: {rule_id}: {field} {value!r} is not one of {allowed}")
    for field, allowed_seq in (("fronts", FRONTS), ("profiles", PROFILES)):
        unknown = set(entry.get(field, ())) - set(allowed_seq)
        if unknown:
            raise ValueError(f"rules.json: {rule_id}: {field} {sorted(unknown)} not in {allowed_seq}")
    return Rule(
        rule_id, cast(Level, entry["level"]), cast(Family, entry["family"]),
        frozenset(cast(list[Dialect], entry["fronts"])), entry["statement"], entry["spec"], entry["fix"],
        frozenset(cast(list[Profile], entry.get("profiles", PROFILES))),
        bool(entry.get("timing", False)),
    )


def _load() -> tuple[Rule, ...]:
    document = json.loads(files(__package__).joinpath("rules.json").read_text(encoding="utf-8"))
    return tuple(_rule(entry) for entry in document["rules"])


CATALOGUE: tuple[Rule, ...] = _load()
RULES: dict[str, Rule] = {rule.id: rule for rule in CATALOGUE}
#: The rules one stream or body is checked for (families 1-6).
STREAM_RULES: tuple[Rule, ...] = tuple(rule for rule in CATALOGUE if rule.on_stream)


@cache
def rules_for(front: Dialect, profile: Profile) -> tuple[Rule, ...]:
    """The stream rules that apply to a stream of `front` under `profile`, in catalogue order."""
    return tuple(rule for rule in STREAM_RULES if rule.applies(front, profile))
