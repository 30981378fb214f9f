"""`--policy custom-tools` reaches the judge (harness/judge/_policy.py custom_tool_expectation, GW-REQ-012): the
reference gateway, started refusing or converting custom tools, passes `custom_tool_offered::translation` under the
matching policy and fails it under the other, over a Chat and an Anthropic upstream, and passes it either way under
the default, `either`; a gateway that drops the tool or converts it without a string parameter fails it by default
too; toward a Responses upstream the policy changes nothing (the tool is carried as a custom tool)."""

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


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
def test_by_default_a_faithful_conversion_and_a_clear_refusal_both_pass(upstream: Dialect) -> None:
    """`--policy custom-tools=either`, the default (docs/spec/items.md §5): the reference gateway converting custom
    tools (`--custom-tools convert`) and refusing them both pass `custom_tool_offered::translation`."""
    assert _outcome(upstream, "convert", "either") == ("passed", "")
    assert _outcome(upstream, "refuse", "either") == ("passed", "")
    launch = (f"{sys.executable} -m examples.gateway --upstream {{upstream}} --port {{port}} "
              f"--upstream-dialect {upstream} --custom-tools convert")
    with Harness(RunConfig(launch=launch, upstream_dialect=upstream, case_timeout=15)) as harness:  # no --policy
        result = harness.judge(CASE)
    judged = [(r.rule.id, r.outcome) for r in result.results]
    assert result.outcome == "passed" and ("GW-REQ-012", "passed") in judged, (result.outcome, result.message)


@pytest.mark.parametrize(("defect", "upstream", "said"), [
    ("drops_custom_tool", "chat", "custom tool 'apply_patch' is missing from the upstream request"),
    ("custom_tool_without_parameters", "anthropic", "--policy custom-tools=either: custom tool 'apply_patch' became a "
     "function tool whose parameters {\"type\": \"object\", \"properties\": {}} are not one required string "
     "parameter"),
])
def test_by_default_a_dropped_or_mangled_custom_tool_still_fails(defect: str, upstream: Dialect, said: str) -> None:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect {upstream}",
                       upstream_dialect=upstream, case_timeout=15)
    with Harness(config) as harness:
        result = harness.judge(CASE)
    assert result.outcome == "failed" and [r.rule.id for r in result.failed] == ["GW-REQ-012"]
    assert said in result.message, result.message
