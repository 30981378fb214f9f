"""Mock throughput beside a bare Starlette ceiling, and the timing fidelity of scripted gaps (issue #3).

Servers: `callproof mock --port 0 --scenarios bench/data/bench.json` and `python -m bench.bare_app` (the same
scenarios pre-rendered at start-up into the same writes the mock's player makes, streamed from an async generator
on uvicorn configured as the mock's), each in its own process on 127.0.0.1 and an ephemeral port. The ratio
mock / ceiling is the mock's own cost per request: scenario selection, JSON body, plan cache, journal, and the
player's deadline checks. Both serve the same bytes (checked before measuring).

1. Throughput (goal: mock >= 0.8x the ceiling for both):
   (a) long stream: `bench_long_text`, 30,008 Responses events (7.7 MB) through `curl -sN -o /dev/null`; events/s
       from curl's `-w` timings (time_total - time_pretransfer: request sent to last byte), median of the runs;
   (b) short streams: `bench_short_calls`, 30 events (10 kB), requests/s at concurrency 16 with keep-alive, from
       wrk when installed, otherwise from a bounded asyncio raw-socket HTTP/1.1 client (httpx would be the
       bottleneck, bench/README.md); CALLPROOF_BENCH_LOADGEN=wrk|python forces one.
   Servers alternate run by run (order flipped every run); the ratio is the median of the run-by-run ratios, so
   machine noise hits both alike. With two or more CPUs the servers
   are pinned to one CPU and the clients to another.
2. Timing fidelity: `bench_gaps_5ms`, 201 frames 5 ms apart (200 scripted gaps), read from a raw socket as bytes
   arrive; each HTTP chunk (one write of the player) is stamped when the recv holding its last byte returns.
   gap error = measured gap - scripted gap; schedule error = (arrival - first arrival) - scripted offset (how late
   each frame is against its absolute deadline; its last value is the drift). Goal: p95 |gap error| <= 2 ms.

Every loop is bounded in count and time; servers are killed on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

from bench._common import exchange
from callproof.harness import parse_sse
from callproof.mock_server import load_scenarios, make_plan
from callproof.mock_server.dialects import RENDERERS
from callproof.mock_server.dialects._render import RenderContext

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = Path(__file__).resolve().parent / "data" / "bench.json"
BODY: dict[str, Any] = {"model": "callproof-bench", "input": "go", "stream": True}
LONG = "bench_long_text"
SHORT = "bench_short_calls"
GAPS = "bench_gaps_5ms"

RATIO_GOAL = 0.8
P95_GOAL_MS = 2.0
LONG_WARMUP = 2
LONG_RUNS = 15
CONCURRENCY = 16
LOAD_SECONDS = 3.0
LOAD_WARMUP_SECONDS = 1.0
LOAD_ROUNDS = 5
TIMING_RUNS = 3
START_TIMEOUT = 30.0
IO_TIMEOUT = 30.0


# -- processes and CPUs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cpus:
    """Where servers and clients run: separate CPUs when the machine has two."""

    server: frozenset[int] | None
    client: frozenset[int] | None

    @staticmethod
    def pick() -> Cpus:
        if not hasattr(os, "sched_getaffinity"):
            return Cpus(None, None)
        available = sorted(os.sched_getaffinity(0))
        if len(available) < 2:
            return Cpus(None, None)
        return Cpus(frozenset(available[:1]), frozenset(available[1:2]))

    def describe(self) -> str:
        if self.server is None or self.client is None:
            return "not pinned (fewer than 2 CPUs available)"
        return f"servers on CPU {min(self.server)}, clients on CPU {min(self.client)}"

    def preexec(self, cpus: frozenset[int] | None) -> Callable[[], None] | None:
        if cpus is None:
            return None
        return lambda: os.sched_setaffinity(0, cpus)

    @contextlib.contextmanager
    def as_client(self) -> Iterator[None]:
        """Run this process on the client CPU for the duration (restored afterwards)."""
        if self.client is None:
            yield
            return
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, self.client)
        try:
            yield
        finally:
            os.sched_setaffinity(0, before)


@dataclass(slots=True)
class Server:
    """A server process and the URL it printed (base URL including /v1)."""

    name: str
    proc: subprocess.Popen[bytes]
    url: str = ""
    host: str = ""
    port: int = 0


@contextlib.contextmanager
def serve(name: str, cmd: list[str], cpus: Cpus) -> Iterator[Server]:
    """Start `cmd`, wait (bounded) for the URL on its first output line, and always stop it on exit."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
                                preexec_fn=cpus.preexec(cpus.server))
        try:
            server = Server(name, proc)
            line = _first_line(proc, START_TIMEOUT)
            match = re.search(r"http://([0-9.]+):(\d+)(/\S*)", line)
            if match is None:
                errors.seek(0)
                raise RuntimeError(f"{name} did not start ({' '.join(cmd)}): {line!r}\n"
                                   f"{errors.read().decode(errors='replace')[-2000:]}")
            server.host, server.port = match.group(1), int(match.group(2))
            server.url = f"http://{server.host}:{server.port}{match.group(3)}"
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


def _first_line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in data and time.monotonic() < deadline and len(data) < 65536:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                break
            piece = os.read(proc.stdout.fileno(), 4096)
            if not piece:
                break
            data += piece
    return data.decode(errors="replace").splitlines()[0] if data else ""


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    lines = (out.stdout or out.stderr).splitlines()
    return lines[0].strip() if lines else "?"


# -- a raw-socket HTTP/1.1 client ---------------------------------------------------------------------------


def _request(host: str, port: int, scenario: str, *, close: bool) -> bytes:
    body = json.dumps(BODY).encode()
    head = (f"POST /v1/responses HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"x-callproof-scenario: {scenario}\r\nContent-Length: {len(body)}\r\n")
    if close:
        head += "Connection: close\r\n"
    return head.encode() + b"\r\n" + body


async def _python_load(host: str, port: int, scenario: str, seconds: float) -> tuple[int, int, float]:
    """Keep-alive requests at CONCURRENCY for `seconds`: (completed, failed, elapsed). Bounded in time."""
    request = _request(host, port, scenario, close=False)
    done = failed = 0
    start = time.monotonic()
    stop_at = start + seconds

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        ok = head.startswith(b"HTTP/1.1 200")
        lowered = head.lower()
        if b"transfer-encoding: chunked" in lowered:
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            match = re.search(rb"content-length:\s*(\d+)", lowered)
            await reader.readexactly(int(match.group(1)) if match else 0)
        return ok

    async def worker() -> None:
        nonlocal done, failed
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.monotonic() < stop_at:
                if await asyncio.wait_for(one(reader, writer), IO_TIMEOUT):
                    done += 1
                else:
                    failed += 1
        finally:
            writer.close()

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(CONCURRENCY))), seconds + IO_TIMEOUT)
    return done, failed, time.monotonic() - start


# -- measurements ---------------------------------------------------------------------------------------------


def _paired_ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median of run-by-run ratios: runs alternate between the servers (order flipped every run), so each
    pair saw the same machine load and slow drift cancels out."""
    return round(statistics.median(n / d for n, d in zip(numerators, denominators, strict=True)), 3)


def long_stream(servers: list[Server], cpus: Cpus, events: int, size: int) -> dict[str, Any]:
    """(a) events/s of the long stream through curl, servers alternating run by run."""
    curl = shutil.which("curl")
    if curl is None:
        return {"skipped": "curl is not installed (apt-get install curl)", "meets_goal": None}
    result: dict[str, Any] = {"scenario": LONG, "events": events, "bytes": size, "tool": _version([curl, "--version"]),
                              "metric": "events / (time_total - time_pretransfer), median"}
    runs: dict[str, list[float]] = {s.name: [] for s in servers}
    for i in range(LONG_WARMUP + LONG_RUNS):
        for server in servers if i % 2 == 0 else servers[::-1]:
            out = subprocess.run(
                [curl, "-sN", "-o", "/dev/null", "--max-time", str(IO_TIMEOUT),
                 "-w", "%{http_code} %{size_download} %{time_pretransfer} %{time_total}",
                 "-H", "content-type: application/json", "-H", f"x-callproof-scenario: {LONG}",
                 "--data-binary", json.dumps(BODY), f"{server.url}/responses"],
                capture_output=True, text=True, timeout=IO_TIMEOUT + 10, preexec_fn=cpus.preexec(cpus.client),
            )
            fields = out.stdout.split()
            if out.returncode != 0 or len(fields) != 4 or fields[0] != "200" or int(fields[1]) != size:
                raise RuntimeError(f"curl against {server.name}: exit {out.returncode}, -w {out.stdout!r}, "
                                   f"expected 200 and {size} bytes")
            if i >= LONG_WARMUP:
                runs[server.name].append(float(fields[3]) - float(fields[2]))
    for name, times in runs.items():
        median = statistics.median(times)
        result[name] = {"events_per_s": round(events / median), "seconds_median": round(median, 4),
                        "seconds_runs": [round(t, 4) for t in times]}
    result["ratio"] = _paired_ratio(runs["bare"], runs["mock"])  # times: bare / mock = rate ratio mock / bare
    result["meets_goal"] = result["ratio"] >= RATIO_GOAL
    return result


_WRK_SCRIPT = """wrk.method = "POST"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-callproof-scenario"] = "{scenario}"
"""


def _wrk(wrk: str, server: Server, script: Path, seconds: float, cpus: Cpus) -> tuple[int, int, float]:
    out = subprocess.run(
        [wrk, "-t1", f"-c{CONCURRENCY}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(script),
         f"{server.url}/responses"],
        capture_output=True, text=True, timeout=seconds + 60, preexec_fn=cpus.preexec(cpus.client),
    )
    match = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", out.stdout)
    if out.returncode != 0 or match is None:
        raise RuntimeError(f"wrk against {server.name} failed (exit {out.returncode}): {out.stdout}{out.stderr}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[match.group(3)]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out.stdout)
    failed = (int(bad.group(1)) if bad else 0) + (sum(int(g) for g in errors.groups()) if errors else 0)
    return int(match.group(1)), failed, float(match.group(2)) * scale


def short_streams(servers: list[Server], cpus: Cpus, events: int, size: int) -> dict[str, Any]:
    """(b) requests/s of short streams at concurrency 16, servers alternating round by round."""
    choice = os.environ.get("CALLPROOF_BENCH_LOADGEN", "auto")
    wrk = shutil.which("wrk")
    if choice == "wrk" and wrk is None:
        return {"skipped": "CALLPROOF_BENCH_LOADGEN=wrk but wrk is not installed (apt-get install wrk)",
                "meets_goal": None}
    use_wrk = wrk is not None and choice != "python"
    result: dict[str, Any] = {"scenario": SHORT, "events": events, "bytes": size, "concurrency": CONCURRENCY,
                              "seconds_per_round": LOAD_SECONDS, "rounds": LOAD_ROUNDS}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "post.lua"
        script.write_text(_WRK_SCRIPT.format(body=json.dumps(json.dumps(BODY)), scenario=SHORT), encoding="utf-8")

        def load(server: Server, seconds: float) -> tuple[int, int, float]:
            if wrk is not None and use_wrk:
                return _wrk(wrk, server, script, seconds, cpus)
            with cpus.as_client():
                return asyncio.run(_python_load(server.host, server.port, SHORT, seconds))

        if use_wrk:
            version = _version([str(wrk), "-v"]).split(" Copyright")[0]
            result["tool"] = f"wrk -t1 -c{CONCURRENCY} ({version})"
        else:
            reason = "forced by CALLPROOF_BENCH_LOADGEN=python" if choice == "python" else "wrk is not installed"
            result["tool"] = (f"asyncio raw-socket HTTP/1.1 keep-alive client, c={CONCURRENCY} ({reason}; a Python "
                              "client may itself be the limit)")
        rounds: dict[str, list[float]] = {s.name: [] for s in servers}
        for server in servers:
            load(server, LOAD_WARMUP_SECONDS)
        for i in range(LOAD_ROUNDS):
            for server in servers if i % 2 == 0 else servers[::-1]:
                done, failed, elapsed = load(server, LOAD_SECONDS)
                if failed or not done:
                    raise RuntimeError(f"{server.name}: {failed} failed requests of {done + failed} under load")
                rounds[server.name].append(done / elapsed)
    for name, rates in rounds.items():
        result[name] = {"requests_per_s": round(statistics.median(rates), 1),
                        "events_per_s": round(statistics.median(rates) * events),
                        "rounds_requests_per_s": [round(r, 1) for r in rates]}
    result["ratio"] = _paired_ratio(rounds["mock"], rounds["bare"])
    result["meets_goal"] = result["ratio"] >= RATIO_GOAL
    return result


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = q * (len(ordered) - 1)
    low = int(index)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (index - low)


def _largest(values: list[float]) -> float:
    """The value of largest magnitude, sign kept."""
    return max(values, key=lambda v: abs(v))


def timing(server: Server, cpus: Cpus) -> dict[str, Any]:
    """2. Scripted 5 ms gaps measured at the client, chunk by chunk."""
    scenario = load_scenarios([SCENARIOS])[GAPS]
    ctx = RenderContext(model=str(BODY["model"]), request=BODY)
    plan = make_plan(scenario, RENDERERS["responses"], ctx, stream=True, rng=random.Random(0))
    offsets = [w.at for w in plan.writes]
    gap_errors: list[float] = []
    schedule_errors: list[float] = []
    drifts: list[float] = []
    request = _request(server.host, server.port, GAPS, close=True)
    with cpus.as_client():
        exchange(server.host, server.port, request)  # warm-up: renders and caches the plan
        for _ in range(TIMING_RUNS):
            response = exchange(server.host, server.port, request)
            if response.status != 200 or [d for _, d in response.chunks] != [w.data for w in plan.writes]:
                raise RuntimeError(f"timing: got {len(response.chunks)} chunks (status {response.status}), "
                                   f"expected the plan's {len(plan.writes)} writes byte for byte")
            arrivals = [t for t, _ in response.chunks]
            late = [((a - arrivals[0]) - (o - offsets[0])) * 1000 for a, o in zip(arrivals, offsets, strict=True)]
            schedule_errors += late[1:]
            gap_errors += [late[i] - late[i - 1] for i in range(1, len(late))]
            drifts.append(late[-1])
    magnitude = [abs(e) for e in gap_errors]
    scripted_ms = (offsets[-1] - offsets[0]) * 1000
    result: dict[str, Any] = {
        "scenario": GAPS, "tool": "raw socket (blocking recv, perf_counter per recv)", "runs": TIMING_RUNS,
        "gaps_per_run": len(offsets) - 1, "gap_ms": scenario.timing.gap_ms, "gaps": len(gap_errors),
        "gap_error_ms": {"p50": round(_quantile(magnitude, 0.5), 3), "p95": round(_quantile(magnitude, 0.95), 3),
                         "max": round(max(magnitude), 3), "mean_signed": round(statistics.fmean(gap_errors), 4)},
        "schedule_error_ms": {"p50": round(_quantile(schedule_errors, 0.5), 3),
                              "p95": round(_quantile(schedule_errors, 0.95), 3),
                              "max": round(_largest(schedule_errors), 3)},
        "drift_ms": [round(d, 3) for d in drifts],
        "drift_pct": round(_largest(drifts) / scripted_ms * 100, 3) if scripted_ms else 0.0,
        "goal_p95_ms": P95_GOAL_MS,
    }
    result["meets_goal"] = result["gap_error_ms"]["p95"] <= P95_GOAL_MS
    return result


def _check_same_bytes(servers: list[Server], expected: dict[str, bytes]) -> dict[str, dict[str, float]]:
    """Both servers send exactly the pre-rendered bytes for every measured scenario. Returns each first (cold)
    request's seconds to the last byte: the mock renders and caches its plan then, the ceiling did at start-up."""
    cold: dict[str, dict[str, float]] = {}
    for server in servers:
        for sid, wire in expected.items():
            start = time.perf_counter()
            response = exchange(server.host, server.port, _request(server.host, server.port, sid, close=True))
            cold.setdefault(server.name, {})[sid] = round(time.perf_counter() - start, 4)
            if response.status != 200 or response.body != wire:
                raise RuntimeError(f"{server.name} sent {len(response.body)} bytes (status {response.status}) for "
                                   f"{sid}, not the {len(wire)} pre-rendered bytes: the comparison would be unfair")
    return cold


def run() -> dict[str, Any]:
    cpus = Cpus.pick()
    scenarios = load_scenarios([SCENARIOS])
    ctx = RenderContext(model=str(BODY["model"]), request=BODY)
    plans = {sid: make_plan(scenarios[sid], RENDERERS["responses"], ctx, stream=True,
                            rng=random.Random(0)) for sid in (LONG, SHORT)}
    wires = {sid: plan.wire for sid, plan in plans.items()}
    events = {sid: len(parse_sse(wire)[0]) for sid, wire in wires.items()}
    results: dict[str, Any] = {
        "servers": f"`callproof mock` vs bench/bare_app.py, separate processes, uvicorn {uvicorn.__version__} "
                   "(asyncio loop, h11), 127.0.0.1",
        "cpus": cpus.describe(),
    }
    mock_cmd = [sys.executable, "-m", "callproof.harness.cli", "mock", "--port", "0", "--scenarios", str(SCENARIOS)]
    bare_cmd = [sys.executable, "-m", "bench.bare_app", str(SCENARIOS), json.dumps(BODY)]
    with serve("mock", mock_cmd, cpus) as mock, serve("bare", bare_cmd, cpus) as bare:
        servers = [mock, bare]
        with cpus.as_client():
            results["first_request_s"] = _check_same_bytes(servers, wires)
        results["long_stream"] = long_stream(servers, cpus, events[LONG], len(wires[LONG]))
        results["short_streams"] = short_streams(servers, cpus, events[SHORT], len(wires[SHORT]))
        results["timing"] = timing(mock, cpus)
    verdicts = [results[k]["meets_goal"] for k in ("long_stream", "short_streams", "timing")]
    results["skipped"] = [k for k in ("long_stream", "short_streams", "timing") if results[k]["meets_goal"] is None]
    results["meets_goal"] = all(v is not False for v in verdicts)
    return results


def report(results: dict[str, Any]) -> str:
    lines = [f"mock: {results['servers']}; {results['cpus']}"]
    long_, short, timing_ = results["long_stream"], results["short_streams"], results["timing"]

    def verdict(value: bool | None) -> str:
        return "SKIPPED" if value is None else ("meets" if value else "MISSES")

    lines.append(f"{'measurement':<52} {'mock':>12} {'bare':>12} {'ratio':>7}  goal >= {RATIO_GOAL}x")
    if "skipped" in long_:
        lines.append(f"long stream: SKIPPED: {long_['skipped']}")
    else:
        lines.append(f"{'long stream, ' + format(long_['events'], ',') + ' events, events/s (curl)':<52} "
                     f"{long_['mock']['events_per_s']:>12,} {long_['bare']['events_per_s']:>12,} "
                     f"{long_['ratio']:>7.3f}  {verdict(long_['meets_goal'])}")
    if "skipped" in short:
        lines.append(f"short streams: SKIPPED: {short['skipped']}")
    else:
        label = f"short streams, {short['events']} events, c={short['concurrency']}, requests/s"
        lines.append(f"{label:<52} {short['mock']['requests_per_s']:>12,} {short['bare']['requests_per_s']:>12,} "
                     f"{short['ratio']:>7.3f}  {verdict(short['meets_goal'])}")
        lines.append(f"  load generator: {short['tool']}")
    if "skipped" not in long_:
        lines.append(f"  long stream client: {long_['tool'].split(' (')[0]}, {long_['metric']} of "
                     f"{len(long_['mock']['seconds_runs'])} runs")
    cold = results["first_request_s"]
    lines.append(f"  first (cold) request of the long stream, s to the last byte: mock {cold['mock'][LONG]} (renders "
                 f"and caches the plan), bare {cold['bare'][LONG]} (pre-rendered at start-up)")
    gap, sched = timing_["gap_error_ms"], timing_["schedule_error_ms"]
    lines.append(f"timing: {timing_['gaps']} gaps of {timing_['gap_ms']:g} ms ({timing_['runs']} runs of "
                 f"{timing_['gaps_per_run']}, {timing_['tool']})")
    lines.append(f"  |gap error| p50 {gap['p50']} / p95 {gap['p95']} / max {gap['max']} ms (mean signed "
                 f"{gap['mean_signed']} ms); goal p95 <= {P95_GOAL_MS} ms: {verdict(timing_['meets_goal'])}")
    lines.append(f"  schedule error (lateness vs absolute deadline) p50 {sched['p50']} / p95 {sched['p95']} / max "
                 f"{sched['max']} ms; drift {timing_['drift_ms']} ms ({timing_['drift_pct']}%)")
    overall = "meets" if results["meets_goal"] else "MISSES"
    skipped = f" ({', '.join(results['skipped'])} skipped)" if results["skipped"] else ""
    lines.append(f"mock {overall} its goals{skipped}")
    return "\n".join(lines)


def main() -> int:
    """`python -m bench.bench_mock`: this benchmark alone, its report printed (`make bench` runs every benchmark)."""
    results = run()
    print(report(results))
    return 0 if results["meets_goal"] else 1


if __name__ == "__main__":
    sys.exit(main())
