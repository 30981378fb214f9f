"""GW-STREAM by causality, against real gateway processes on 127.0.0.1: a gateway whose every event is merely
40 ms late passes (latency, reported in the details), one that writes in batches of three is caught (buffering).
Lateness the machine's load can account for is played again: a gateway late in its first play only passes on the
second, one late in every play fails after the last (the load is real: the fakes' own children keep a CPU busy, and
the kernel counts the waits of the IUT's process tree)."""

from __future__ import annotations

import os

import pytest

from callproof.harness.judge import STREAM_PLAYS, CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

CASES = ("timing_explicit_delays", "timing_tokens_per_second")

pytestmark = pytest.mark.timing  # `make test-under-load` runs them beside CPU-bound competitors too


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def test_a_gateway_that_is_merely_late_passes_with_its_latency_in_the_details() -> None:
    with Harness(RunConfig(launch=fakes.launch("gateways", "delayed_40ms"), case_timeout=15)) as harness:
        results = [harness.judge(CaseSpec(c, "streaming")) for c in CASES]
    for result in results:
        assert result.outcome == "passed", (result.spec.id, result.message)
        latency = result.details["forwarding_latency_ms"]
        assert latency["p50"] >= 40 and latency["events"] >= 2, latency
        calibration = result.details["calibration"]
        assert calibration["events"] > 0 and calibration["p50_ms"] <= calibration["max_ms"], calibration
        assert calibration["slack_ms"] >= 5


def test_a_gateway_that_holds_events_until_the_next_upstream_write_is_caught() -> None:
    with Harness(RunConfig(launch=fakes.launch("gateways", "flush_every_3"), case_timeout=15)) as harness:
        result = harness.judge(CaseSpec("timing_explicit_delays", "streaming"))
    assert result.outcome == "failed"
    failed = {r.rule.id: r for r in result.failed}
    assert "GW-STREAM-002" in failed and "GW-STREAM-001" not in failed, result.message
    assert "held back until more upstream data arrived" in failed["GW-STREAM-002"].violations[0].message



needs_schedstat = pytest.mark.skipif(not os.path.exists(f"/proc/self/task/{os.getpid()}/schedstat"),
                                     reason="the harness reads CPU waits from Linux's schedstat only")


@needs_schedstat
def test_a_play_the_load_can_account_for_is_played_again_and_the_next_one_judges() -> None:
    with Harness(RunConfig(launch=fakes.launch("gateways", "crowded_once"), case_timeout=15)) as harness:
        result = harness.judge(CaseSpec("timing_ttft_and_gaps", "streaming"))
    assert result.outcome == "passed", result.message
    assert result.details["plays"] >= 2, result.details
    earlier = result.details["earlier_plays"][0]
    assert "the IUT buffers the stream" in earlier and "waited for a CPU" in earlier, earlier


@needs_schedstat
def test_a_gateway_late_in_every_play_fails_after_the_last_whatever_the_load() -> None:
    with Harness(RunConfig(launch=fakes.launch("gateways", "crowded_buffering"), case_timeout=15)) as harness:
        result = harness.judge(CaseSpec("timing_ttft_and_gaps", "streaming"))
    assert result.outcome == "failed", result.message
    assert result.details["plays"] == STREAM_PLAYS and len(result.details["earlier_plays"]) == STREAM_PLAYS - 1
    [violation] = next(r for r in result.failed if r.rule.id == "GW-STREAM-001").violations
    assert violation.loaded and f"up to {STREAM_PLAYS} plays" in violation.message
