"""callproof's pytest plugin, registered once through the `pytest11` entry point: options and fixtures only."""

from __future__ import annotations

from typing import cast

import pytest

from ._assertions import StreamAssertion
from ._rule import PROFILES, Profile

__all__ = ["callproof_check"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("callproof", "callproof: tool-call streaming conformance")
    group.addoption(
        "--callproof-profile",
        choices=PROFILES,
        default=None,
        help="rules and schema variant for callproof checks (default: ini callproof_profile, else openai)",
    )
    parser.addini("callproof_profile", "default callproof profile: openai, open-responses or lenient",
                  default="openai")


@pytest.fixture
def callproof_check(request: pytest.FixtureRequest) -> StreamAssertion:
    """Check a stream in your own test: `callproof_check(sse_bytes)` raises on MUST failures, returns the report."""
    option = request.config.getoption("callproof_profile")
    profile = option or request.config.getini("callproof_profile")
    if profile not in PROFILES:
        raise pytest.UsageError(
            f"callproof_profile = {profile!r} is not a profile; use one of {', '.join(PROFILES)}"
        )
    return StreamAssertion(cast(Profile, profile))
