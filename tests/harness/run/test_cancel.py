"""The cancellation cases (docs/spec/cancellation.md) through the harness, against real gateway processes and a
real mock on 127.0.0.1: planned at every front (the scenarios' only case, none in client mode); the reference
gateway's upstream request ends `cancelled` after the client's close, in both cases, with the figures in the
details; a case with no evidence (the upstream finished before the client closed, or was never called) is an
error, never passed. The broken fakes are the mutation table's (test_mutations.py). Verdicts are read from the
journal's stamps and their order, never from elapsed time."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.judge import CANCEL_RULES, CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._cancel_exchange import HOPS, watch_limits
from callproof.harness.run._plan import plan_cases
from callproof.mock_server import bundled_scenarios
from tests import fakes

SCENARIOS = bundled_scenarios()
CANCEL = ("cancel_mid_stream", "cancel_before_first_byte")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


@pytest.mark.parametrize("front", DIALECTS)
def test_the_cancellation_scenarios_get_their_one_case_at_every_front(front: Dialect) -> None:
    gateway = plan_cases(SCENARIOS, "gateway", "chat", front, "responses")
    assert [s.id for s in gateway if s.scenario in CANCEL] == [f"{s}::cancellation" for s in CANCEL]
    assert not [s for s in gateway if s.group == "cancellation" and s.scenario not in CANCEL]
    client = plan_cases(SCENARIOS, "client", "chat", "responses", front)
    assert not [s for s in client if s.scenario in CANCEL or s.group == "cancellation"]


def test_the_watch_grows_with_the_bound_from_a_floor() -> None:
    assert watch_limits(0.1) == (1.0, 0.5)
    assert watch_limits(1.0) == (3.0, 1.0)


@pytest.mark.timing
@pytest.mark.parametrize("front", DIALECTS)
def test_the_reference_gateway_closes_its_upstream_request_after_the_client(front: Dialect) -> None:
    config = RunConfig(launch=f"{fakes.launch()} --upstream-dialect chat", front=front, case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(s, "cancellation")) for s in CANCEL]
    for result in results:
        assert (result.outcome, result.message) == ("passed", ""), result.spec.id
        assert [(r.rule.id, r.outcome) for r in result.results] == [(r, "passed") for r in CANCEL_RULES]
        facts = result.details["cancel"]
        slack_ms = result.details["calibration"]["slack_ms"]
        assert facts["bound_ms"] == pytest.approx(HOPS * slack_ms, abs=HOPS * 0.05 + 0.1)  # slack_ms is rounded
        (upstream,) = facts["upstream"]  # one upstream request: sent before the close, cancelled after it
        assert upstream["sent_ms"] < 0 <= upstream["ended_ms"] and upstream["ended"] == "cancelled"
    mid, first = (r.details["cancel"] for r in results)
    assert mid["variant"] == "after_events" and mid["events_read"] >= 5
    assert first["variant"] == "before_first_byte" and first["bytes_read"] == 0


@pytest.mark.timing
def test_a_stream_that_ended_before_the_close_is_no_evidence() -> None:
    """The buffering fake sends nothing until the upstream has finished: when the client has its 5 events, the
    upstream answer is over, nothing is left to cancel, and the case is an error saying so (GW-STREAM-001 judges
    the buffering), never passed."""
    config = RunConfig(launch=fakes.launch("gateways", "buffering"), case_timeout=15)
    with Harness(config) as harness:
        result = harness.judge(CaseSpec("cancel_mid_stream", "cancellation"))
    assert result.outcome == "error", result.message
    assert "had already ended (completed)" in result.message and "nothing left to cancel" in result.message
    assert [(r.rule.id, r.outcome) for r in result.results] == []


def test_a_gateway_that_never_calls_its_upstream_is_an_error(tmp_path: Path) -> None:
    script = tmp_path / "hang.py"
    script.write_text(fakes.HANGS_ON_POST, encoding="utf-8")
    config = RunConfig(launch=f"python {script} {{port}}", case_timeout=2)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(s, "cancellation")) for s in CANCEL]
    assert [r.outcome for r in results] == ["error", "error"]
    assert "fewer than the 5 the client reads before closing" in results[0].message
    assert results[1].message == ("the gateway did not call its upstream within 2 s of the request: there was "
                                  "nothing to cancel")
