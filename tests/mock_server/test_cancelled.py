"""The journal's `cancelled` end on a real uvicorn server: a client that closes its connection mid-stream, or
before the first byte (while the mock waits for the scripted first byte), ends the answer there, journaled
`cancelled` at the instant the mock saw the close, with no write after it (uvicorn drops writes to a client that
left without a word, so the mock watches for the disconnect itself: docs/spec/cancellation.md §2). A client that
reads to the end still gets `completed`. Judged by the journal's stamps and order, never by elapsed time."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

from callproof.harness.request import new_case_tag
from callproof.harness.scenario import markers
from callproof.mock_server import JournalRequest, MockServer, bundled_scenarios

#: How long the test waits for the journal to show the end (a bound on a hang, not a timing assertion).
PATIENCE = 20.0

pytestmark = pytest.mark.timing  # paced streams on a real server: run again under load (make test-under-load)


def _open(port: int, scenario: str, case: str) -> socket.socket:
    body = json.dumps({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": f"go {markers(scenario, case)}"}]}).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                 b"content-length: %d\r\n\r\n" % len(body) + body)
    return sock


def _request(mock: MockServer, case: str) -> JournalRequest:
    deadline = time.monotonic() + PATIENCE
    while not (requests := mock.journal.requests(case=case)):
        assert time.monotonic() < deadline, "the mock never journaled the request"
        time.sleep(0.005)
    return requests[0]


def _end(mock: MockServer, request: int) -> tuple[str, float]:
    deadline = time.monotonic() + PATIENCE
    while (end := mock.journal.end(request)) is None:
        assert time.monotonic() < deadline, "the mock never journaled the answer's end"
        time.sleep(0.005)
    return end.outcome, end.time


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(bundled_scenarios(), strict=True) as server:
        yield server


def test_a_client_closing_mid_stream_is_journaled_cancelled_at_the_close(mock: MockServer) -> None:
    case = new_case_tag()
    sock = _open(mock.port, "cancel_mid_stream", case)
    got = b""
    while got.count(b"data:") < 3:  # a few events in (chunked: count the SSE fields)
        got += sock.recv(4096)
    closed = time.monotonic()  # the journal's clock (the mock runs in this process)
    sock.close()
    request = _request(mock, case)
    outcome, when = _end(mock, request.id)
    writes = mock.journal.writes(request.id)
    assert outcome == "cancelled" and when >= closed
    assert all(w.time <= when for w in writes)  # nothing played after the close
    assert len(writes) < 30  # the scripted 30 argument deltas were not all written


def test_a_client_closing_before_the_first_byte_is_journaled_cancelled(mock: MockServer) -> None:
    case = new_case_tag()
    sock = _open(mock.port, "cancel_before_first_byte", case)
    request = _request(mock, case)  # the mock holds the headers back for 2 s
    closed = time.monotonic()
    sock.close()
    outcome, when = _end(mock, request.id)
    assert outcome == "cancelled" and when >= closed
    assert when < request.start + 2.0  # before the scripted first byte: journal stamps against the schedule
    assert mock.journal.writes(request.id) == []


def test_a_client_reading_to_the_end_is_journaled_completed(mock: MockServer) -> None:
    case = new_case_tag()
    with _open(mock.port, "one_call", case) as sock:
        got = b""
        while not got.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's last chunk
            got += sock.recv(4096)
    assert _end(mock, _request(mock, case).id)[0] == "completed"
