"""Peak memory of `callproof check` on a 200 MB Responses stream.

The stream is one response (bench/_streams.py): ~1,300 function calls of ~8 kB arguments, opened four at a time
with their 16-character argument deltas interleaved, ~680,000 events, written to a temporary file as it is
generated. `callproof check FILE` runs as a subprocess; its peak RSS is the `ru_maxrss` that `wait4` reports for
that child alone, forked from a small launcher (a child's ru_maxrss starts from the RSS of the process that forked
it). The stream must pass (exit 0). Beside it, in the same run: the same command on a one-call capture (the
interpreter, the imports and the compiled schemas: the floor no stream can go under).

Target (issue #7): peak RSS < 200 MB (10^6 bytes). When it is missed, the same check runs again in a subprocess
under tracemalloc and the largest Python allocation sites at the final event are reported.

Bounded: the check is killed after 300 s; the temporary file is removed on exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench._common import ROOT, n, ratio, row
from bench._streams import Shape, stream_bytes, write_stream

STREAM_BYTES = 200 * 1024 * 1024
GOAL_MB = 200.0
TIMEOUT_S = 300.0
SMALL = ROOT / "examples" / "captures" / "responses" / "openai" / "ok" / "one-call.sse"
CALLPROOF = str(Path(sys.executable).parent / "callproof")


#: Runs argv[1:] as a child and prints its wait4 rusage as the last line. A child's ru_maxrss starts from the RSS of
#: the process that forked it (Linux folds the pre-exec address space into it), so the measured command is forked
#: from this small launcher, never from the benchmark process, which has grown by the time it measures.
_LAUNCHER = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.stdout.flush()
print(json.dumps({"exit": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss,
                  "cpu_s": usage.ru_utime + usage.ru_stime}))
"""


def measure(path: Path, timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """Run `callproof check path`; its exit code, peak RSS (bytes), CPU and wall seconds."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCHER, CALLPROOF, "check", str(path)],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False)
    lines = done.stdout.decode(errors="replace").splitlines()
    if done.returncode != 0 or not lines or not lines[-1].startswith("{"):
        raise RuntimeError(f"the launcher of `callproof check` failed ({done.returncode}): "
                           f"{done.stderr.decode(errors='replace')[-600:]}")
    usage = json.loads(lines[-1])
    return {"exit": usage["exit"], "peak_rss_bytes": usage["maxrss_kib"] * 1024, "cpu_s": round(usage["cpu_s"], 2),
            "wall_s": round(time.monotonic() - start, 2), "output_tail": "\n".join(lines[:-1])[-600:]}


def profile(path: Path) -> list[str]:
    """The largest Python allocation sites live when the final (largest) event is validated, from a subprocess."""
    out = subprocess.run([sys.executable, "-m", "bench.bench_memory", "--profile", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=TIMEOUT_S * 3, check=False)
    return out.stdout.splitlines()[-12:] or [out.stderr[-600:]]


def _profile_main(path: str) -> None:
    tracemalloc.start(8)
    import callproof.harness.check._check as check_module
    from callproof.harness.check._capture import check_capture

    taken: list[tracemalloc.Snapshot] = []
    original = check_module.StreamChecker._event

    def event(self: Any, sse: Any) -> None:
        original(self, sse)
        if len(sse.data) > 1_000_000 and not taken:
            taken.append(tracemalloc.take_snapshot())

    check_module.StreamChecker._event = event  # type: ignore[method-assign,assignment]
    with open(path, "rb") as stream:
        check_capture(stream, path)
    _, peak = tracemalloc.get_traced_memory()
    print(f"tracemalloc: Python-traced peak {peak / 1e6:.1f} MB (native memory, e.g. jsonschema-rs, not traced)")
    for stat in (taken[0].statistics("lineno")[:10] if taken else []):
        frame = stat.traceback[0]
        print(f"  {stat.size / 1e6:7.1f} MB in {stat.count:>8,} blocks  {Path(frame.filename).name}:{frame.lineno}")


def run() -> dict[str, Any]:
    small_measured = measure(SMALL)
    sample, written = stream_bytes(Shape(calls=8))
    per_call = len(sample) / written.calls
    shape = Shape(calls=max(1, -(-STREAM_BYTES // int(per_call))))
    with tempfile.TemporaryDirectory(prefix="callproof-bench-memory-") as tmp:
        path = Path(tmp) / "long.sse"
        start = time.monotonic()
        with open(path, "wb") as out:
            big = write_stream(out, shape)
        generated_s = time.monotonic() - start
        big_measured = measure(path)
        if big_measured["exit"] != 0:
            raise RuntimeError(f"`callproof check` of the generated stream exited {big_measured['exit']}: "
                               f"{big_measured['output_tail']}")
        peak_mb = big_measured["peak_rss_bytes"] / 1e6
        met = peak_mb < GOAL_MB
        results: dict[str, Any] = {
            "stream": {"bytes": big.bytes, "events": big.events, "calls": big.calls,
                       "argument_bytes": big.argument_bytes, "parallel": shape.parallel, "delta_chars": shape.delta,
                       "generated_s": round(generated_s, 2)},
            "check": big_measured, "floor": small_measured, "peak_rss_mb": round(peak_mb, 1),
            "floor_rss_mb": round(small_measured["peak_rss_bytes"] / 1e6, 1),
            "events_per_cpu_s": round(big.events / big_measured["cpu_s"]) if big_measured["cpu_s"] else None,
            "goal_mb": GOAL_MB, "meets_goal": met,
        }
        if not met:
            results["profile"] = profile(path)
    floor_mb = results["floor_rss_mb"]
    results["rows"] = [row(
        f"Memory: peak RSS of `callproof check` on one {big.bytes / 1e6:.0f} MB stream ({n(big.events)} events, "
        f"{n(big.calls)} calls)", f"{peak_mb:.0f} MB",
        f"{floor_mb:.0f} MB (the same command on a one-call capture: start-up floor)", ratio(peak_mb, floor_mb),
        f"< {GOAL_MB:g} MB", met)]
    return results


def report(results: dict[str, Any]) -> str:
    stream, check = results["stream"], results["check"]
    lines = [
        f"memory: `callproof check` on one stream of {stream['bytes'] / 1e6:.1f} MB, {stream['events']:,} events, "
        f"{stream['calls']:,} calls ({stream['argument_bytes'] / 1e6:.1f} MB of arguments), generated in "
        f"{stream['generated_s']} s",
        f"  peak RSS {results['peak_rss_mb']} MB (start-up floor {results['floor_rss_mb']} MB); check took "
        f"{check['cpu_s']} s CPU, {check['wall_s']} s wall ({results['events_per_cpu_s']:,} events/CPU s)",
        f"  goal < {results['goal_mb']:g} MB: {'meets' if results['meets_goal'] else 'MISSES'}",
    ]
    lines += [f"  {line}" for line in results.get("profile", [])]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--profile":
        _profile_main(sys.argv[2])
    else:
        outcome = run()
        print(report(outcome))
