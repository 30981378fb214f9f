"""Holds (docs/mock.md#holds): the requests of a group of case tags wait at the mock, before their first byte, until
every case of the group has arrived or the hold's time has run out; set from Python (`MockServer.hold`) or the
control API (`POST /_callproof/hold`). Against real uvicorn servers on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from callproof.mock_server import MockServer
from callproof.mock_server._hold import Holds

TOKEN = "hold-token"


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with MockServer(strict=True, control_token=TOKEN) as mock:
        yield mock


def _timed(server: MockServer, case: str, answered: dict[str, float], delay: float = 0.0) -> threading.Thread:
    """A thread that waits `delay`, posts a one_call stream under `case`, and records when its first byte came."""

    def post() -> None:
        time.sleep(delay)
        body = {"model": "m", "input": f"[callproof:scenario=one_call] [callproof:case={case}] hi", "stream": True}
        with httpx.stream("POST", server.url + "/responses", json=body, timeout=10) as answer:
            chunks = answer.iter_raw()
            next(chunks)
            answered[case] = time.monotonic()
            for _ in chunks:  # the rest of the stream
                pass

    thread = threading.Thread(target=post)
    thread.start()
    return thread


def test_held_requests_are_answered_together_once_all_arrived(server: MockServer) -> None:
    server.hold(["held-a", "held-b"], 5)
    answered: dict[str, float] = {}
    began = time.monotonic()
    threads = [_timed(server, "held-a", answered), _timed(server, "held-b", answered, delay=0.3)]
    for thread in threads:
        thread.join(10)
    assert answered["held-a"] - began >= 0.3  # held until held-b arrived
    assert abs(answered["held-a"] - answered["held-b"]) < 0.2
    assert answered["held-a"] - began < 4  # released by the arrival, not by the deadline


def test_a_hold_ends_at_its_deadline_when_a_case_never_comes(server: MockServer) -> None:
    server.hold(["lonely", "never-sent"], 0.4)
    answered: dict[str, float] = {}
    began = time.monotonic()
    _timed(server, "lonely", answered).join(10)
    assert 0.4 <= answered["lonely"] - began < 3


def test_a_case_not_held_goes_straight_through_while_others_are_held(server: MockServer) -> None:
    server.hold(["pending", "absent"], 5)
    answered: dict[str, float] = {}
    began = time.monotonic()
    _timed(server, "free", answered).join(10)
    assert answered["free"] - began < 1


def test_the_control_api_sets_a_hold_behind_the_token(server: MockServer) -> None:
    url = f"{server.root_url}/_callproof/hold"
    body = {"cases": ["api-a", "api-b"], "timeout_ms": 400}
    assert httpx.post(url, json=body).status_code == 401
    answer = httpx.post(url, json=body, headers={"authorization": f"Bearer {TOKEN}"})
    assert (answer.status_code, answer.json()) == (200, {"status": "held", "cases": 2})
    answered: dict[str, float] = {}
    began = time.monotonic()
    _timed(server, "api-a", answered).join(10)
    assert answered["api-a"] - began >= 0.4


@pytest.mark.parametrize(("body", "problem"), [
    ({"cases": ["a"]}, "missing field 'timeout_ms'"),
    ({"cases": "a", "timeout_ms": 100}, "cases must be a list of case tags and timeout_ms a number"),
    ({"cases": ["a"], "timeout_ms": True}, "cases must be a list of case tags and timeout_ms a number"),
    ({"cases": [], "timeout_ms": 100}, "a hold needs at least one case tag, each a non-empty string"),
    ({"cases": ["a", 3], "timeout_ms": 100}, "a hold needs at least one case tag, each a non-empty string"),
    ({"cases": ["a"], "timeout_ms": 0}, "a hold's timeout must be above 0 and at most 60 s, got 0.0"),
    ({"cases": ["a"], "timeout_ms": 60001}, "a hold's timeout must be above 0 and at most 60 s, got 60.001"),
    ([], "list indices must be integers or slices, not str"),
])
def test_a_bad_hold_is_refused_with_the_fix(server: MockServer, body: object, problem: str) -> None:
    answer = httpx.post(f"{server.root_url}/_callproof/hold", json=body, headers={"authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == (
        f'Bad hold: {problem}; send {{"cases": ["<case uuid>", ...], "timeout_ms": 1 to 60000}}.')


def test_reset_forgets_every_hold(server: MockServer) -> None:
    server.hold(["reset-a", "reset-b"], 5)
    httpx.post(f"{server.root_url}/_callproof/reset", headers={"authorization": f"Bearer {TOKEN}"}).raise_for_status()
    answered: dict[str, float] = {}
    began = time.monotonic()
    _timed(server, "reset-a", answered).join(10)
    assert answered["reset-a"] - began < 1


def test_holds_count_their_cases_and_drop_expired_groups_on_the_next_hold() -> None:
    holds = Holds()
    holds.hold(["x", "y"], 0.01)
    assert len(holds) == 2
    time.sleep(0.02)
    holds.hold(["z"], 1)
    assert len(holds) == 1
