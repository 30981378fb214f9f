"""The closest peer, aimock (@copilotkit/aimock, Node), beside `callproof mock` on the same streams.

Short stream: both serve a Responses stream of three function calls whose arguments ({"key":"alpha-00001"}, ...)
stream in six 4-character deltas each, one call after the other (the only order aimock can stream): `callproof mock
--scenarios bench/data/peer.json` (scenario `perf_peer_short_calls`) and aimock with an equivalent fixture (match on
the user message, `toolCalls`, `chunkSize: 4`). Before measuring, one response from each is checked to carry the
same calls with the same arguments and deltas; both streams are also run through callproof's checker (aimock's
stream has no `sequence_number`, so it is not conformant: reported, not a reason to skip).

Long stream: both serve a 30,000-character text in one-character deltas (`perf_peer_long_text`; aimock's
`chunkSize: 1`), fetched whole by curl, servers alternating run by run; the figure is deltas/s from curl's timings
(time_total - time_pretransfer: request sent to last byte), the ratio the median of the paired runs' time ratios.

Measure (short): requests/s at concurrency 16 with keep-alive, from wrk (-t1 -c16) when installed, else from an asyncio
raw-socket client; servers alternate round by round; with two or more CPUs the servers run on one CPU and the
load generator on another. Target: callproof ahead of aimock (ratio callproof / aimock >= 1).

aimock is installed with npm into a directory under the system temp dir (never into the repo) and reused by later
runs when the pinned version is already there. It needs Node >= 20.15 (its `engines`); without Node, npm or network
the row says "not available: <reason>".

Bounded: npm install 180 s, each load round LOAD_SECONDS, servers killed on exit.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._common import (
    WRK_SCRIPT,
    Row,
    Server,
    cpu_split,
    exchange,
    free_port,
    keepalive_load,
    load_rounds,
    n,
    on_cpus,
    paired_ratio,
    pinned,
    post,
    row,
    run_wrk,
    serve,
    version_of,
    ws_load,
)
from callproof.harness import check_bytes, parse_sse

SCENARIOS = Path(__file__).resolve().parent / "data" / "peer.json"
SCENARIO = "perf_peer_short_calls"
LONG = "perf_peer_long_text"
LONG_BODY: dict[str, Any] = {"model": "callproof-bench", "input": "Write a long text.", "stream": True}
LONG_WARMUP = 2
LONG_RUNS = 9
AIMOCK = "@copilotkit/aimock"
AIMOCK_VERSION = "1.43.0"
AIMOCK_DIR = Path(tempfile.gettempdir()) / "callproof-bench-aimock"
NODE_MIN = (20, 15)
BODY: dict[str, Any] = {"model": "callproof-bench", "input": "Look up alpha, bravo and charlie.", "stream": True}
CONCURRENCY = 16
LOAD_SECONDS = 3.0
WARMUP_SECONDS = 1.0
ROUNDS = 4
GOAL = 1.0


def _fixture() -> dict[str, Any]:
    """The aimock fixtures equivalent to the callproof scenarios (same calls, ids, arguments and 4-char deltas; the
    same text in 1-character deltas)."""
    scenarios = {s["id"]: s for s in json.loads(SCENARIOS.read_text(encoding="utf-8"))["scenarios"]}
    calls = [{"name": o["name"], "id": o["call_id"], "arguments": o["arguments"]}
             for o in scenarios[SCENARIO]["output"]]
    text = scenarios[LONG]["output"][0]["text"]
    return {"fixtures": [
        {"match": {"userMessage": "Look up alpha"}, "response": {"toolCalls": calls}, "chunkSize": 4},
        {"match": {"userMessage": "Write a long text"}, "response": {"content": text}, "chunkSize": 1},
    ]}


def _node() -> tuple[str | None, str]:
    """(path of node, why not) for a Node that aimock supports."""
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed (aimock needs Node >= 20.15)"
    version = version_of([node, "--version"])
    match = re.match(r"v(\d+)\.(\d+)", version)
    if match is None or (int(match.group(1)), int(match.group(2))) < NODE_MIN:
        return None, f"node {version} is older than aimock's minimum 20.15"
    return node, version


def install() -> tuple[Path | None, str]:
    """(aimock's CLI script, version) installed with npm under AIMOCK_DIR, or (None, why not)."""
    cli = AIMOCK_DIR / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js"
    package = cli.parent.parent / "package.json"
    if package.exists() and json.loads(package.read_text(encoding="utf-8")).get("version") == AIMOCK_VERSION:
        return cli, AIMOCK_VERSION
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not installed"
    AIMOCK_DIR.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run([npm, "install", "--prefix", str(AIMOCK_DIR), "--no-audit", "--no-fund",
                               "--loglevel=error", f"{AIMOCK}@{AIMOCK_VERSION}"],
                              capture_output=True, text=True, timeout=180, check=False)
    except subprocess.TimeoutExpired:
        return None, "npm install did not finish within 180 s"
    if done.returncode != 0 or not cli.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()
        return None, f"npm install {AIMOCK}@{AIMOCK_VERSION} failed: {tail[-1] if tail else done.returncode}"
    return cli, AIMOCK_VERSION


def _calls(body: bytes) -> list[tuple[str | None, str, list[str]]]:
    """(call_id, final arguments, argument deltas) of each function call in a Responses stream."""
    calls: dict[int, tuple[str | None, str, list[str]]] = {}
    for event in parse_sse(body)[0]:
        payload = json.loads(event.data)
        kind, index = payload.get("type"), payload.get("output_index")
        if kind == "response.output_item.added":
            calls[index] = (payload["item"].get("call_id"), "", [])
        elif kind == "response.function_call_arguments.delta":
            calls[index][2].append(payload["delta"])
        elif kind == "response.function_call_arguments.done":
            call_id, _, deltas = calls[index]
            calls[index] = (call_id, payload["arguments"], deltas)
    return [calls[i] for i in sorted(calls)]


def _sample(server: Server) -> dict[str, Any]:
    request = post(server.host, server.port, "/v1/responses", json.dumps(BODY).encode(),
                   {"x-callproof-scenario": SCENARIO})
    response = exchange(server.host, server.port, request)
    if response.status != 200:
        raise RuntimeError(f"{server.name} answered {response.status}: {response.body[:300]!r}")
    body = response.body
    checked = check_bytes(body)
    return {"status": response.status, "bytes": len(body), "events": len(parse_sse(body)[0]),
            "calls": _calls(body), "conformant": checked.conformant, "failed_rules": list(checked.failed_rules)}


async def _python_load(server: Server, seconds: float) -> tuple[int, int, float]:
    request = post(server.host, server.port, "/v1/responses", json.dumps(BODY).encode(),
                   {"x-callproof-scenario": SCENARIO}, close=False)
    return await keepalive_load(server.host, server.port, request, seconds=seconds, concurrency=CONCURRENCY,
                                request_timeout=30.0, slack=60.0)


def _text_deltas(body: bytes) -> tuple[str, int]:
    """(the text, the number of text deltas) of a Responses stream."""
    parts = [json.loads(e.data)["delta"] for e in parse_sse(body)[0] if '"response.output_text.delta"' in e.data]
    return "".join(parts), len(parts)


def long_stream(servers: list[Server], client: frozenset[int] | None) -> dict[str, Any]:
    """Deltas/s of the long text through curl, both servers checked to send the same text in the same deltas."""
    curl = shutil.which("curl")
    if curl is None:
        return {"available": False, "reason": "curl is not installed (apt-get install curl)"}
    sizes: dict[str, int] = {}
    deltas: dict[str, tuple[str, int]] = {}
    with on_cpus(client):
        for server in servers:
            request = post(server.host, server.port, "/v1/responses", json.dumps(LONG_BODY).encode(),
                           {"x-callproof-scenario": LONG})
            response = exchange(server.host, server.port, request)
            if response.status != 200:
                raise RuntimeError(f"{server.name} answered {response.status}: {response.body[:300]!r}")
            sizes[server.name], deltas[server.name] = len(response.body), _text_deltas(response.body)
    if len({d for d in deltas.values()}) != 1:
        raise RuntimeError(f"the long streams differ: {({k: (len(t), c) for k, (t, c) in deltas.items()})}")
    count = deltas[servers[0].name][1]
    runs: dict[str, list[float]] = {s.name: [] for s in servers}
    for i in range(LONG_WARMUP + LONG_RUNS):
        for server in servers if i % 2 == 0 else servers[::-1]:
            out = subprocess.run(
                [curl, "-sN", "-o", "/dev/null", "--max-time", "60",
                 "-w", "%{http_code} %{size_download} %{time_pretransfer} %{time_total}",
                 "-H", "content-type: application/json", "-H", f"x-callproof-scenario: {LONG}",
                 "--data-binary", json.dumps(LONG_BODY), f"{server.root}/v1/responses"],
                capture_output=True, text=True, timeout=70, preexec_fn=pinned(client), check=False,
            )
            fields = out.stdout.split()
            if out.returncode != 0 or len(fields) != 4 or fields[0] != "200" or int(fields[1]) != sizes[server.name]:
                raise RuntimeError(f"curl against {server.name}: exit {out.returncode}, -w {out.stdout!r}, "
                                   f"expected 200 and {sizes[server.name]} bytes")
            if i >= LONG_WARMUP:
                runs[server.name].append(float(fields[3]) - float(fields[2]))
    result: dict[str, Any] = {"available": True, "deltas": count, "tool": version_of([curl, "--version"]),
                              "metric": "deltas / (time_total - time_pretransfer), median"}
    for name, times in runs.items():
        median = statistics.median(times)
        result[name] = {"deltas_per_s": round(count / median), "bytes": sizes[name], "seconds_median": round(median, 4),
                        "seconds_runs": [round(t, 4) for t in times]}
    result["ratio"] = round(paired_ratio(runs["aimock"], runs["callproof"]), 3)  # time ratio = rate ratio
    result["meets_goal"] = result["ratio"] >= GOAL
    return result


WS_CONNECTIONS = 16


def _ws_message() -> str:
    return json.dumps({"type": "response.create", "model": BODY["model"], "input": BODY["input"]})


def websocket(servers: list[Server], client: frozenset[int] | None) -> dict[str, Any]:
    """Turns/s of the Responses WebSocket mode (`response.create` on /v1/responses) of both servers on the short
    stream, servers alternating round by round, each turn read to its `response.completed` (`_common.ws_load`)."""
    headers = {"x-callproof-scenario": SCENARIO}
    counts: dict[str, int] = {}
    with on_cpus(client):
        for server in servers:  # one turn each first: both answer over a socket, and how many messages a turn is
            turns, messages, failed, _ = asyncio.run(ws_load(server.host, server.port, "/v1/responses", headers,
                                                             _ws_message(), seconds=0.0, connections=1,
                                                             max_turns=1))
            if failed or turns != 1:
                return {"available": False, "reason": f"{server.name} did not answer a response.create over its "
                                                      "WebSocket mode with a response.completed"}
            counts[server.name] = messages

    def load(server: Server, seconds: float) -> tuple[int, int, float]:
        with on_cpus(client):
            turns, _, failed, elapsed = asyncio.run(ws_load(server.host, server.port, "/v1/responses", headers,
                                                            _ws_message(), seconds=seconds,
                                                            connections=WS_CONNECTIONS))
        return turns, failed, elapsed

    rates = load_rounds(servers, load, warmup=WARMUP_SECONDS, seconds=LOAD_SECONDS, rounds=ROUNDS)
    result: dict[str, Any] = {"available": True, "connections": WS_CONNECTIONS, "messages": counts,
                              "tool": "asyncio raw-socket WebSocket client (frame headers parsed, not payloads)"}
    for name, values in rates.items():
        result[name] = {"turns_per_s": round(statistics.median(values), 1),
                        "rounds_turns_per_s": [round(v, 1) for v in values]}
    result["ratio"] = round(paired_ratio(rates["callproof"], rates["aimock"]), 3)
    result["meets_goal"] = result["ratio"] >= GOAL
    return result


def _unavailable(reason: str) -> dict[str, Any]:
    return {"available": False, "reason": reason, "meets_goal": None, "rows": [row(
        "Peer: short tool-call stream (3 calls, 30 events), requests/s at c=16, callproof mock vs aimock",
        "not measured (no peer to compare with)", f"not available: {reason}", "-", ">= 1.0x aimock (ahead)",
        None)]}


def run() -> dict[str, Any]:
    node, node_version = _node()
    if node is None:
        return _unavailable(node_version)
    cli, aimock_version = install()
    if cli is None:
        return _unavailable(aimock_version)
    server_cpus, client_cpus = cpu_split()
    wrk = shutil.which("wrk")
    results: dict[str, Any] = {"available": True, "node": node_version, "aimock_package": f"{AIMOCK} {aimock_version}",
                               "aimock_dir": str(AIMOCK_DIR), "concurrency": CONCURRENCY,
                               "seconds_per_round": LOAD_SECONDS, "rounds": ROUNDS,
                               "cpus": {"servers": sorted(server_cpus) if server_cpus else None,
                                        "load": sorted(client_cpus) if client_cpus else None}}
    with tempfile.TemporaryDirectory(prefix="callproof-bench-peer-") as tmp:
        fixture = Path(tmp) / "aimock.json"
        fixture.write_text(json.dumps(_fixture(), indent=2), encoding="utf-8")
        script = Path(tmp) / "post.lua"
        script.write_text(WRK_SCRIPT.format(body=json.dumps(json.dumps(BODY)),
                                            headers=f'wrk.headers["x-callproof-scenario"] = "{SCENARIO}"'),
                          encoding="utf-8")
        port = free_port()
        mock_cmd = [sys.executable, "-m", "callproof.harness.cli", "mock", "--port", "0", "--scenarios",
                    str(SCENARIOS)]
        aimock_cmd = [node, str(cli), "-p", str(port), "-h", "127.0.0.1", "-f", str(fixture), "--log-level", "warn"]
        with serve("callproof", mock_cmd, cpus=server_cpus) as mock, \
                serve("aimock", aimock_cmd, port=port, cpus=server_cpus) as aimock:
            servers = [mock, aimock]
            with on_cpus(client_cpus):
                samples = {s.name: _sample(s) for s in servers}
            ours, theirs = samples["callproof"]["calls"], samples["aimock"]["calls"]
            if ours != theirs:
                raise RuntimeError(f"the streams differ in their calls: callproof {ours} vs aimock {theirs}")
            results["streams"] = {name: {k: v for k, v in s.items() if k != "calls"} for name, s in samples.items()}
            results["same_calls"] = [{"call_id": c, "arguments": a, "deltas": len(d)} for c, a, d in ours]

            def load(server: Server, seconds: float) -> tuple[int, int, float]:
                if wrk is not None:
                    return run_wrk(wrk, f"{server.root}/v1/responses", script, seconds=seconds,
                                   connections=CONCURRENCY, cpus=client_cpus)
                with on_cpus(client_cpus):
                    return asyncio.run(_python_load(server, seconds))

            results["tool"] = (f"wrk -t1 -c{CONCURRENCY} ({version_of([wrk, '-v']).split(' Copyright')[0]})"
                               if wrk else f"asyncio raw-socket keep-alive client, c={CONCURRENCY} (wrk not installed)")
            rates = load_rounds(servers, load, warmup=WARMUP_SECONDS, seconds=LOAD_SECONDS, rounds=ROUNDS)
            results["long"] = long_stream(servers, client_cpus)
            results["websocket"] = websocket(servers, client_cpus)
    for name, values in rates.items():
        results[name] = {"requests_per_s": round(statistics.median(values), 1),
                         "rounds_requests_per_s": [round(v, 1) for v in values]}
    paired = paired_ratio(rates["callproof"], rates["aimock"])
    results["ratio"] = round(paired, 3)
    results["goal_ratio"] = GOAL
    long_ = results["long"]
    ws = results["websocket"]
    results["meets_goal"] = paired >= GOAL and long_.get("meets_goal", True) and ws.get("meets_goal", True)
    ours_s, theirs_s = results["streams"]["callproof"], results["streams"]["aimock"]
    rows: list[Row] = [row(
        f"Peer: short tool-call stream (3 calls, {ours_s['events']} events), requests/s at c={CONCURRENCY} "
        f"({results['tool'].split(' (')[0]})",
        f"{n(results['callproof']['requests_per_s'])} ({ours_s['bytes']:,} B/response)",
        f"aimock {aimock_version} (Node {node_version}): {n(results['aimock']['requests_per_s'])} "
        f"({theirs_s['bytes']:,} B/response, {theirs_s['events']} events)",
        f"{paired:.2f}x", f">= {GOAL:g}x aimock (ahead)", paired >= GOAL)]
    if long_["available"]:
        rows.append(row(
            f"Peer: long text stream ({long_['deltas']:,} one-character deltas), deltas/s (curl)",
            f"{n(long_['callproof']['deltas_per_s'])} ({long_['callproof']['bytes']:,} B)",
            f"aimock {aimock_version}: {n(long_['aimock']['deltas_per_s'])} ({long_['aimock']['bytes']:,} B)",
            f"{long_['ratio']:.2f}x", f">= {GOAL:g}x aimock (ahead)", long_["meets_goal"]))
    else:
        rows.append(row("Peer: long text stream, deltas/s (curl)", "not measured", f"not available: {long_['reason']}",
                        "-", f">= {GOAL:g}x aimock (ahead)", None))
    label = (f"Peer: Responses WebSocket mode, the short stream as response.create turns, turns/s on "
             f"{WS_CONNECTIONS} connections")
    if ws["available"]:
        rows.append(row(
            f"{label} ({ws['tool'].split(' (')[0]})",
            f"{n(ws['callproof']['turns_per_s'])} ({ws['messages']['callproof']} messages a turn)",
            f"aimock {aimock_version}: {n(ws['aimock']['turns_per_s'])} ({ws['messages']['aimock']} messages a turn)",
            f"{ws['ratio']:.2f}x", f">= {GOAL:g}x aimock (ahead)", ws["meets_goal"]))
    else:
        rows.append(row(label, "not measured", f"not available: {ws['reason']}", "-", f">= {GOAL:g}x aimock (ahead)",
                        None))
    results["rows"] = rows
    return results


def report(results: dict[str, Any]) -> str:
    if not results.get("available"):
        return f"peer: aimock not available: {results['reason']}"
    ours, theirs = results["streams"]["callproof"], results["streams"]["aimock"]
    return "\n".join([
        f"peer: {results['aimock_package']} on Node {results['node']} vs callproof mock, same 3 calls and deltas; "
        f"load: {results['tool']}",
        f"  callproof mock: {results['callproof']['requests_per_s']:,} req/s ({ours['events']} events, "
        f"{ours['bytes']} B, conformant {ours['conformant']})",
        f"  aimock:         {results['aimock']['requests_per_s']:,} req/s ({theirs['events']} events, "
        f"{theirs['bytes']} B, conformant {theirs['conformant']}: {', '.join(theirs['failed_rules']) or '-'})",
        f"  ratio callproof / aimock {results['ratio']} (goal >= {results['goal_ratio']}): "
        + ("meets" if results["ratio"] >= results["goal_ratio"] else "MISSES"),
        *_long_report(results["long"]),
        *_ws_report(results["websocket"]),
    ])


def _ws_report(ws: dict[str, Any]) -> list[str]:
    if not ws["available"]:
        return [f"  websocket mode: not measured: {ws['reason']}"]
    return [f"  websocket mode, response.create turns on {ws['connections']} connections ({ws['tool']}): callproof "
            f"{ws['callproof']['turns_per_s']:,}/s ({ws['messages']['callproof']} messages a turn), aimock "
            f"{ws['aimock']['turns_per_s']:,}/s ({ws['messages']['aimock']} messages a turn), ratio {ws['ratio']} "
            f"(goal >= {GOAL:g}): " + ("meets" if ws["meets_goal"] else "MISSES")]


def _long_report(long_: dict[str, Any]) -> list[str]:
    if not long_["available"]:
        return [f"  long stream: not measured: {long_['reason']}"]
    return [f"  long text, {long_['deltas']:,} deltas (curl): callproof {long_['callproof']['deltas_per_s']:,}/s, "
            f"aimock {long_['aimock']['deltas_per_s']:,}/s, ratio {long_['ratio']} (goal >= {GOAL:g}): "
            + ("meets" if long_["meets_goal"] else "MISSES")]


if __name__ == "__main__":
    outcome = run()
    print(report(outcome))
