"""The concurrency case's evidence: the mock holds its requests until all have arrived, and the journal must show
at least two of its streams in flight at once. A gateway or a client that sends one request at a time leaves
isolation unjudged: an error that says so, never a pass."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._overlap import hold_seconds, in_flight, not_overlapping
from callproof.harness.run._plan import ISOLATION_SCENARIOS
from callproof.mock_server import Journal
from tests import fakes
from tests.fakes import clients

ISOLATION = CaseSpec("concurrent", "isolation")
_ONE_AT_A_TIME = threading.Lock()


def serial_run(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """The reference client, one run at a time (a process-wide lock around each)."""
    with _ONE_AT_A_TIME:
        return clients.run(request, base_url, dialect)


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _journal(spans: dict[str, list[tuple[float, float | None]]]) -> Journal:
    """A journal with a request per (start, end) span of each case (end None: still open), plus an unrelated one."""
    journal = Journal()
    other: list[tuple[float, float | None]] = [(0.0, 100.0)]
    for case, runs in [*spans.items(), ("other", other)]:
        for start, end in runs:
            request = journal.record_request(time=start, method="POST", path="/v1/responses", headers=(), body={},
                                             status=200, case=case, start=start)
            if end is not None:
                journal.record_end(request.id, "completed", end)
    return journal


@pytest.mark.parametrize(("spans", "most"), [
    ({"a": [(0, 1)], "b": [(2, 3)], "c": [(4, 5)]}, 1),  # one after another
    ({"a": [(0, 1)], "b": [(1, 2)]}, 1),  # one ends as the next begins
    ({"a": [(0, 3)], "b": [(1, 2)], "c": [(2.5, 4)]}, 2),
    ({"a": [(0, 5)], "b": [(1, 6)], "c": [(2, 7)]}, 3),
    ({"a": [(0, 1), (3, 4)], "b": [(2, 2.5)]}, 2),  # a case's span runs from its first answer to its last
    ({"a": [(0, None)], "b": [(9, 10)]}, 2),  # an answer without an end is still open
    ({}, 0),
])
def test_in_flight_counts_the_cases_played_at_once(spans: dict[str, list[tuple[float, float | None]]],
                                                   most: int) -> None:
    assert in_flight(_journal(spans), list(spans)) == most


def test_fewer_than_two_streams_at_once_is_no_evidence() -> None:
    assert not_overlapping(9, 2, 5, "the gateway") is None
    assert not_overlapping(9, 1, 5, "the gateway") == (
        "the 9 concurrent cases' streams were never in flight at the mock together (at most 1 at once, after holding "
        "them 5 s for the rest): the gateway seems to send one request at a time, so isolation was not exercised")
    assert hold_seconds(30) == 10 and hold_seconds(15) == 5


def _gateway(defect: str | None) -> Any:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect chat", upstream_dialect="chat",
                       case_timeout=6)
    with Harness(config) as harness:
        return harness.judge(ISOLATION)


def test_the_reference_gateway_streams_every_case_at_once() -> None:
    result = _gateway(None)
    assert (result.outcome, result.message) == ("passed", "")
    assert result.details["concurrent"] == len(ISOLATION_SCENARIOS)
    assert result.details["overlapped"] >= 2


def test_a_gateway_streaming_one_response_at_a_time_is_an_error() -> None:
    result = _gateway("one_at_a_time")
    assert result.outcome == "error"
    assert result.details["overlapped"] == 1
    assert result.message == (
        f"the {len(ISOLATION_SCENARIOS)} concurrent cases' streams were never in flight at the mock together (at most "
        "1 at once, after holding them 2 s for the rest): the gateway seems to send one request at a time, so "
        "isolation was not exercised")


def test_the_shared_state_gateway_is_caught_every_time() -> None:
    """timing_ttft_and_gaps and timing_second_slow_call start their calls together after the hold, so their
    argument deltas interleave in every run: per-call state shared across requests cannot go unseen."""
    config = RunConfig(launch=f"{fakes.launch('gateways', 'shared_state')} --upstream-dialect chat",
                       upstream_dialect="chat", case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(ISOLATION) for _ in range(5)]
    assert [r.outcome for r in results] == ["failed"] * 5, [(r.outcome, r.message) for r in results]
    assert all("timing_" in r.message for r in results), [r.message for r in results]


def test_a_client_running_one_request_at_a_time_is_an_error() -> None:
    with Harness(RunConfig(client=f"{__name__}:serial_run", case_timeout=6)) as harness:
        result = harness.judge(ISOLATION)
    assert result.outcome == "error"
    assert result.details["overlapped"] == 1
    assert result.message.endswith("the client seems to send one request at a time, so isolation was not exercised")
