"""Every bundled scenario, rendered in every dialect, as a stream and as a body, is what the checker accepts:
it validates against schemas/ and passes every rule, except the rules the scenario declares it `breaks`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness import check_body, check_bytes
from callproof.harness.scenario import Scenario, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS
from callproof.mock_server.dialects._render import RenderContext, Renderer

SCENARIOS = bundled_scenarios()
DIALECTS = ("responses", "chat", "anthropic")
#: Raw scenarios send their frames verbatim (tests/mock_server/test_player.py covers them), so only rendered ones.
RENDERED = [
    pytest.param(scenario, dialect, id=f"{scenario.id}::{dialect}")
    for scenario in SCENARIOS.values()
    for dialect in DIALECTS
    if dialect not in scenario.raw
]
#: A deliberately broken scenario has no correct non-stream body to compare.
BODIES = [p for p in RENDERED if not p.values[0].breaks.get(p.values[1])]  # type: ignore[union-attr]


def _renderer(dialect: str) -> Renderer:
    return RENDERERS[dialect]  # type: ignore[index]


@pytest.mark.parametrize(("scenario", "dialect"), RENDERED)
def test_stream_passes_the_checker_except_declared_breaks(scenario: Scenario, dialect: Any) -> None:
    rendered = _renderer(dialect).stream(scenario, RenderContext())
    report = check_bytes(rendered.body, front=dialect, profile="openai")
    details = {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    assert report.failed_rules == scenario.breaks.get(dialect, ()), details


@pytest.mark.parametrize(("scenario", "dialect"), BODIES)
def test_body_passes_the_checker(scenario: Scenario, dialect: Any) -> None:
    body = _renderer(dialect).body(scenario, RenderContext())
    report = check_body(json.dumps(body).encode(), front=dialect, profile="openai")
    details = {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    assert report.failed_rules == (), details


@pytest.mark.parametrize(("scenario", "dialect"), RENDERED)
def test_rendering_is_deterministic(scenario: Scenario, dialect: Any) -> None:
    first = _renderer(dialect).stream(scenario, RenderContext(seed="s1"))
    again = _renderer(dialect).stream(scenario, RenderContext(seed="s1"))
    assert first == again
