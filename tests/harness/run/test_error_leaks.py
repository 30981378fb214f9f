"""GW-FAULT-005 on real gateways against the real mock (docs/spec/contracts.md §7.8.1): the mock's `echo_request`
error body carries the request's credentials; the reference gateway, which passes its caller's key on, redacts it
from the message it hands on; a gateway forwarding the message verbatim is caught, whichever key it sent. The run
sends the front a key of its own by default, so a gateway echoing its caller's key is caught without `--header`
(docs/spec/verdicts.md §10); a routing header whose name merely holds "key" is no credential (verdicts.md §8)."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pytest

from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.request import front_request, new_case_tag
from callproof.harness.run import Harness, RunConfig
from tests import fakes
from tests.fakes.leak_gateways import PROVIDER, ROUTING_HEADER

FRONT_KEY = "Authorization:Bearer sk-callproof-front-key-abcdef0123456789"
CASES = ("fault_http_401_echoes_key", "fault_http_500_echoes_headers")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(defect: str | None, front: Any, headers: tuple[str, ...], launch: str = "",
           cases: tuple[str, ...] = CASES) -> list[CaseResult]:
    launch = launch or f"{fakes.launch('gateways', defect)} --upstream-dialect chat"
    config = RunConfig(launch=launch, front=front, upstream_dialect="responses" if "websocket" in launch else "chat",
                       case_timeout=15, headers=headers)
    with Harness(config) as harness:
        return [harness.judge(CaseSpec(case, "faults")) for case in cases]


def _leak(result: CaseResult) -> str:
    return next(r.outcome for r in result.results if r.rule.id == "GW-FAULT-005")


def _messages(results: list[CaseResult]) -> list[str]:
    return [v.message + str(v.evidence.actual) for r in results for rule in r.results
            if rule.rule.id == "GW-FAULT-005" for v in rule.violations]


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
    """`--header Authorization:` sends no credential, the run's own included: nothing could leak."""
    results = _judge(None, "responses", ("Authorization:",))
    assert [r.outcome for r in results] == ["passed", "passed"]
    assert all(r.rule.id != "GW-FAULT-005" for result in results for r in result.results)


@pytest.mark.parametrize("front", ["responses", "anthropic"])
def test_by_default_the_run_sends_its_own_key_and_judges_it(front: str) -> None:
    """No `--header`: the run's own key is sent (and passed on upstream by the reference gateway, which then redacts
    it from the echo), so GW-FAULT-005 is judged, and passes, on every HTTP error case."""
    results = _judge(None, front, (), cases=("fault_http_401", *CASES))
    assert [(r.outcome, _leak(r)) for r in results] == [("passed", "passed")] * 3, [r.message for r in results]


def test_a_gateway_echoing_its_callers_key_fails_naming_the_header_never_the_key() -> None:
    """Issue #36 item 9: the key the caller sent, named in the gateway's own error message. Without a credential
    sent (the runs before this one sent none by default) it passed unjudged."""
    config = RunConfig(launch=f"{fakes.launch('gateways', 'echoes_caller_key')} --upstream-dialect chat",
                       upstream_dialect="chat", case_timeout=15)
    key = config.front_headers["authorization"].partition(" ")[2]
    assert key.startswith("sk-callproof-") and len(key) > 40
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(case, "faults")) for case in ("fault_http_401", "fault_http_500")]
    assert [(r.outcome, _leak(r)) for r in results] == [("failed", "failed")] * 2
    assert [sorted(rule.rule.id for rule in r.failed) for r in results] == [["GW-FAULT-005"]] * 2
    messages = _messages(results)
    assert all("the `authorization` header the front was sent" in m for m in messages), messages
    assert not any(key in m or key[13:] in m for m in messages), "the secret is never printed"
    assert all(f"[{len(key)} characters of the `authorization` header the front was sent]" in m for m in messages)
    unjudged = _judge("echoes_caller_key", "responses", ("Authorization:",), cases=("fault_http_401",))
    assert [(r.outcome, [x.rule.id for x in r.results if x.rule.id == "GW-FAULT-005"]) for r in unjudged] == \
        [("passed", [])]


def test_a_routing_header_holding_key_in_its_name_is_no_credential() -> None:
    """Issue #36 item 1: `x-keyvendor-provider: anthropic` (as Portkey's gateway sends `x-portkey-provider`) reaches
    the upstream, which echoes it, and "anthropic" is in every error body; GW-FAULT-005 passes (it failed each such
    case when any name holding "key" counted as a credential's)."""
    config = RunConfig(launch=f"{fakes.launch('gateways', 'routes_by_provider_header')} --upstream-dialect chat",
                       upstream_dialect="chat", case_timeout=15, headers=(FRONT_KEY,))
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(case, "faults")) for case in CASES]
        assert [(r.outcome, _leak(r)) for r in results] == [("passed", "passed")] * 2, [r.message for r in results]
        # not vacuous: the header was echoed, and the provider's name is in the front's error body
        echoed = b"".join(w.data for w in harness.mock.journal.writes()).decode()
        assert f'"{ROUTING_HEADER}":"{PROVIDER}"' in echoed
        scenario = harness.scenarios["fault_http_500_echoes_headers"]
        request = front_request(scenario.id, scenario.request, case=new_case_tag(), dialect="responses")
        answer = httpx.post(results[1].details["front_url"], json=request, headers={"authorization": "Bearer x"},
                            timeout=15)
    message = answer.json()["error"]["message"]
    assert answer.status_code == 500 and message.startswith(f"{PROVIDER} answered HTTP 500")
    assert f'"{ROUTING_HEADER}": "{PROVIDER}"' in message  # the echo passed on, the header in it
