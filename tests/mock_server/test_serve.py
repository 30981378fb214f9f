"""Serving: `MockServer` in a background thread (ephemeral port, clean shutdown even mid-stream) and `callproof
mock` as a user runs it (prints its URL, serves, journals to a file, exits 0 on SIGTERM and SIGINT)."""

from __future__ import annotations

import json
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from callproof.mock_server import MockServer
from tests.mock_server.support import SCENARIOS, TIMEOUT, request_body

LISTENING = re.compile(r"^callproof mock listening on (http://127\.0\.0\.1:(\d+)/v1)$")


def test_mock_server_binds_an_ephemeral_port_and_releases_it() -> None:
    with MockServer(SCENARIOS) as server:
        assert server.port > 0 and server.url == f"http://127.0.0.1:{server.port}/v1"
        assert httpx.get(server.root_url + "/_callproof/health", timeout=TIMEOUT).json()["status"] == "ok"
        port = server.port
    assert not server.running
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))  # free again


def test_stop_is_bounded_while_a_stream_is_open() -> None:
    server = MockServer({"stalled": SCENARIOS["stalled"]}).start()
    first_bytes = threading.Event()
    outcome: list[BaseException | None] = []

    def client() -> None:
        try:
            with httpx.stream("POST", server.url + "/chat/completions", json=request_body("chat", "stalled"),
                              timeout=TIMEOUT) as response:
                for _ in response.iter_raw():
                    first_bytes.set()
            outcome.append(None)
        except httpx.HTTPError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    assert first_bytes.wait(10)
    began = time.monotonic()
    server.stop()
    assert time.monotonic() - began < 5
    thread.join(10)
    assert not thread.is_alive() and isinstance(outcome[0], httpx.RemoteProtocolError)
    end = server.journal.end(server.journal.requests()[0].id)
    assert end is not None and end.outcome == "cancelled"


def _start_cli(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "callproof.harness.cli", "mock", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    if not ready:
        proc.kill()
        proc.wait(10)
        pytest.fail("callproof mock printed nothing within 30 s")
    line = proc.stdout.readline().rstrip("\n")
    match = LISTENING.match(line)
    if match is None:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"unexpected first line {line!r}; stderr: {err}")
    return proc, match.group(1)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_callproof_mock_prints_its_url_serves_and_exits_0_on_signal(tmp_path: Path, sig: signal.Signals) -> None:
    journal = tmp_path / "journal.jsonl"
    proc, url = _start_cli("--port", "0", "--strict", "--seed", "3", "--speed", "4", "--journal", str(journal))
    try:
        with httpx.Client(timeout=TIMEOUT) as client:
            health = client.get(url.removesuffix("/v1") + "/_callproof/health").json()
            assert health["strict"] is True and health["seed"] == 3 and health["speed"] == 4.0
            got = client.post(url + "/chat/completions", json=request_body("chat", "one_call"))
            assert got.status_code == 200 and got.text.endswith("data: [DONE]\n\n")
            assert client.post(url + "/chat/completions", json=request_body("chat", "nope")).status_code == 404
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert out == "" and "Traceback" not in err
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["scenario"] for r in records if r["kind"] == "request"] == ["one_call", None]


def _mine(tmp_path: Path, sid: str = "mine_hello") -> Path:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({
        "feature": "mine", "description": "one scenario of my own",
        "scenarios": [{"id": sid, "description": "says hi", "output": [{"type": "text", "text": "hi"}],
                       "request": {"input": [{"role": "user", "text": "hi"}]}, "expect": {"status": "completed"}}],
    }))
    return path


@pytest.mark.parametrize(("flags", "bundled"), [((), True), (("--no-bundled",), False)])
def test_callproof_mock_serves_the_given_scenario_files_besides_the_bundled_ones(
    tmp_path: Path, flags: tuple[str, ...], bundled: bool
) -> None:
    proc, url = _start_cli("--scenarios", str(_mine(tmp_path)), *flags)
    try:
        rows = httpx.get(url.removesuffix("/v1") + "/_callproof/scenarios", timeout=TIMEOUT).json()["scenarios"]
        ids = {r["id"] for r in rows}
        assert "mine_hello" in ids and ("one_call" in ids) is bundled and (len(ids) > 1) is bundled
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
    assert proc.returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scenarios", "/nonexistent/x.json"], "cannot read"),
        (["--no-bundled"], "--no-bundled leaves no scenario: give your files with --scenarios PATH"),
        (["--speed", "0"], "speed must be a positive number"),
        (["--port", "70000"], "argument --port: '70000' is not a port number (0 to 65535; 0 picks a free port)"),
        (["--port", "abc"], "argument --port: 'abc' is not a port number (0 to 65535; 0 picks a free port)"),
        (["--speed", "fast"], "argument --speed: expected a number (a factor, like 2 or 0.5), got 'fast'"),
    ],
)
def test_callproof_mock_usage_errors_exit_2(args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "mock", *args],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


def test_callproof_mock_reports_a_busy_port() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "mock", "--port", str(port)],
                              capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and f"cannot serve on 127.0.0.1:{port}" in proc.stderr


@pytest.mark.timing
def test_callproof_mock_virtual_clock_plays_a_timing_scenario_at_once(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    proc, url = _start_cli("--virtual-clock", "--journal", str(journal))
    try:
        body = request_body("chat", "timing_ttft_and_gaps")
        walls = []
        with httpx.Client(timeout=TIMEOUT) as client:
            for _ in range(3):  # the fastest of three: a loaded machine may delay any one request
                start = time.monotonic()
                response = client.post(f"{url}/chat/completions", json=body)
                walls.append(time.monotonic() - start)
        wall = min(walls)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    request = [r for r in records if r["kind"] == "request"][-1]
    times = [r["time"] - request["start"] for r in records if r["kind"] == "write" and r["request"] == request["id"]]
    assert times[-1] >= 0.3  # the journal keeps the scripted schedule (300 ms of first-token wait, then gaps) ...
    # ... which the answer took less than: a real clock never plays a schedule early, however loaded the machine
    assert response.status_code == 200 and wall < times[-1]
