"""README's first command, `make demo`, passes on this checkout: it is run here as a new user runs it (`make demo` in
the repository, with the venv `make test` already built, so nothing is installed again), and every report its recipe
announces is written by this run. The output paths are read from the recipe itself (`make -n demo`), so a run added
to the demo is checked without editing this test. `make test` runs it: CI fails when the first README command would.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The flags of `callproof run` and `callproof report` that name a file the demo writes.
OUTPUT_FLAGS = ("--report", "--md", "--html", "--junit", "--badge", "-o")


def _demo_outputs() -> tuple[list[Path], list[Path]]:
    """(every file the demo's commands write, the JSON reports of its `callproof run`s), from `make -n demo`."""
    dry = subprocess.run(["make", "-n", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    outputs: list[Path] = []
    reports: list[Path] = []
    for line in dry.stdout.replace("\\\n", " ").splitlines():
        words = shlex.split(line) if "callproof" in line else []
        if not words or not words[0].endswith("/callproof"):
            continue
        for flag, value in itertools.pairwise(words):
            if flag in OUTPUT_FLAGS:
                outputs.append(ROOT / value)
                if flag == "--report":
                    reports.append(ROOT / value)
    return outputs, reports


def test_the_recipe_names_its_outputs() -> None:
    outputs, reports = _demo_outputs()
    assert len(reports) >= 4, reports  # the gateway's three fronts and one client library, at least
    assert {p.suffix for p in outputs} >= {".json", ".md", ".html", ".xml", ".svg"}
    assert ROOT / "out" / "demo" / "matrix.html" in outputs


@pytest.mark.long
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_exits_0_and_writes_every_report_it_announces() -> None:
    outputs, reports = _demo_outputs()
    started = time.time()
    # Run as a user would from a shell: not as a sub-make of `make test` (MAKELEVEL/MAKEFLAGS would make it print
    # "make[1]: Leaving directory" after the recipe's last line), without this run's pytest and callproof settings.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "CALLPROOF_")) and key not in {"MAKELEVEL", "MAKEFLAGS", "MFLAGS"}}
    done = subprocess.run(["make", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
                          env=env, stdin=subprocess.DEVNULL)
    tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
    assert done.returncode == 0, f"make demo exited {done.returncode}:\n{tail}"
    assert done.stdout.rstrip().splitlines()[-1].startswith("make demo: reports in out/demo/"), tail
    stale = [str(p.relative_to(ROOT)) for p in outputs if not p.is_file() or p.stat().st_mtime < started - 1]
    assert stale == [], f"announced but not written by this run: {stale}"
    for path in reports:
        summary = json.loads(path.read_text(encoding="utf-8"))["summary"]
        assert summary["passed"] > 0 and summary["failed"] == summary["error"] == 0, (path.name, summary)
        assert not path.with_suffix(".jsonl").exists(), f"{path.name}: the partial JSON Lines report was left behind"
    assert "Traceback" not in done.stdout + done.stderr
