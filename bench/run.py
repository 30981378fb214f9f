"""`make bench` (`python -m bench.run`): run every benchmark, print a table, write bench/out/<name>.json.

Exits 1 when a goal is missed.

Benchmarks measure CPU time of this process (one core) and are bounded in size; they are never part of
`make test`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench import bench_checker

OUT = Path(__file__).resolve().parent / "out"


def main() -> int:
    OUT.mkdir(exist_ok=True)
    results = bench_checker.run()
    (OUT / "checker.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(bench_checker.report(results))
    print(f"written: {OUT / 'checker.json'}")
    return 0 if results["meets_goal"] else 1


if __name__ == "__main__":
    sys.exit(main())
