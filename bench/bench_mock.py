"""Mock throughput beside a bare Starlette ceiling, and timing fidelity of scripted gaps (issue #3).

Servers run in their own processes on 127.0.0.1 (ephemeral ports): `callproof mock` and bench/bare_app.py, which
streams the same pre-rendered writes the mock's player makes, so the ratio is the mock's own overhead (selection,
rendering, planning, journal). Clients: curl for the long stream; a bounded asyncio raw-socket HTTP/1.0 client at
concurrency 16 for short streams (a Python httpx client would be the bottleneck, perf-notes.md). Goals: both >= 0.8x
the ceiling; p95 error of scripted 5 ms gaps <= 2 ms.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from callproof.harness import SSEParser, parse_sse
from callproof.mock_server import load_scenarios, make_plan
from callproof.mock_server._render import RenderContext
from callproof.mock_server.renderers import RENDERERS

DATA = Path(__file__).resolve().parent / "data"
RATIO_GOAL = 0.8
P95_GOAL_MS = 2.0
SHORT = "parallel_two_calls"
LONG = "bench_long_stream"
GAPS = "bench_gaps"
LOAD_SECONDS = 3.0
CONCURRENCY = 16


@contextmanager
def server(cmd: list[str]) -> Iterator[str]:
    """Start a server process, yield its base URL (incl. /v1) from its first line, and always stop it."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # both servers print their URL first, within a second or two
        if "http://" not in line:
            raise SystemExit(f"{' '.join(cmd)} did not start: {line!r}")
        url = line.strip().split()[-1]
        _wait_accepting(*_host_port(url))
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_accepting(host: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"nothing accepts connections on {host}:{port}") from None
            time.sleep(0.05)


def _request(host: str, port: int, scenario: str) -> bytes:
    body = json.dumps({"model": "bench", "input": "go", "stream": True}).encode()
    return (f"POST /v1/responses HTTP/1.0\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"x-callproof-scenario: {scenario}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def _host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split("/")[0].rsplit(":", 1)
    return host, int(port)


def long_stream(url: str, events: int) -> float:
    """Events/s of the long stream through curl (median of 5)."""
    curl = shutil.which("curl")
    if curl is None:
        raise SystemExit("curl is needed for the long-stream measurement (apt-get install curl)")
    times = []
    for _ in range(5):
        out = subprocess.run(
            [curl, "-sN", "-o", "/dev/null", "-w", "%{time_total}", "-H", "content-type: application/json",
             "-H", f"x-callproof-scenario: {LONG}", "-d", '{"model":"bench","input":"go","stream":true}',
             f"{url}/responses"], capture_output=True, text=True, timeout=60, check=True,
        )
        times.append(float(out.stdout))
    return events / statistics.median(times)


async def _short_load(host: str, port: int) -> float:
    request = _request(host, port, SHORT)
    done = 0
    deadline = time.monotonic() + LOAD_SECONDS

    async def worker() -> None:
        nonlocal done
        while time.monotonic() < deadline:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(request)
            await reader.read()  # HTTP/1.0: the body ends when the server closes
            writer.close()
            done += 1

    start = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(CONCURRENCY))), LOAD_SECONDS + 30)
    return done / (time.monotonic() - start)


def short_streams(url: str) -> float:
    host, port = _host_port(url)
    return asyncio.run(_short_load(host, port))


async def _arrivals(host: str, port: int) -> list[float]:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(_request(host, port, GAPS))
    parser = SSEParser()
    head = b""
    in_body = False
    arrivals: list[float] = []
    while True:
        chunk = await asyncio.wait_for(reader.read(65536), 30)
        now = time.monotonic()
        if not chunk:
            break
        if not in_body:
            head += chunk
            if b"\r\n\r\n" not in head:
                continue
            in_body, chunk = True, head.split(b"\r\n\r\n", 1)[1]
        arrivals += [e.arrival for e in parser.feed(chunk, now)]
    writer.close()
    return arrivals


def timing(url: str) -> dict[str, float]:
    scenario = load_scenarios([DATA])[GAPS]
    plan = make_plan(scenario, RENDERERS["responses"], RenderContext(), stream=True, rng=random.Random(0))
    scheduled = [w.at for w in plan.writes for _ in parse_sse(w.data)[0]]
    host, port = _host_port(url)
    arrivals = asyncio.run(_arrivals(host, port))
    if len(arrivals) != len(scheduled):
        raise SystemExit(f"timing: {len(arrivals)} events arrived, {len(scheduled)} scheduled")
    errors = [((a - arrivals[0]) - (s - scheduled[0])) * 1000 for a, s in zip(arrivals, scheduled, strict=True)]
    gaps = [abs(e) for e in errors[1:]]
    ordered = sorted(gaps)
    return {"gaps": len(gaps), "p50_ms": round(statistics.median(gaps), 3),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3), "max_ms": round(max(gaps), 3),
            "drift_ms": round(errors[-1], 3)}


def run() -> dict[str, Any]:
    scenario = load_scenarios([DATA])[LONG]
    events = len(parse_sse(RENDERERS["responses"].stream(scenario, RenderContext()).body)[0])
    mock_cmd = [sys.executable, "-m", "callproof.harness.cli", "mock", "--port", "0", "--scenarios", str(DATA),
                str(Path(__file__).resolve().parents[1] / "scenarios")]
    bare_cmd = [sys.executable, "-m", "bench.bare_app", str(DATA)]
    results: dict[str, Any] = {"long_stream_events": events, "concurrency": CONCURRENCY}
    for name, cmd in (("mock", mock_cmd), ("bare", bare_cmd)):
        with server(cmd) as url:
            results[name] = {"long_events_per_s": round(long_stream(url, events)),
                             "short_requests_per_s": round(short_streams(url), 1)}
            if name == "mock":
                results["timing"] = timing(url)
    results["long_ratio"] = round(results["mock"]["long_events_per_s"] / results["bare"]["long_events_per_s"], 3)
    results["short_ratio"] = round(
        results["mock"]["short_requests_per_s"] / results["bare"]["short_requests_per_s"], 3)
    results["meets_goal"] = (results["long_ratio"] >= RATIO_GOAL and results["short_ratio"] >= RATIO_GOAL
                             and results["timing"]["p95_ms"] <= P95_GOAL_MS)
    return results


def report(results: dict[str, Any]) -> str:
    mock, bare, timing_ = results["mock"], results["bare"], results["timing"]
    verdict = "meets" if results["meets_goal"] else "MISSES"
    return "\n".join([
        f"mock: long stream ({results['long_stream_events']} events, curl) and short streams (c={CONCURRENCY})",
        f"{'':<8}{'events/s':>12}{'requests/s':>12}",
        f"{'mock':<8}{mock['long_events_per_s']:>12,}{mock['short_requests_per_s']:>12,}",
        f"{'bare':<8}{bare['long_events_per_s']:>12,}{bare['short_requests_per_s']:>12,}",
        f"ratio   {results['long_ratio']:>12}{results['short_ratio']:>12}  (goal >= {RATIO_GOAL})",
        f"timing: {timing_['gaps']} gaps of 5 ms: error p50 {timing_['p50_ms']} ms, p95 {timing_['p95_ms']} ms, "
        f"max {timing_['max_ms']} ms, drift {timing_['drift_ms']} ms (goal p95 <= {P95_GOAL_MS} ms)",
        f"mock {verdict} its goals",
    ])
