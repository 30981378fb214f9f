"""`make bench` (`python -m bench.run`): run every benchmark, print a table, write bench/out/<name>.json.

Exits 1 when a goal is missed.

Benchmarks measure CPU time of this process (one core) and are bounded in size; they are never part of
`make test`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench import bench_checker, bench_mock

OUT = Path(__file__).resolve().parent / "out"


def main() -> int:
    OUT.mkdir(exist_ok=True)
    met = True
    for name, module in (("checker", bench_checker), ("mock", bench_mock)):
        results = module.run()
        (OUT / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(module.report(results))
        print(f"written: {OUT / f'{name}.json'}\n")
        met = met and bool(results["meets_goal"])
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
