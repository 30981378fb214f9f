"""`--policy custom-tools` reaches the judge (harness/judge/_policy.py custom_tool_expectation, GW-REQ-012): the
reference gateway, started refusing or converting custom tools, passes `custom_tool_offered::translation` under the
matching policy and fails it under the other, over a Chat and an Anthropic upstream; toward a Responses upstream the
policy changes nothing (the tool is carried as a custom tool)."""

from __future__ import annotations

import sys

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

CASE = CaseSpec("custom_tool_offered", "translation")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _outcome(upstream: Dialect, gateway: str, policy: str) -> tuple[str, str]:
    launch = (f"{sys.executable} -m examples.gateway --upstream {{upstream}} --port {{port}} "
              f"--upstream-dialect {upstream} --custom-tools {gateway}")
    config = RunConfig(launch=launch, upstream_dialect=upstream, case_timeout=15,
                       policy=(f"custom-tools={policy}",))
    with Harness(config) as harness:
        result = harness.judge(CASE)
    return result.outcome, result.message


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
def test_the_declared_policy_decides_between_refusing_and_converting(upstream: Dialect) -> None:
    assert _outcome(upstream, "refuse", "refuse") == ("passed", "")
    assert _outcome(upstream, "convert", "convert") == ("passed", "")
    outcome, message = _outcome(upstream, "convert", "refuse")
    assert outcome == "failed" and "--policy custom-tools=refuse: custom tool 'apply_patch' reached the" in message
    outcome, message = _outcome(upstream, "refuse", "convert")
    assert outcome == "failed" and "the run declares --policy custom-tools=convert" in message


def test_toward_a_responses_upstream_the_tool_is_carried_whatever_the_policy() -> None:
    assert _outcome("responses", "refuse", "refuse") == ("passed", "")
    assert _outcome("responses", "refuse", "convert") == ("passed", "")
