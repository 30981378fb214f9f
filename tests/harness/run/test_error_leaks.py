"""GW-FAULT-005 on real gateways against the real mock (docs/spec/contracts.md §7.8.1): the mock's `echo_request`
error body carries the request's credentials; the reference gateway, which passes its caller's key on, redacts it
from the message it hands on; a gateway forwarding the message verbatim is caught, whichever key it sent."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

FRONT_KEY = "Authorization:Bearer sk-callproof-front-key-abcdef0123456789"
CASES = ("fault_http_401_echoes_key", "fault_http_500_echoes_headers")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(defect: str | None, front: Any, headers: tuple[str, ...], launch: str = "") -> list[CaseResult]:
    launch = launch or f"{fakes.launch('gateways', defect)} --upstream-dialect chat"
    config = RunConfig(launch=launch, front=front, upstream_dialect="responses" if "websocket" in launch else "chat",
                       case_timeout=15, headers=headers)
    with Harness(config) as harness:
        return [harness.judge(CaseSpec(case, "faults")) for case in CASES]


def _leak(result: CaseResult) -> str:
    return next(r.outcome for r in result.results if r.rule.id == "GW-FAULT-005")


@pytest.mark.parametrize("front", ["responses", "anthropic"])
def test_the_reference_gateway_redacts_the_key_it_passed_on(front: str) -> None:
    results = _judge(None, front, (FRONT_KEY,))
    assert [(r.outcome, _leak(r)) for r in results] == [("passed", "passed")] * 2, [r.message for r in results]


def test_the_reference_gateway_redacts_it_over_a_websocket_upstream_too() -> None:
    launch = (f"{sys.executable} -m examples.gateway --upstream {{upstream}} --port {{port}} "
              "--upstream-dialect responses --upstream-transport websocket")
    results = _judge(None, "responses", (FRONT_KEY,), launch)
    assert [(r.outcome, _leak(r)) for r in results] == [("passed", "passed")] * 2, [r.message for r in results]


def test_a_gateway_forwarding_the_echo_fails_naming_the_header() -> None:
    results = _judge("leaks_upstream_error_body", "responses", ())
    assert [_leak(r) for r in results] == ["failed", "failed"]
    messages = [v.message for r in results for rule in r.results if rule.rule.id == "GW-FAULT-005"
                for v in rule.violations]
    assert all("the `authorization` header the gateway sent upstream" in m for m in messages), messages
    assert not any("0123456789abcdef" in m for m in messages)


def test_without_any_credential_nothing_is_judged() -> None:
    results = _judge(None, "responses", ())
    assert [r.outcome for r in results] == ["passed", "passed"]
    assert all(r.rule.id != "GW-FAULT-005" for result in results for r in result.results)
