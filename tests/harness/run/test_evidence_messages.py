"""Evidence that names the real finding, through real runs (the fakes of tests/fakes/evidence_gateways.py through
the harness against the mock on 127.0.0.1): GW-USAGE-001 names the upstream request field a gateway left out
rather than counts the upstream never sent, and EXP-001 lists the calls the front held, phantoms and all, when a
name split across Chat deltas became several calls."""

from __future__ import annotations

import pytest

from callproof.harness.catalogue import Violation
from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _violations(defect: str, scenario: str, group: str) -> dict[str, list[Violation]]:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect chat", upstream_dialect="chat",
                       case_timeout=15)
    with Harness(config) as harness:
        result = harness.judge(CaseSpec(scenario, group))
    return {r.rule.id: list(r.violations) for r in result.failed}


def test_a_gateway_that_never_asks_for_usage_is_told_the_request_field() -> None:
    (violation,) = _violations("no_include_usage", "usage_cached_tokens", "usage")["GW-USAGE-001"]
    assert violation.message == (
        "the gateway's upstream request has no stream_options.include_usage, so the upstream sent no usage (the "
        "front reported none): a streaming Chat upstream sends usage only when asked; send \"stream_options\": "
        "{\"include_usage\": true} upstream")
    assert (violation.evidence.path, violation.evidence.expected, violation.evidence.actual) == (
        "$.stream_options.include_usage", True, None)


def test_a_name_split_into_phantom_calls_lists_every_call_seen() -> None:
    (violation,) = _violations("name_fragments_as_calls", "fragmented_name", "expected")["EXP-001"]
    assert violation.message == ('the completed tool calls are 3 calls: get_({}), weat({}), her({"city":"Paris"}); '
                                 'expected 1 call: get_weather({"city":"Paris"})')
    assert violation.evidence.actual == ["get_({})", "weat({})", 'her({"city":"Paris"})']
    (kept,) = _violations("first_name_fragment", "fragmented_name", "expected")["EXP-001"]
    assert kept.message == ('the completed tool calls are 1 call: get_({"city":"Paris"}); expected 1 call: '
                            'get_weather({"city":"Paris"})')
