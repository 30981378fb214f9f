"""callproof's pytest plugin, registered once through the `pytest11` entry point: options, markers, fixtures.

The logic lives elsewhere (`_assertions`, `callproof.mock_server._pytest`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import pytest

from ._assertions import StreamAssertion
from ._rule import PROFILES, Profile

if TYPE_CHECKING:  # the mock (starlette, uvicorn) is imported only by tests that use it
    from callproof.mock_server import MockServer

__all__ = ["callproof_check", "callproof_mock"]


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
    parser.addini("callproof_scenarios", "scenario files or folders served by callproof_mock besides the bundled "
                  "corpus (relative to the rootdir)", type="paths", default=[])
    parser.addini("callproof_seed", "seed of the callproof_mock chaos faults", default="0")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "callproof_mock(*, assert_all_matched=True): options of the callproof_mock fixture; "
        "see README.md#the-callproof_mock-fixture",
    )


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


@pytest.fixture(scope="session")
def _callproof_mock_server(request: pytest.FixtureRequest) -> Iterator[MockServer]:
    """One strict mock per process (so one per pytest-xdist worker), on 127.0.0.1 and an ephemeral port."""
    from callproof.mock_server._pytest import start_server

    config = request.config
    paths = [str(p) for p in config.getini("callproof_scenarios")]
    try:
        seed = int(config.getini("callproof_seed"))
    except ValueError:
        raise pytest.UsageError(f"callproof_seed = {config.getini('callproof_seed')!r} is not an integer") from None
    server = start_server(paths, seed, config.rootpath)
    yield server
    server.stop()


@pytest.fixture
def callproof_mock(request: pytest.FixtureRequest, _callproof_mock_server: MockServer) -> Iterator[MockServer]:
    """The mock upstream (a `callproof.mock_server.MockServer`): `.url` for OpenAI clients, `.root_url` for
    Anthropic ones, `.journal` for what it received and sent. Reset before each test; at teardown the test fails
    if a request selected no scenario (opt out: `@pytest.mark.callproof_mock(assert_all_matched=False)`)."""
    from callproof.mock_server._pytest import MockOptions, reset, unexpected_requests

    server = _callproof_mock_server
    options = MockOptions.from_markers([m.kwargs for m in request.node.iter_markers("callproof_mock")])
    reset(server)
    yield server
    if options.assert_all_matched:
        message = unexpected_requests(server.journal.requests())
        if message is not None:
            pytest.fail(message, pytrace=False)
