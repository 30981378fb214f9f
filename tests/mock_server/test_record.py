"""The recording proxy (mock_server/_record.py) on real uvicorn servers on 127.0.0.1: answers stream through
unbuffered and unchanged (a stand-in upstream that pauses mid-stream until the caller has the first bytes), headers
reach the upstream but never the files, an upstream error is recorded as an http_error fault, and an unreachable
upstream gets the caller a 502 in its dialect's shape with nothing written."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from callproof.harness import Dialect
from callproof.mock_server import MockServer, load_scenarios
from callproof.mock_server._record import RecordServer
from tests.mock_server.support import PATHS, TIMEOUT, request_body

FIRST = b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,' \
        b'"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n'
REST = (b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
        b'"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n', b"data: [DONE]\n\n")


class _Upstream:
    """A stand-in upstream: a chat stream whose first frame goes out at once and whose rest waits for `release`."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.finished = threading.Event()
        self.headers: dict[str, str] = {}

    async def chat(self, request: Request) -> Response:
        self.headers = dict(request.headers)

        async def body() -> AsyncIterator[bytes]:
            yield FIRST
            deadline = time.monotonic() + 10
            while not self.release.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            for frame in REST:
                yield frame
            self.finished.set()

        return StreamingResponse(body(), media_type="text/event-stream")


@pytest.fixture
def upstream() -> Iterator[tuple[_Upstream, str]]:
    stand_in = _Upstream()
    app = Starlette(routes=[Route("/v1/chat/completions", stand_in.chat, methods=["POST"])])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, loop="asyncio", http="h11", lifespan="off", log_config=None,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.005)
    try:
        yield stand_in, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stand_in.release.set()
        server.should_exit = True
        thread.join(10)
        sock.close()


def _first_byte(url: str, stand_in: _Upstream) -> tuple[float, bytes, bool]:
    """Seconds to the first chunk, all bytes, and whether the upstream was still paused at the first chunk."""
    stand_in.release.clear()
    stand_in.finished.clear()
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx.Client(timeout=TIMEOUT) as client, client.stream("POST", url, json=body) as answer:
        began = time.monotonic()
        chunks = answer.iter_raw()
        first = next(chunks)
        elapsed = time.monotonic() - began
        paused = not stand_in.finished.is_set()
        stand_in.release.set()
        return elapsed, first + b"".join(chunks), paused


def test_the_first_byte_reaches_the_caller_before_the_upstream_finished(
        upstream: tuple[_Upstream, str], tmp_path: Path) -> None:
    stand_in, url = upstream
    direct, direct_bytes, _ = _first_byte(url + "/v1/chat/completions", stand_in)
    with RecordServer(url, tmp_path) as proxy:
        through, proxied, paused = _first_byte(proxy.url + "/chat/completions", stand_in)
    assert paused, "the proxy held the first bytes until the upstream finished"
    assert proxied == direct_bytes == FIRST + b"".join(REST)
    assert through < 2.0 and direct < 2.0
    (recorded,) = tmp_path.glob("rec_*.json")
    scenario = json.loads(recorded.read_text())["scenarios"][0]
    assert "".join(f if isinstance(f, str) else f["text"] for f in scenario["raw"]["chat"]) == proxied.decode()
    assert scenario["output"] == [{"type": "text", "text": "Hello", "chunk": {"fragments": ["Hel", "lo"]}}]


SECRETS = {"authorization": "Bearer sk-SECRET-1", "x-api-key": "SECRET-2", "api-key": "SECRET-3",
           "cookie": "session=SECRET-4", "x-session-token": "SECRET-5", "x-client-secret": "SECRET-6",
           "x-custom-key": "SECRET-7"}


def test_headers_reach_the_upstream_but_never_the_files(
        upstream: tuple[_Upstream, str], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    stand_in, url = upstream
    stand_in.release.set()
    caplog.set_level(logging.DEBUG)
    with RecordServer(url, tmp_path) as proxy:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True, "user": "u1"}
        answer = httpx.post(proxy.url + "/chat/completions", json=body,
                            headers={**SECRETS, "x-trace": "t1", "te": "trailers"}, timeout=TIMEOUT)
    assert answer.status_code == 200
    assert all(stand_in.headers[name] == value for name, value in SECRETS.items())
    assert stand_in.headers["x-trace"] == "t1" and "te" not in stand_in.headers
    (recorded,) = tmp_path.glob("*.json")
    assert "SECRET" not in recorded.read_text() and "SECRET" not in caplog.text


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_an_unreachable_upstream_is_a_502_in_the_dialects_shape(
        dialect: Dialect, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with RecordServer(f"http://127.0.0.1:{_closed_port()}", tmp_path) as proxy:
        answer = httpx.post(proxy.url + PATHS[dialect], json=request_body(dialect, None), timeout=TIMEOUT)
    assert answer.status_code == 502
    error = answer.json()
    if dialect == "anthropic":
        assert error["type"] == "error" and error["error"]["type"] == "api_error"
        assert "unreachable" in error["error"]["message"]
    else:
        assert set(error["error"]) == {"message", "type"} and "unreachable" in error["error"]["message"]
    assert list(tmp_path.iterdir()) == []
    assert "unreachable" in caplog.text and "nothing recorded" in caplog.text


def test_an_upstream_error_is_recorded_as_a_fault_and_replays(tmp_path: Path) -> None:
    body = request_body("chat", None, stream=True, text="retry me")
    with MockServer(strict=True) as mock, RecordServer(mock.root_url, tmp_path) as proxy:
        direct = httpx.post(mock.url + "/chat/completions", json=body,
                            headers={"x-callproof-scenario": "fault_http_429"}, timeout=TIMEOUT)
        proxied = httpx.post(proxy.url + "/chat/completions", json=body,
                             headers={"x-callproof-scenario": "fault_http_429"}, timeout=TIMEOUT)
    assert proxied.status_code == direct.status_code == 429 and proxied.content == direct.content
    assert proxied.headers["retry-after"] == direct.headers["retry-after"]
    (recorded,) = tmp_path.glob("*.json")
    scenario = json.loads(recorded.read_text())["scenarios"][0]
    assert scenario["faults"] == [{"kind": "http_error", "status": 429, "message": direct.json()["error"]["message"],
                                   "retry_after": float(direct.headers["retry-after"])}]
    assert scenario["expect"]["status"] == "error" and scenario["expect"]["http_status"] == 429
    with MockServer(load_scenarios([tmp_path]), strict=True) as replay:
        again = httpx.post(replay.url + "/chat/completions", json=body, timeout=TIMEOUT)
    assert again.status_code == 429 and again.content == direct.content
    assert again.headers["retry-after"] == direct.headers["retry-after"]


def test_numbering_continues_in_a_folder_that_has_recordings(tmp_path: Path) -> None:
    (tmp_path / "rec_0041_chat.json").write_text("{}")
    with MockServer(strict=True) as mock, RecordServer(mock.root_url, tmp_path) as proxy:
        httpx.post(proxy.url + "/chat/completions", json=request_body("chat", "text_only"), timeout=TIMEOUT)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec_0041_chat.json", "rec_0042_chat.json"]


def test_stopping_writes_the_answers_in_flight(upstream: tuple[_Upstream, str], tmp_path: Path) -> None:
    stand_in, url = upstream
    stand_in.release.clear()
    proxy = RecordServer(url, tmp_path, graceful_timeout=1).start()
    got: list[bytes] = []
    body = {"model": "m", "messages": [{"role": "user", "content": "cut"}], "stream": True}

    def read() -> None:
        try:
            with httpx.stream("POST", proxy.url + "/chat/completions", json=body, timeout=TIMEOUT) as answer:
                for chunk in answer.iter_raw():
                    got.append(chunk)
        except httpx.HTTPError:
            pass

    reader = threading.Thread(target=read)
    reader.start()
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    proxy.stop()  # what SIGINT and SIGTERM do in `callproof record`
    reader.join(10)
    assert time.monotonic() - began < 8 and got and b"".join(got) == FIRST
    (recorded,) = tmp_path.glob("rec_*.json")
    scenario = json.loads(recorded.read_text())["scenarios"][0]
    assert scenario["raw"]["chat"] == [FIRST.decode()] and scenario["expect"]["status"] == "error"


def _gaps(url: str, body: dict[str, object], headers: dict[str, str]) -> tuple[bytes, list[float]]:
    """The answer's bytes and the gaps (ms) between the chunks as they arrived."""
    times: list[float] = []
    chunks: list[bytes] = []
    with httpx.stream("POST", url, json=body, headers=headers, timeout=TIMEOUT) as answer:
        for chunk in answer.iter_raw():
            times.append(time.monotonic())
            chunks.append(chunk)
    return b"".join(chunks), [(b - a) * 1000.0 for a, b in itertools.pairwise(times)]


@pytest.mark.timing
def test_delays_are_recorded_as_measured_and_replayed(tmp_path: Path) -> None:
    """timing_explicit_delays pauses 50 ms and 200 ms before content deltas: the recording keeps one measured delay per
    frame (raw frames' delay_ms) and per content delta (structured delays_ms), and the replay plays them again, which
    the replaying mock's own journal shows. How long the recorder measured depends on the machine's load, so only the
    replay is held to the recorded figures (lower bounds on the journal's stamps: a scheduled write never leaves
    early); the arithmetic from chunk stamps to delays is tested on fixed stamps in tests/harness/scenario."""
    body = request_body("chat", None, text="slow please")
    with MockServer(strict=True) as mock, RecordServer(mock.root_url, tmp_path) as proxy:
        original, _ = _gaps(proxy.url + "/chat/completions", body, {"x-callproof-scenario": "timing_explicit_delays"})
    (recorded,) = tmp_path.glob("rec_*.json")
    scenario = json.loads(recorded.read_text())["scenarios"][0]
    frames = [f for f in scenario["raw"]["chat"] if isinstance(f, dict)]
    assert frames and all(f["delay_ms"] >= 0 for f in frames)
    delays = scenario["timing"]["delays_ms"]
    assert len(delays) == sum(len(o.get("chunk", {}).get("fragments", ())) for o in scenario["output"])
    assert all(d >= 0 for d in delays)
    with MockServer(load_scenarios([tmp_path]), strict=True) as replay:
        again, _ = _gaps(replay.url + "/chat/completions", body, {})
        (request,) = replay.journal.requests()
        writes = replay.journal.writes(request.id)
    assert again == original
    # Frames due at the same instant go out in one write, each pause starts a new one; the last leaves no earlier
    # than the recorded delays add up to, counted from the stream's start.
    raw = scenario["raw"]["chat"]  # a frame given as a plain string has no delay
    offsets = list(itertools.accumulate(f["delay_ms"] if isinstance(f, dict) else 0.0 for f in raw))
    assert len(writes) == len({round(o, 6) for o in offsets})
    assert (writes[-1].time - request.start) * 1000.0 >= offsets[-1] - 1e-6


def test_an_upstream_ending_in_v1_and_a_callers_v1_make_one(tmp_path: Path) -> None:
    with MockServer(strict=True) as mock, RecordServer(mock.url, tmp_path) as proxy:
        answer = httpx.post(proxy.url + "/chat/completions?trace=1", json=request_body("chat", "text_only"),
                            timeout=TIMEOUT)
        (request,) = mock.journal.requests()
    assert answer.status_code == 200 and request.path == "/v1/chat/completions"


def test_other_requests_are_forwarded_but_not_recorded(tmp_path: Path) -> None:
    with MockServer(strict=True) as mock, RecordServer(mock.root_url, tmp_path) as proxy:
        health = httpx.get(proxy.root_url + "/_callproof/health", timeout=TIMEOUT)
        not_json = httpx.post(proxy.url + "/chat/completions", content=b"{oops", timeout=TIMEOUT)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert not_json.status_code == 400
    assert list(tmp_path.iterdir()) == []
