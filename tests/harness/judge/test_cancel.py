"""GW-CANCEL-001/002 on fixed journal stamps (no clock runs): the upstream request open at the client's close ends
`cancelled` within the bound (stretched by CPU waits), is not drained nor left open, and nothing is sent upstream
after the close; a case with no upstream request open at the close gives no evidence for GW-CANCEL-001."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from callproof.harness.judge import CANCEL_RULES, Findings, UpstreamAttempt, check_cancellation

CLOSED = 10.0
BOUND = 0.040
#: The end of the harness's watch (bound, then the grace window for retries).
WATCHED = 11.0


def _judged(attempts: Sequence[UpstreamAttempt], waits: Sequence[tuple[float, float]] = ()) -> tuple[
        dict[str, str], str | None, list[str]]:
    findings = Findings()
    problem = check_cancellation(findings, CLOSED, attempts, BOUND, WATCHED, waits)
    results = findings.results()
    messages = [v.message for r in results for v in r.violations]
    return {r.rule.id: r.outcome for r in results}, problem, messages


def test_an_upstream_request_cancelled_within_the_bound_passes_both_rules() -> None:
    outcomes, problem, _ = _judged([UpstreamAttempt(7, 9.2, "cancelled", CLOSED + 0.012)])
    assert problem is None and outcomes == dict.fromkeys(CANCEL_RULES, "passed")


def test_a_drained_upstream_fails_gw_cancel_001_alone() -> None:
    outcomes, problem, messages = _judged([UpstreamAttempt(7, 9.2, "completed", CLOSED + 2.5)])
    assert problem is None and outcomes == {"GW-CANCEL-001": "failed", "GW-CANCEL-002": "passed"}
    assert "read to its end 2500 ms after the client closed" in messages[0] and "drains" in messages[0]


def test_an_upstream_request_still_open_at_the_end_of_the_watch_fails() -> None:
    outcomes, _, messages = _judged([UpstreamAttempt(7, 9.2)])
    assert outcomes["GW-CANCEL-001"] == "failed" and "still open 1000 ms after" in messages[0]


def test_a_late_close_fails_and_cpu_waits_over_it_stretch_the_bound() -> None:
    late = [UpstreamAttempt(7, 9.2, "cancelled", CLOSED + 0.090)]
    outcomes, _, messages = _judged(late)
    assert outcomes["GW-CANCEL-001"] == "failed" and "closed 90 ms after" in messages[0]
    assert "bound of 40 ms" in messages[0]
    # the IUT and the harness waited 60 ms for a CPU between the close and the cancel: 40 + 60 ms allowed
    waits = [(CLOSED - 0.004, 1.0), (CLOSED + 0.095, 1.06)]
    assert _judged(late, waits)[0]["GW-CANCEL-001"] == "passed"


def test_a_retry_after_the_close_fails_gw_cancel_002_alone() -> None:
    attempts = [UpstreamAttempt(7, 9.2, "cancelled", CLOSED + 0.010), UpstreamAttempt(8, CLOSED + 0.015)]
    outcomes, problem, messages = _judged(attempts)
    assert problem is None and outcomes == {"GW-CANCEL-001": "passed", "GW-CANCEL-002": "failed"}
    assert messages == ["upstream request #8 reached the upstream 15 ms after the client closed its connection: "
                        "the gateway sent the request again though nobody waits for its answer"]


def test_requests_before_the_close_that_ended_before_it_are_not_retries() -> None:
    attempts = [UpstreamAttempt(6, 9.0, "completed", 9.1), UpstreamAttempt(7, 9.2, "cancelled", CLOSED + 0.01)]
    assert _judged(attempts)[0] == dict.fromkeys(CANCEL_RULES, "passed")


@pytest.mark.parametrize(("attempts", "why"), [
    ([], "no upstream request of this case had reached the mock"),
    ([UpstreamAttempt(7, 9.2, "completed", 9.8)], "request #7 had already ended (completed) 200 ms before"),
])
def test_no_request_open_at_the_close_is_no_evidence_for_gw_cancel_001(attempts: list[UpstreamAttempt],
                                                                        why: str) -> None:
    outcomes, problem, _ = _judged(attempts)
    assert problem is not None and why in problem
    assert outcomes == {"GW-CANCEL-002": "passed"}  # judged on every case; GW-CANCEL-001 not at all


def test_a_retry_is_judged_even_without_evidence_for_gw_cancel_001() -> None:
    outcomes, problem, _ = _judged([UpstreamAttempt(7, 9.2, "completed", 9.8), UpstreamAttempt(8, CLOSED + 0.2)])
    assert problem is not None and outcomes == {"GW-CANCEL-002": "failed"}


def test_an_upstream_answer_the_mock_aborted_is_not_a_close_by_the_gateway() -> None:
    outcomes, _, messages = _judged([UpstreamAttempt(7, 9.2, "aborted", CLOSED + 0.01)])
    assert outcomes["GW-CANCEL-001"] == "failed" and "ended aborted" in messages[0]
