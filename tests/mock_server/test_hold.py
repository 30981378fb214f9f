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

pytestmark = pytest.mark.timing  # `make test-under-load` runs them beside CPU-bound competitors too

TOKEN = "hold-token"


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with MockServer(strict=True, control_token=TOKEN) as mock:
        yield mock


def _post(server: MockServer, case: str, delay: float = 0.0) -> threading.Thread:
    """A thread that waits `delay`, then posts a one_call stream under `case` and reads it to the end."""

    def post() -> None:
        time.sleep(delay)
        body = {"model": "m", "input": f"[callproof:scenario=one_call] [callproof:case={case}] hi", "stream": True}
        with httpx.stream("POST", server.url + "/responses", json=body, timeout=30) as answer:
            for _ in answer.iter_raw():
                pass

    thread = threading.Thread(target=post)
    thread.start()
    return thread


def _done(*threads: threading.Thread) -> None:
    """Every thread has finished (a generous bound, only so that a hang fails instead of blocking the run)."""
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "a held request was never answered"


def _arrived(server: MockServer, case: str) -> float:
    """When the mock received the request of `case` (the journal's stamp, time.monotonic())."""
    (request,) = server.journal.requests(case=case)
    return request.time


def _first_byte(server: MockServer, case: str) -> float:
    """When the mock wrote the first byte of the answer to `case` (the journal's stamp)."""
    (request,) = server.journal.requests(case=case)
    return server.journal.writes(request.id)[0].time


# The hold's deadlines below are far longer than any test waits (60 s): a request that is answered at all was
# released by the arrival of its group, not by the deadline, whatever the machine's load. Lower bounds come from the
# journal's own stamps (the mock's clock is time.monotonic(), the tests' too), so no bound depends on the load.


def test_held_requests_are_answered_together_once_all_arrived(server: MockServer) -> None:
    server.hold(["held-a", "held-b"], 60)
    _done(_post(server, "held-a"), _post(server, "held-b", delay=0.3))
    assert _arrived(server, "held-a") < _arrived(server, "held-b")  # held-a came first ...
    assert _first_byte(server, "held-a") >= _arrived(server, "held-b")  # ... and was held until held-b arrived


def test_a_hold_ends_at_its_deadline_when_a_case_never_comes(server: MockServer) -> None:
    began = time.monotonic()
    server.hold(["lonely", "never-sent"], 0.4)
    _done(_post(server, "lonely"))
    assert _first_byte(server, "lonely") - began >= 0.4  # answered, and not before the deadline


def test_a_case_not_held_goes_straight_through_while_others_are_held(server: MockServer) -> None:
    server.hold(["pending", "absent"], 60)
    _done(_post(server, "free"))  # answered long before the others' deadline
    assert len(server.journal.writes(server.journal.requests(case="free")[0].id)) > 0


def test_the_control_api_sets_a_hold_behind_the_token(server: MockServer) -> None:
    url = f"{server.root_url}/_callproof/hold"
    body = {"cases": ["api-a", "api-b"], "timeout_ms": 400}
    assert httpx.post(url, json=body).status_code == 401
    began = time.monotonic()
    answer = httpx.post(url, json=body, headers={"authorization": f"Bearer {TOKEN}"})
    assert (answer.status_code, answer.json()) == (200, {"status": "held", "cases": 2})
    _done(_post(server, "api-a"))
    assert _first_byte(server, "api-a") - began >= 0.4


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
    server.hold(["reset-a", "reset-b"], 60)
    httpx.post(f"{server.root_url}/_callproof/reset", headers={"authorization": f"Bearer {TOKEN}"}).raise_for_status()
    _done(_post(server, "reset-a"))  # answered long before the deadline: the hold is gone


def test_holds_count_their_cases_and_drop_expired_groups_on_the_next_hold() -> None:
    holds = Holds()
    holds.hold(["x", "y"], 0.01)
    assert len(holds) == 2
    time.sleep(0.02)
    holds.hold(["z"], 1)
    assert len(holds) == 1
