"""A tool without a name through a gateway, in a real run (docs/spec/verdicts.md §16, GW-REQ-013): the mock answers
it with the HTTP 400 the real upstream of its dialect gives, so a gateway that passes the request on and relays that
400 (`forwards_nameless_tool`) passes `tool_definition_without_name`, as does one that refuses it itself (the
reference gateway); one that drops the tool or gives it a name fails GW-REQ-013, alone (the upstream's text then
reaches the front, which the scenario allows: a client library that cannot declare the tool leaves it out too). The
gateways run as real processes in front of a real mock on 127.0.0.1."""

from __future__ import annotations

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult
from callproof.harness.run import Harness, RunConfig
from tests import fakes

SCENARIO = "tool_definition_without_name"


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _results(defect: str | None, upstream: Dialect) -> dict[str, CaseResult]:
    launch = fakes.launch("gateways", defect) if defect else fakes.launch()
    config = RunConfig(launch=f"{launch} --upstream-dialect {upstream}", upstream_dialect=upstream, case_timeout=15)
    with Harness(config) as harness:
        return {s.group: harness.judge(s) for s in harness.cases() if s.scenario == SCENARIO}


@pytest.mark.parametrize("upstream", ["chat", "anthropic", "responses"])
def test_the_upstreams_400_passed_on_passes(upstream: Dialect) -> None:
    results = _results("forwards_nameless_tool", upstream)
    judged = [(r.rule.id, r.outcome) for r in results["translation"].results if r.rule.id == "GW-REQ-013"]
    assert judged == [("GW-REQ-013", "passed")]
    assert results["translation"].details["http_status"] == 400
    assert (results.pop("translation").outcome, results.pop("expected").outcome) == ("passed", "passed")
    # the stream groups have no stream to judge: the HTTP error is an answer the scenario allows (may_fail)
    assert results and {r.outcome for r in results.values()} == {"skipped"}, {
        g: (r.outcome, r.message) for g, r in results.items()}


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
def test_a_gateway_refusing_it_itself_passes(upstream: Dialect) -> None:
    results = _results(None, upstream)
    assert (results["translation"].outcome, results["translation"].message) == ("passed", "")
    assert [(r.rule.id, r.outcome) for r in results["translation"].results] == [("GW-REQ-013", "passed")]
    assert results["expected"].outcome == "skipped"  # judged by GW-REQ-013 in the translation case


@pytest.mark.parametrize(("defect", "upstream", "how"), [
    ("drops_nameless_tool", "chat", "dropped from the upstream request"),
    ("names_nameless_tool", "anthropic", 'given the made-up name ["tool_1"]'),
])
def test_a_nameless_tool_dropped_or_named_fails(defect: str, upstream: Dialect, how: str) -> None:
    results = _results(defect, upstream)
    translation = results.pop("translation")
    assert translation.outcome == "failed" and [r.rule.id for r in translation.failed] == ["GW-REQ-013"]
    assert f"the front request's tools[1] have no name and were {how}" in translation.message
    assert {g: r.outcome for g, r in results.items() if r.outcome != "passed"} == {}  # counted once
