"""Suite wall time (issues #4 and #7): the whole gateway suite against the reference gateway (examples/gateway.py)
through `callproof run`, with -n 0 and -n 2, as a user runs it (a fresh process each time, so start-up counts).
Cases share one run per scenario, so the cost is also shown per scenario run. Goal: <= 20 s with -n 2.

Bounded: two runs, each killed after 300 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 20.0
LAUNCH = f"{sys.executable} {ROOT / 'examples' / 'gateway.py'} --upstream {{upstream}} --port {{port}}"


def _once(workers: str, out: Path) -> dict[str, Any]:
    report = out / f"report-n{workers}.json"
    start = time.monotonic()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "callproof"), "run", "--launch", LAUNCH, "-n", workers,
         "--report", str(report)],
        cwd=out, capture_output=True, text=True, timeout=300, check=False,
    )
    wall = time.monotonic() - start
    data = json.loads(report.read_text(encoding="utf-8"))
    if done.returncode != 0:
        tail = done.stdout[-2000:]
        raise SystemExit(f"the reference gateway did not pass the suite (exit {done.returncode}):\n{tail}")
    scenarios = {c["scenario"] for c in data["cases"]}
    return {"workers": workers, "wall_s": round(wall, 2), "cases": data["summary"]["cases"],
            "scenarios": len(scenarios), "ms_per_scenario": round(wall * 1000 / len(scenarios), 1)}


def run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="callproof-bench-suite-") as tmp:
        serial = _once("0", Path(tmp))
        parallel = _once("2", Path(tmp))
    return {"n0": serial, "n2": parallel, "goal_s": GOAL_S, "meets_goal": parallel["wall_s"] <= GOAL_S}


def report(results: dict[str, Any]) -> str:
    lines = [f"suite: the whole gateway suite against examples/gateway.py via `callproof run` "
             f"({results['n0']['cases']} cases, {results['n0']['scenarios']} scenario runs)",
             f"{'workers':<10} {'wall s':>8} {'ms per scenario run':>20}"]
    for key in ("n0", "n2"):
        row = results[key]
        lines.append(f"-n {row['workers']:<7} {row['wall_s']:>8} {row['ms_per_scenario']:>20}")
    verdict = "meets" if results["meets_goal"] else "MISSES"
    lines.append(f"-n 2 {verdict} the goal of {results['goal_s']:g} s")
    return "\n".join(lines)


if __name__ == "__main__":
    result = run()
    print(report(result))
    sys.exit(0 if result["meets_goal"] else 1)
