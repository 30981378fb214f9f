"""Every bundled scenario, rendered in every dialect, as a stream and as a body, is what the checker accepts:
it validates against schemas/ and passes every rule, except the rules the scenario declares it `breaks`."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness import check_body, check_bytes
from callproof.mock_server._render import RenderContext, Renderer
from callproof.mock_server._scenario import Scenario, bundled_scenarios
from callproof.mock_server.renderers import RENDERERS

SCENARIOS = bundled_scenarios()
CASES = [
    pytest.param(scenario, dialect, id=f"{scenario.id}::{dialect}")
    for scenario in SCENARIOS.values()
    for dialect in ("responses", "chat", "anthropic")
]


def _renderer(dialect: str) -> Renderer:
    return RENDERERS[dialect]  # type: ignore[index]


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_stream_passes_the_checker_except_declared_breaks(scenario: Scenario, dialect: Any) -> None:
    if dialect in scenario.raw:
        pytest.skip("raw scenario: frames are sent verbatim, not rendered")
    rendered = _renderer(dialect).stream(scenario, RenderContext())
    report = check_bytes(rendered.body, front=dialect, profile="openai")
    details = {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    assert report.failed_rules == scenario.breaks.get(dialect, ()), details


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_body_passes_the_checker(scenario: Scenario, dialect: Any) -> None:
    if scenario.breaks.get(dialect) or dialect in scenario.raw:
        pytest.skip("a deliberately broken or raw scenario has no correct body to compare")
    import json

    body = _renderer(dialect).body(scenario, RenderContext())
    report = check_body(json.dumps(body).encode(), front=dialect, profile="openai")
    details = {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    assert report.failed_rules == (), details


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_rendering_is_deterministic(scenario: Scenario, dialect: Any) -> None:
    if dialect in scenario.raw:
        pytest.skip("raw scenario")
    first = _renderer(dialect).stream(scenario, RenderContext(seed="s1"))
    again = _renderer(dialect).stream(scenario, RenderContext(seed="s1"))
    assert first == again
