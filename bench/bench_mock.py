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
   (c) WebSocket mode: the same `bench_short_calls` as `response.create` turns over 16 connections (a bounded
       asyncio raw-socket client in this process, `_common.ws_load`: frame headers parsed, payloads not), turns/s
       and messages/s, each turn checked to bring all its messages; beside (b)'s HTTP requests/s of the same run.
       Goal (issue #37): turns/s >= 0.5x the HTTP requests/s.
2. Timing fidelity: `bench_gaps_5ms`, 201 frames 5 ms apart (200 scripted gaps), read from a raw socket as bytes
   arrive; each HTTP chunk (one write of the player) is stamped when the recv holding its last byte returns.
   gap error = measured gap - scripted gap; schedule error = (arrival - first arrival) - scripted offset (how late
   each frame is against its absolute deadline; its last value is the drift). Goal: p95 |gap error| <= 2 ms.

Every loop is bounded in count and time; servers are killed on exit.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import uvicorn

from bench._common import (
    IO_TIMEOUT,
    WRK_SCRIPT,
    Server,
    cpu_split,
    exchange,
    keepalive_load,
    load_rounds,
    on_cpus,
    paired_ratio,
    pinned,
    post,
    quantile,
    run_wrk,
    serve,
    version_of,
    ws_load,
)
from callproof.harness import parse_sse
from callproof.mock_server import load_scenarios, make_plan
from callproof.mock_server.dialects import RENDERERS
from callproof.mock_server.dialects._render import RenderContext

SCENARIOS = Path(__file__).resolve().parent / "data" / "bench.json"
BODY: dict[str, Any] = {"model": "callproof-bench", "input": "go", "stream": True}
LONG = "bench_long_text"
SHORT = "bench_short_calls"
GAPS = "bench_gaps_5ms"

RATIO_GOAL = 0.8
#: p95 |gap error| of 5 ms gaps (issue #15: <= 1 ms; it was 2 ms).
P95_GOAL_MS = 1.0
LONG_WARMUP = 2
LONG_RUNS = 15
CONCURRENCY = 16
LOAD_SECONDS = 3.0
LOAD_WARMUP_SECONDS = 1.0
LOAD_ROUNDS = 5
TIMING_RUNS = 3


# -- CPUs and requests ---------------------------------------------------------------------------------------


def _describe(server: frozenset[int] | None, client: frozenset[int] | None) -> str:
    if server is None or client is None:
        return "not pinned (fewer than 2 CPUs available)"
    return f"servers on CPU {min(server)}, clients on CPU {min(client)}"


def _request(host: str, port: int, scenario: str, *, close: bool) -> bytes:
    return post(host, port, "/v1/responses", json.dumps(BODY).encode(), {"x-callproof-scenario": scenario},
                close=close)


# -- measurements ---------------------------------------------------------------------------------------------


def long_stream(servers: list[Server], client: frozenset[int] | None, events: int, size: int) -> dict[str, Any]:
    """(a) events/s of the long stream through curl, servers alternating run by run."""
    curl = shutil.which("curl")
    if curl is None:
        return {"skipped": "curl is not installed (apt-get install curl)", "meets_goal": None}
    result: dict[str, Any] = {"scenario": LONG, "events": events, "bytes": size,
                              "tool": version_of([curl, "--version"]),
                              "metric": "events / (time_total - time_pretransfer), median"}
    runs: dict[str, list[float]] = {s.name: [] for s in servers}
    for i in range(LONG_WARMUP + LONG_RUNS):
        for server in servers if i % 2 == 0 else servers[::-1]:
            out = subprocess.run(
                [curl, "-sN", "-o", "/dev/null", "--max-time", str(IO_TIMEOUT),
                 "-w", "%{http_code} %{size_download} %{time_pretransfer} %{time_total}",
                 "-H", "content-type: application/json", "-H", f"x-callproof-scenario: {LONG}",
                 "--data-binary", json.dumps(BODY), f"{server.root}/v1/responses"],
                capture_output=True, text=True, timeout=IO_TIMEOUT + 10, preexec_fn=pinned(client),
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
    result["ratio"] = round(paired_ratio(runs["bare"], runs["mock"]), 3)  # times: bare / mock = rate ratio mock / bare
    result["meets_goal"] = result["ratio"] >= RATIO_GOAL
    return result


def short_streams(servers: list[Server], client: frozenset[int] | None, events: int, size: int) -> dict[str, Any]:
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
        script.write_text(WRK_SCRIPT.format(body=json.dumps(json.dumps(BODY)),
                                            headers=f'wrk.headers["x-callproof-scenario"] = "{SHORT}"'),
                          encoding="utf-8")

        def load(server: Server, seconds: float) -> tuple[int, int, float]:
            if wrk is not None and use_wrk:
                return run_wrk(wrk, f"{server.root}/v1/responses", script, seconds=seconds, connections=CONCURRENCY,
                               cpus=client)
            with on_cpus(client):
                request = _request(server.host, server.port, SHORT, close=False)
                return asyncio.run(keepalive_load(server.host, server.port, request, seconds=seconds,
                                                  concurrency=CONCURRENCY))

        if use_wrk:
            version = version_of([str(wrk), "-v"]).split(" Copyright")[0]
            result["tool"] = f"wrk -t1 -c{CONCURRENCY} ({version})"
        else:
            reason = "forced by CALLPROOF_BENCH_LOADGEN=python" if choice == "python" else "wrk is not installed"
            result["tool"] = (f"asyncio raw-socket HTTP/1.1 keep-alive client, c={CONCURRENCY} ({reason}; a Python "
                              "client may itself be the limit)")
        rounds = load_rounds(servers, load, warmup=LOAD_WARMUP_SECONDS, seconds=LOAD_SECONDS, rounds=LOAD_ROUNDS)
    for name, rates in rounds.items():
        result[name] = {"requests_per_s": round(statistics.median(rates), 1),
                        "events_per_s": round(statistics.median(rates) * events),
                        "rounds_requests_per_s": [round(r, 1) for r in rates]}
    result["ratio"] = round(paired_ratio(rounds["mock"], rounds["bare"]), 3)
    result["meets_goal"] = result["ratio"] >= RATIO_GOAL
    return result


WS_CONNECTIONS = 16
#: The WebSocket mode's turns/s against its own HTTP requests/s on the same scenario (issue #37).
WS_GOAL = 0.5


def websocket(server: Server, client: frozenset[int] | None, events: int, http: dict[str, Any]) -> dict[str, Any]:
    """(c) turns/s and messages/s of the WebSocket mode, beside (b)'s HTTP figure of the same run."""
    create = json.dumps({"type": "response.create", "model": BODY["model"], "input": BODY["input"]})
    headers = {"x-callproof-scenario": SHORT}
    result: dict[str, Any] = {"scenario": SHORT, "events": events, "connections": WS_CONNECTIONS,
                              "seconds_per_round": LOAD_SECONDS, "rounds": LOAD_ROUNDS,
                              "tool": "asyncio raw-socket WebSocket client (frame headers parsed, not payloads)"}

    def load(seconds: float) -> tuple[int, int, int, float]:
        return asyncio.run(ws_load(server.host, server.port, "/v1/responses", headers, create, seconds=seconds,
                                   connections=WS_CONNECTIONS))

    turns_rates: list[float] = []
    message_rates: list[float] = []
    with on_cpus(client):
        load(LOAD_WARMUP_SECONDS)
        for _ in range(LOAD_ROUNDS):
            turns, messages, failed, elapsed = load(LOAD_SECONDS)
            if failed or not turns or messages != turns * events:
                raise RuntimeError(f"websocket: {failed} turns of {turns + failed} did not bring {events} messages")
            turns_rates.append(turns / elapsed)
            message_rates.append(messages / elapsed)
    result["mock"] = {"turns_per_s": round(statistics.median(turns_rates), 1),
                      "messages_per_s": round(statistics.median(message_rates)),
                      "rounds_turns_per_s": [round(r, 1) for r in turns_rates]}
    http_rate = http.get("mock", {}).get("requests_per_s") if isinstance(http.get("mock"), dict) else None
    result["http_requests_per_s"] = http_rate
    result["http_tool"] = str(http.get("tool", "")).split(" (")[0]
    result["ratio_to_http"] = round(result["mock"]["turns_per_s"] / http_rate, 3) if http_rate else None
    result["goal_ratio_to_http"] = WS_GOAL
    result["meets_goal"] = result["ratio_to_http"] >= WS_GOAL if http_rate else None
    return result


def _largest(values: list[float]) -> float:
    """The value of largest magnitude, sign kept."""
    return max(values, key=lambda v: abs(v))


def timing(server: Server, client: frozenset[int] | None) -> dict[str, Any]:
    """2. Scripted 5 ms gaps measured at the client, chunk by chunk."""
    scenario = load_scenarios([SCENARIOS])[GAPS]
    ctx = RenderContext(model=str(BODY["model"]), request=BODY)
    plan = make_plan(scenario, RENDERERS["responses"], ctx, stream=True, rng=random.Random(0))
    offsets = [w.at for w in plan.writes]
    gap_errors: list[float] = []
    schedule_errors: list[float] = []
    drifts: list[float] = []
    request = _request(server.host, server.port, GAPS, close=True)
    with on_cpus(client):
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
        "gap_error_ms": {"p50": round(quantile(magnitude, 0.5), 3), "p95": round(quantile(magnitude, 0.95), 3),
                         "max": round(max(magnitude), 3), "mean_signed": round(statistics.fmean(gap_errors), 4)},
        "schedule_error_ms": {"p50": round(quantile(schedule_errors, 0.5), 3),
                              "p95": round(quantile(schedule_errors, 0.95), 3),
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
    server_cpus, client_cpus = cpu_split()
    scenarios = load_scenarios([SCENARIOS])
    ctx = RenderContext(model=str(BODY["model"]), request=BODY)
    plans = {sid: make_plan(scenarios[sid], RENDERERS["responses"], ctx, stream=True,
                            rng=random.Random(0)) for sid in (LONG, SHORT)}
    wires = {sid: plan.wire for sid, plan in plans.items()}
    events = {sid: len(parse_sse(wire)[0]) for sid, wire in wires.items()}
    results: dict[str, Any] = {
        "servers": f"`callproof mock` vs bench/bare_app.py, separate processes, uvicorn {uvicorn.__version__} "
                   "(asyncio loop, h11), 127.0.0.1",
        "cpus": _describe(server_cpus, client_cpus),
    }
    mock_cmd = [sys.executable, "-m", "callproof.harness.cli", "mock", "--port", "0", "--scenarios", str(SCENARIOS)]
    bare_cmd = [sys.executable, "-m", "bench.bare_app", str(SCENARIOS), json.dumps(BODY)]
    with serve("mock", mock_cmd, cpus=server_cpus) as mock, serve("bare", bare_cmd, cpus=server_cpus) as bare:
        servers = [mock, bare]
        with on_cpus(client_cpus):
            results["first_request_s"] = _check_same_bytes(servers, wires)
        results["long_stream"] = long_stream(servers, client_cpus, events[LONG], len(wires[LONG]))
        results["short_streams"] = short_streams(servers, client_cpus, events[SHORT], len(wires[SHORT]))
        results["websocket"] = websocket(mock, client_cpus, events[SHORT], results["short_streams"])
        results["timing"] = timing(mock, client_cpus)
    measured = ("long_stream", "short_streams", "websocket", "timing")
    verdicts = [results[k]["meets_goal"] for k in measured]
    results["skipped"] = [k for k in measured if results[k]["meets_goal"] is None]
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
    ws = results.get("websocket")
    if ws is not None:
        label = f"websocket, {ws['events']} messages a turn, {ws['connections']} conns, turns/s"
        lines.append(f"{label:<52} "
                     f"{ws['mock']['turns_per_s']:>12,} {'-':>12} {'-':>7}  ({ws['mock']['messages_per_s']:,} "
                     f"messages/s; HTTP {ws['http_requests_per_s']} req/s by {ws['http_tool']})")
        ratio = ws.get("ratio_to_http")
        lines.append(f"  {ws['tool']}; turns/s / HTTP requests/s {ratio}, goal >= {WS_GOAL}x: "
                     f"{verdict(ws['meets_goal'])}")
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
