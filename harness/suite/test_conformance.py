"""The conformance suite's one test function, parametrized by the callproof plugin with every case of the run."""

from __future__ import annotations

from callproof.harness.plugin import Judged, verdict


def test_conformance(callproof_result: Judged) -> None:
    verdict(callproof_result)
