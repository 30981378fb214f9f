"""Fixtures of the server tests: a real uvicorn server on 127.0.0.1 and an ephemeral port (one per xdist worker)
serving support.SCENARIOS (the bundled corpus plus data/server_variants.json), and a client that records every chunk
with its arrival time. Helpers and constants live in support.py."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from callproof.mock_server import MockServer
from tests.fakes import tls
from tests.mock_server.support import SCENARIOS, TIMEOUT, Mock


@pytest.fixture(scope="session")
def _strict_server() -> Iterator[MockServer]:
    with MockServer(SCENARIOS, strict=True, seed=1) as server:
        yield server


@pytest.fixture
def mock(_strict_server: MockServer) -> Iterator[Mock]:
    """The strict mock (journal reset for each test) and a client with a timeout."""
    _strict_server.journal.reset()
    with httpx.Client(timeout=TIMEOUT, verify=tls()) as client:
        yield Mock(_strict_server, client)
