"""The suite's report collector (harness/plugin/_suite.py `Collector`), driven with pytest's own test reports."""

from __future__ import annotations

import pytest

from callproof.harness import Dialect
from callproof.harness.plugin._suite import Collector
from callproof.harness.run import RunConfig


@pytest.mark.parametrize("front", ["responses", "chat", "anthropic"])
def test_a_case_lost_in_setup_is_an_error_of_the_runs_front(front: Dialect) -> None:
    """A case whose setup failed before it was judged is kept as an error, reported at the front the run tested (not
    Responses whatever the run)."""
    collector = Collector(RunConfig(launch="gw {port}", front=front), ["callproof", "run"], None)
    report = pytest.TestReport(
        nodeid="suite/test_conformance.py::test_case[one_call::outcome]", location=("x", 0, "x"), keywords={},
        outcome="failed", longrepr="boom", when="setup",
    )
    collector.pytest_runtest_logreport(report)
    (case,) = collector.cases.values()
    assert (case.id, case.group, case.outcome, case.front) == ("one_call::outcome", "outcome", "error", front)
