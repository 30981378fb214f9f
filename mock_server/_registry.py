"""Scenarios registered at run time over the control API (`POST /_callproof/scenarios`, `DELETE
/_callproof/scenarios/{id}`), for a test suite in any language: validated like scenario files, visible to every
request or, with `?case=TAG`, only to requests carrying that case tag; gone on reset (docs/mock.md#the-control-api).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from callproof.harness.scenario import Scenario, ScenarioError, parse_scenario_file

__all__ = ["Registry", "parse_registration", "registration_summary"]

#: The feature a single posted scenario is filed under.
REGISTERED = "registered"


class Registry:
    """The scenarios the mock was started with, and those registered since: globally or per case tag. A registered
    scenario shadows a loaded one of the same id (`replace`), and removing it brings the loaded one back."""

    def __init__(self, loaded: Mapping[str, Scenario]) -> None:
        self.loaded = loaded
        self.shared: dict[str, Scenario] = {}
        self.cases: dict[str, dict[str, Scenario]] = {}

    def find(self, scenario_id: str | None, case: str | None) -> Scenario | None:
        """The scenario `scenario_id` as a request with case tag `case` sees it."""
        if scenario_id is None:
            return None
        scoped = self.cases.get(case, {}) if case is not None else {}
        return scoped.get(scenario_id) or self.shared.get(scenario_id) or self.loaded.get(scenario_id)

    def visible(self, case: str | None) -> dict[str, Scenario]:
        """Every scenario a request with case tag `case` can select, by id."""
        return {**self.loaded, **self.shared, **(self.cases.get(case, {}) if case is not None else {})}

    def add(self, scenarios: tuple[Scenario, ...], case: str | None, *, replace: bool) -> list[str]:
        """Register `scenarios`; the ids that clash (and nothing registered) unless `replace`."""
        clash = [s.id for s in scenarios if self.find(s.id, case) is not None]
        if clash and not replace:
            return clash
        target = self.cases.setdefault(case, {}) if case is not None else self.shared
        target.update((s.id, s) for s in scenarios)
        return []

    def remove(self, scenario_id: str, case: str | None) -> bool:
        target = self.cases.get(case, {}) if case is not None else self.shared
        return target.pop(scenario_id, None) is not None

    def reset(self) -> bool:
        """Forget every registered scenario; whether there was any."""
        had = bool(self.shared or self.cases)
        self.shared.clear()
        self.cases.clear()
        return had


def parse_registration(raw: bytes) -> tuple[Scenario, ...]:
    """The scenarios of a POST body: a scenario file object (`feature`, `description`, `scenarios`) or one scenario.
    Raises `ScenarioError` naming the JSON path of the problem in the body as posted."""
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise ScenarioError(f"request body: not valid JSON: {exc}; send a scenario file object or one scenario") \
            from None
    if not isinstance(doc, dict):
        raise ScenarioError("request body: $: not a JSON object; send a scenario file object or one scenario")
    single = "scenarios" not in doc
    if single:
        doc = {"feature": REGISTERED, "description": "Scenarios registered at run time.", "scenarios": [doc]}
    feature = doc.get("feature")
    source = f"{feature}.json" if isinstance(feature, str) and "/" not in feature else "body.json"
    try:
        scenarios = parse_scenario_file(json.dumps(doc), source)
    except ScenarioError as exc:
        message = str(exc).removeprefix(f"{source}: ")
        if single:
            message = message.replace("$.scenarios[0]", "$", 1).replace("scenarios[0] (", "(", 1)
        raise ScenarioError(f"request body: {message}") from None
    seen: set[str] = set()
    for index, scenario in enumerate(scenarios):
        if scenario.id in seen:
            raise ScenarioError(f"request body: $.scenarios[{index}].id: scenario id {scenario.id!r} is given twice; "
                                "ids are unique: rename one")
        seen.add(scenario.id)
    return scenarios


def registration_summary(scenarios: tuple[Scenario, ...], case: str | None) -> dict[str, Any]:
    return {"registered": [s.id for s in scenarios], "case": case}
