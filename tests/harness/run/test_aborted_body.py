"""An aborted body (docs/spec/verdicts.md §7): the harness records whether the front's body ended cleanly (the final
zero-length chunk, the Content-Length reached) or was aborted, and judges an abort as the error ending it is, since
the official SDK raises on it. Against raw-socket servers on 127.0.0.1 (the bytes exactly as written) and the fake
gateways of tests/fakes/cut_gateways.py, which abort their front's chunked body under uvicorn."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._http_exchange import exchange
from tests import fakes


def _event(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


#: An Anthropic tool_use turn, frame by frame: message_start, the block (start, one delta, stop), message_delta,
#: message_stop.
TURN = [_event(p) for p in (
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                          "model": "m", "stop_reason": None, "stop_sequence": None,
                                          "usage": {"input_tokens": 1, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city":"P'}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
     "usage": {"output_tokens": 2}},
    {"type": "message_stop"},
)]
INCOMPLETE = "peer closed connection without sending complete message body"


@contextmanager
def _server(frames: list[bytes], ending: str) -> Iterator[str]:
    """A raw HTTP server answering every POST with `frames` as a stream, then `ending`: `clean` (the zero-length
    chunk), `abort` (the connection closed without it), `short` (a Content-Length the body never reaches)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(65536)
                top, _, body = head.partition(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in top.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                while len(body) < length:
                    body += conn.recv(65536)
                data = b"".join(frames)
                if ending == "short":
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n%s"
                                 % (len(data) + 100, data))
                    continue
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n")
                for frame in frames:
                    conn.sendall(b"%x\r\n%s\r\n" % (len(frame), frame))
                if ending == "clean":
                    conn.sendall(b"0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
        listener.close()
        thread.join(5)


@pytest.mark.parametrize(("ending", "aborted"), [
    ("clean", None), ("abort", f"{INCOMPLETE} (incomplete chunked read)"), ("short", INCOMPLETE),
])
def test_the_exchange_records_whether_the_body_ended_cleanly(ending: str, aborted: str | None) -> None:
    with _server(TURN[:3], ending) as url, httpx.Client(trust_env=False) as client:
        got = exchange(client, f"{url}/v1/messages", {}, timeout=10)
    assert got.status == 200 and got.body == b"".join(TURN[:3]) and not got.timed_out
    if aborted is None:
        assert got.aborted is None and got.error is None
    else:
        assert got.aborted is not None and got.aborted.startswith("RemoteProtocolError: ") and aborted in got.aborted
        assert got.error == got.aborted


@pytest.mark.parametrize(("frames", "ending", "raises"), [
    (TURN[:3], "abort", True),  # mid-block
    (TURN, "abort", True),  # after message_stop: the SDK reads to the body's end
    (TURN[:5], "clean", False),  # after message_delta, no message_stop: the Message is whole (verdicts.md §1)
])
def test_the_anthropic_sdk_raises_on_an_aborted_body_and_not_on_a_clean_cut(frames: list[bytes], ending: str,
                                                                             raises: bool) -> None:
    """The behaviour §1 and §7 rest on, with anthropic 2.14.0 (`client.messages.stream`, as examples/client_anthropic.py
    calls it): an aborted body raises RemoteProtocolError from the iteration, whatever it held; a clean end after
    the stop_reason returns the Message."""
    anthropic = pytest.importorskip("anthropic")

    def read() -> Any:
        messages: Any = [{"role": "user", "content": "hi"}]
        with anthropic.Anthropic(base_url=url, api_key="callproof", max_retries=0) as client, \
                client.messages.stream(model="m", max_tokens=16, messages=messages) as stream:
            for _ in stream:
                pass
            return stream.get_final_message()

    with _server(frames, ending) as url:
        if not raises:
            assert read().stop_reason == "tool_use"
            return
        # the SDK's own transport error (httpx2's RemoteProtocolError in anthropic 2.14.0), not wrapped
        with pytest.raises(Exception, match=INCOMPLETE) as raised:
            read()
    assert type(raised.value).__name__ == "RemoteProtocolError"


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


CUT_SCENARIOS = ("fault_disconnect_after_events", "fault_disconnect_after_bytes")


def _judged(defect: str, front: Dialect, scenarios: tuple[str, ...]) -> list[CaseResult]:
    config = RunConfig(launch=fakes.launch("gateways", defect), front=front, case_timeout=15)
    with Harness(config) as harness:
        return [harness.judge(s) for s in harness.cases() if s.scenario in scenarios]


@pytest.mark.parametrize(("front", "defect"), [
    ("responses", "aborts_on_upstream_cut"), ("chat", "chat_aborts_on_upstream_cut"),
    ("anthropic", "anthropic_aborts_on_upstream_cut"),
])
def test_a_front_that_aborts_its_body_on_an_upstream_cut_passes(front: Dialect, defect: str) -> None:
    """The abort is an error ending: the lifecycle, framing and reassembly rules that fail a body that just ends
    (tests/fakes/cut_gateways.py's `*cuts_on_upstream_cut`, the mutation table) do not fail it, GW-FAULT-003 passes
    it, and the case's details say the body was aborted."""
    results = _judged(defect, front, CUT_SCENARIOS)
    assert {r.spec.group for r in results} >= {"lifecycle", "framing", "faults", "expected"}
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []
    for result in results:
        assert result.details["terminal"] == "abort"
        assert result.details["aborted"].startswith("RemoteProtocolError: ")


def test_a_front_that_aborts_the_body_of_a_finished_turn_fails_exp_004() -> None:
    """An abort after message_stop still makes the SDK raise: the client gets an error for a good answer. EXP-004
    fails it, naming the abort; the stream's own rules pass (its events were all right)."""
    results = {r.spec.group: r for r in _judged("anthropic_aborts_after_message_stop", "anthropic", ("one_call",))}
    expected = results["expected"]
    assert (expected.outcome, [r.rule.id for r in expected.failed]) == ("failed", ["EXP-004"])
    assert "the response ended error (by abort) (the body was aborted: RemoteProtocolError: " in expected.message
    assert results["lifecycle"].outcome == "passed" and results["framing"].outcome == "passed"
