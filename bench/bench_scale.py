"""Scale: 10,000 cases through one mock, and how the checker's cost grows with the length of a stream.

1. Cases: 10,000 streamed requests, at most 64 in flight (64 keep-alive connections of an asyncio raw-socket
   HTTP/1.1 client), through ONE `callproof mock --scenarios bench/data/scale.json` process. Every request names its
   scenario (one of four `perf_scale_*`, in turn) and a distinct case tag `[callproof:case=<uuid4>]` in its input
   text. Then the whole journal is read once (GET /_callproof/journal) and, for a sample of 100 tags, the per-case
   journal (GET /_callproof/journal?case=<tag>). Target: no errors; every case tag has exactly one request in the
   journal, with the scenario it asked for, the request id the response carried, and writes whose bytes are the
   bytes that client received (no mixed journals); every per-case journal holds only that request's records.
   Beside it, the throughput of the run (requests/s at 64 in flight; context, not a target: bench_mock measures
   the mock's throughput against a bare Starlette ceiling).
2. Checker growth: one stream each of ~1k, ~10k and ~100k events (bench/_streams.py: interleaved parallel calls),
   checked with `StreamChecker`; CPU time per event, best of 3. Target: linear, i.e. time per event at 100k
   <= 1.5x time per event at 1k.

Bounded: the load has a deadline of 300 s and every socket read a timeout; the server is killed on exit.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench._common import Row, exchange, n, ratio, row, serve
from bench._streams import Shape, events_per_call, stream_bytes
from callproof.harness import StreamChecker
from callproof.harness.scenario import markers

SCENARIOS = Path(__file__).resolve().parent / "data" / "scale.json"
IDS = ("perf_scale_one_call", "perf_scale_parallel", "perf_scale_interleaved", "perf_scale_text_and_call")
CASES = 10_000
CONCURRENCY = 64
DEADLINE_S = 300.0
IO_TIMEOUT = 30.0
SAMPLE = 100
LENGTHS = (1_000, 10_000, 100_000)
GROWTH_GOAL = 1.5
REPEATS = 3


# -- 1. many cases through one mock ------------------------------------------------------------------------------


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                break
            parts.append(data[:-2])
        body = b"".join(parts)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, body


async def _load(host: str, port: int, cases: list[tuple[str, str]]) -> dict[str, Any]:
    """Send every (tag, scenario) case, CONCURRENCY at a time; what came back for each tag."""
    queue = iter(cases)
    seen: dict[str, dict[str, Any]] = {}
    errors: list[str] = []

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            for tag, scenario in queue:
                text = f"{markers(scenario, tag)} Look it up."
                body = json.dumps({"model": "callproof-bench", "stream": True, "input": text}).encode()
                writer.write(f"POST /v1/responses HTTP/1.1\r\nHost: {host}:{port}\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
                try:
                    status, headers, data = await asyncio.wait_for(_read_response(reader), IO_TIMEOUT)
                except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                    errors.append(f"{tag}: {type(exc).__name__}: {exc}")
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, port)
                    continue
                problem = ""
                if status != 200:
                    problem = f"status {status}"
                elif headers.get("x-callproof-scenario") != scenario:
                    problem = f"played {headers.get('x-callproof-scenario')!r}, asked for {scenario!r}"
                elif f"call_{scenario}_".encode() not in data or b'"type":"response.completed"' not in data:
                    problem = "the body is not the scenario's complete stream"
                if problem:
                    errors.append(f"{tag}: {problem}")
                seen[tag] = {"scenario": scenario, "request": headers.get("x-callproof-request"),
                             "sha1": hashlib.sha1(data).hexdigest(), "bytes": len(data)}
        finally:
            writer.close()

    start = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(CONCURRENCY))), DEADLINE_S)
    return {"seen": seen, "errors": errors, "seconds": time.monotonic() - start}


def _journal(host: str, port: int, case: str | None = None) -> list[dict[str, Any]]:
    path = "/_callproof/journal" + (f"?case={case}" if case else "")
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
    response = exchange(host, port, request, timeout=120.0)
    if response.status != 200:
        raise RuntimeError(f"GET {path}: status {response.status}")
    return [json.loads(line) for line in response.body.splitlines() if line]


def cases() -> dict[str, Any]:
    rng = random.Random(7)
    planned = [(str(uuid.UUID(int=rng.getrandbits(128), version=4)), IDS[i % len(IDS)]) for i in range(CASES)]
    cmd = [sys.executable, "-m", "callproof.harness.cli", "mock", "--port", "0", "--strict", "--scenarios",
           str(SCENARIOS)]
    with serve("callproof mock", cmd) as mock:
        loaded = asyncio.run(_load(mock.host, mock.port, planned))
        start = time.monotonic()
        records = _journal(mock.host, mock.port)
        journal_s = time.monotonic() - start
        sample = random.Random(11).sample(planned, SAMPLE)
        per_case = {tag: _journal(mock.host, mock.port, tag) for tag, _ in sample}
    seen: dict[str, dict[str, Any]] = loaded["seen"]
    errors: list[str] = list(loaded["errors"])
    requests: dict[str, list[dict[str, Any]]] = {}
    writes: dict[int, list[str]] = {}
    for record in records:
        if record["kind"] == "request":
            requests.setdefault(record.get("case") or "<none>", []).append(record)
        elif record["kind"] == "write":
            writes.setdefault(record["request"], []).append(record.get("text", ""))
    mixed = 0
    for tag, scenario in planned:
        got = requests.get(tag, [])
        if len(got) != 1:
            errors.append(f"{tag}: {len(got)} requests in the journal")
            continue
        (record,) = got
        client = seen.get(tag)
        written = "".join(writes.get(record["id"], [])).encode()
        if record["scenario"] != scenario or client is None or str(record["id"]) != client["request"] \
                or hashlib.sha1(written).hexdigest() != client["sha1"]:
            mixed += 1
    untagged = len(requests.get("<none>", []))
    sample_bad = 0
    for tag, _ in sample:
        lines = per_case[tag]
        ids = {line.get("id", line.get("request")) for line in lines}
        if sum(line["kind"] == "request" for line in lines) != 1 or len(ids) != 1 \
                or str(ids.pop()) != seen.get(tag, {}).get("request"):
            sample_bad += 1
    ok = not errors and mixed == 0 and untagged == 0 and sample_bad == 0 and len(seen) == CASES
    return {
        "cases": CASES, "concurrency": CONCURRENCY, "scenarios": list(IDS), "mock": "one `callproof mock` process",
        "client": f"asyncio raw-socket HTTP/1.1, {CONCURRENCY} keep-alive connections",
        "seconds": round(loaded["seconds"], 2), "requests_per_s": round(CASES / loaded["seconds"], 1),
        "responses": len(seen), "errors": len(errors), "error_samples": errors[:5],
        "journal_records": len(records), "journal_read_s": round(journal_s, 2),
        "journal_requests_with_case": sum(len(v) for k, v in requests.items() if k != "<none>"),
        "journal_requests_untagged": untagged, "mixed_or_wrong": mixed,
        "per_case_journal_sample": SAMPLE, "per_case_journal_bad": sample_bad, "meets_goal": ok,
    }


# -- 2. checker cost vs stream length ----------------------------------------------------------------------------


def growth() -> dict[str, Any]:
    per_call = events_per_call(Shape(calls=1, arguments=2048))
    points = []
    for target in LENGTHS:
        shape = Shape(calls=max(1, round((target - 3) / per_call)), arguments=2048)
        data, written = stream_bytes(shape, seed=f"growth-{target}")
        loops = max(1, LENGTHS[-1] // target)
        times = []
        for _ in range(REPEATS):
            start = time.process_time()
            for _ in range(loops):
                checker = StreamChecker("responses", "openai")
                for offset in range(0, len(data), 65536):
                    checker.feed(data[offset : offset + 65536])
                report = checker.close()
            times.append(time.process_time() - start)
            if not report.conformant:
                raise RuntimeError(f"growth stream of {written.events} events failed {report.failed_rules}")
        best = min(times) / loops
        points.append({"events": written.events, "bytes": written.bytes, "calls": written.calls, "loops": loops,
                       "seconds": round(best, 5), "us_per_event": round(best / written.events * 1e6, 3)})
    growth_ratio = points[-1]["us_per_event"] / points[0]["us_per_event"]
    return {"points": points, "ratio_last_first": round(growth_ratio, 3), "goal_ratio": GROWTH_GOAL,
            "meets_goal": growth_ratio <= GROWTH_GOAL}


def run() -> dict[str, Any]:
    results: dict[str, Any] = {"cases": cases(), "growth": growth()}
    c, g = results["cases"], results["growth"]
    results["meets_goal"] = bool(c["meets_goal"] and g["meets_goal"])
    first, last = g["points"][0], g["points"][-1]
    middle = g["points"][1]
    rows: list[Row] = [
        row(f"Scale: {n(c['cases'])} cases, {c['concurrency']} in flight, through one `callproof mock`",
            f"{c['errors']} errors, {c['mixed_or_wrong']} mixed journals, {n(c['journal_requests_with_case'])} "
            f"journal requests for {n(c['cases'])} tags; {n(c['requests_per_s'])} req/s",
            f"expected: 0 errors, one request per tag ({c['per_case_journal_bad']} of {c['per_case_journal_sample']} "
            "per-case journals wrong)", "-", "0 errors, exactly 1 request per case tag", c["meets_goal"]),
        row(f"Scale: checker time per event at {n(first['events'])} / {n(middle['events'])} / {n(last['events'])} "
            "events in one stream", f"{last['us_per_event']:.1f} us at {n(last['events'])}",
            f"{first['us_per_event']:.1f} us at {n(first['events'])}; {middle['us_per_event']:.1f} us at "
            f"{n(middle['events'])}", ratio(last["us_per_event"], first["us_per_event"]),
            f"<= {GROWTH_GOAL:g}x (linear)", g["meets_goal"]),
    ]
    results["rows"] = rows
    return results


def report(results: dict[str, Any]) -> str:
    c, g = results["cases"], results["growth"]
    lines = [
        f"scale: {c['cases']:,} cases at concurrency {c['concurrency']} through {c['mock']} in {c['seconds']} s "
        f"({c['requests_per_s']:,} req/s): {c['errors']} errors, {c['mixed_or_wrong']} mixed or wrong journals, "
        f"{c['journal_requests_untagged']} untagged requests, {c['journal_records']:,} journal records read in "
        f"{c['journal_read_s']} s; per-case journals wrong: {c['per_case_journal_bad']} of "
        f"{c['per_case_journal_sample']}: {'meets' if c['meets_goal'] else 'MISSES'}",
    ]
    lines += [f"  error: {e}" for e in c["error_samples"]]
    lines.append("checker growth: " + "; ".join(f"{p['events']:,} events: {p['us_per_event']} us/event"
                                                for p in g["points"])
                 + f"; ratio {g['ratio_last_first']} (goal <= {g['goal_ratio']}): "
                 + ("meets" if g["meets_goal"] else "MISSES"))
    return "\n".join(lines)


if __name__ == "__main__":
    outcome = run()
    print(report(outcome))
