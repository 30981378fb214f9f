"""Checker throughput: events/s on one core for full checking, beside plain `json.loads` of the same events.

Corpus: the correct Responses captures under examples/captures/responses/openai/ok/, repeated until the
corpus holds at least 100,000 events; each repetition is checked as its own stream, as a gateway's
responses would be. Target (issue #2): full checking >= 50,000 events/s/core.

Also compares the two validator designs on the decoded events (why callproof uses jsonschema-rs on the hot
path): Python jsonschema with a per-type compiled validator vs jsonschema-rs with the same dispatch.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

from callproof.harness import StreamChecker, parse_sse
from callproof.harness._schemas import SCHEMA_BASE, schema_store

ROOT = Path(__file__).resolve().parents[1]
CAPTURES = ROOT / "examples" / "captures" / "responses" / "openai" / "ok"
TARGET_EVENTS = 100_000
REPEATS = 3
GOAL = 50_000


def corpus() -> tuple[list[bytes], int]:
    streams = [p.read_bytes() for p in sorted(CAPTURES.glob("*.sse"))]
    if not streams:
        raise SystemExit(f"no captures in {CAPTURES}: run `python examples/captures/generate.py`")
    per_round = sum(len(parse_sse(s)[0]) for s in streams)
    rounds = -(-TARGET_EVENTS // per_round)
    return streams * rounds, per_round * rounds


def best_of(fn: Callable[[], None]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def run() -> dict[str, Any]:
    streams, events = corpus()
    size = sum(len(s) for s in streams)

    def floor() -> None:
        dispatch: dict[str, int] = {}
        for data in streams:
            for event in parse_sse(data)[0]:
                payload = json.loads(event.data)
                dispatch[payload["type"]] = dispatch.get(payload["type"], 0) + 1

    def full() -> None:
        for data in streams:
            checker = StreamChecker("responses", "openai")
            checker.feed(data)
            report = checker.close()
            if not report.conformant:
                raise SystemExit(f"corpus stream failed {report.failed_rules}: the benchmark needs correct streams")

    decoded = [json.loads(e.data) for data in streams[: max(1, len(streams) // 10)] for e in parse_sse(data)[0]]
    front = schema_store().front("responses", "openai")

    def rs_validate() -> None:
        for payload in decoded:
            front.events[payload["type"]].is_valid(payload)

    store = schema_store()
    registry: Registry[Any] = Registry().with_resources(
        (uri, Resource.from_contents(doc)) for uri, doc in store.documents.items()
    )
    manifest = store.manifests["responses.openai"]
    py_validators = {
        name: jsonschema.Draft202012Validator({"$ref": SCHEMA_BASE + ref}, registry=registry)
        for name, ref in manifest["events"].items()
    }

    def py_validate() -> None:
        for payload in decoded:
            py_validators[payload["type"]].is_valid(payload)

    results: dict[str, Any] = {"events": events, "bytes": size, "streams": len(streams)}
    for name, fn, count in (
        ("floor: SSE + json.loads + dispatch", floor, events),
        ("full check (callproof)", full, events),
        ("schema only: jsonschema-rs, per-type", rs_validate, len(decoded)),
        ("schema only: jsonschema (Python), per-type", py_validate, len(decoded)),
    ):
        seconds = best_of(fn)
        results[name] = {"seconds": round(seconds, 4), "events_per_s": round(count / seconds)}
    full_rate = results["full check (callproof)"]["events_per_s"]
    results["full_vs_floor"] = round(full_rate / results["floor: SSE + json.loads + dispatch"]["events_per_s"], 3)
    results["goal_events_per_s"] = GOAL
    results["meets_goal"] = full_rate >= GOAL
    return results


def report(results: dict[str, Any]) -> str:
    lines = [
        f"checker: {results['events']} events in {results['streams']} streams, {results['bytes'] / 1e6:.1f} MB",
        f"{'measurement':<46} {'events/s/core':>14}",
    ]
    for key, value in results.items():
        if isinstance(value, dict):
            lines.append(f"{key:<46} {value['events_per_s']:>14,}")
    verdict = "meets" if results["meets_goal"] else "MISSES"
    ratio = results["full_vs_floor"]
    lines.append(f"full check = {ratio:.2f} x the floor; {verdict} the goal of {GOAL:,} events/s/core")
    return "\n".join(lines)
