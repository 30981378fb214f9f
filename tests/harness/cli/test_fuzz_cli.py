"""`callproof fuzz` keeps what it found when its scenario file cannot be written at the end (the --out folder,
checked before any example, went away during the run): the finding is printed as always, and the scenario file
itself follows on standard error, to be saved by hand. tests/harness/cli/test_outputs.py checks --out up front."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests import fakes

CALLPROOF = Path(sys.executable).parent / "callproof"


def test_a_finding_whose_file_cannot_be_written_is_printed_not_lost(tmp_path: Path) -> None:
    (tmp_path / "found").mkdir()
    gateway = fakes.launch("gateways", "first_name_fragment")
    # the gateway, once launched (after the up-front check), turns --out into a file
    launch = f"sh -c {shlex.quote(f'rm -rf found && touch found && exec {gateway}')}"
    env = fakes.env({k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    # the seeded search finds it at its 34th example, ~17 s on an idle machine: --time leaves a loaded one room
    # (27 examples in 50 s once), the search stopping at the finding either way
    done = subprocess.run([str(CALLPROOF), "fuzz", "--launch", launch, "--seed", "2", "--time", "240", "--out",
                           "found"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  rule:     EXP-001" in done.stdout and "  case:     fuzz_" in done.stdout
    assert "  replay:   callproof run " in done.stdout and "(not written: it follows on standard error)" in done.stdout
    first, _, text = done.stderr.partition("\n")
    path = next(line.split()[1] for line in done.stdout.splitlines() if line.startswith("  scenario: "))
    assert first == (f"callproof fuzz: cannot write {path} (File exists); save the scenario below as {path} to "
                     "replay it (or give another --out)")
    scenario = json.loads(text[: text.rindex("}") + 1])
    assert scenario["feature"] == Path(path).stem and (tmp_path / "found").is_file()
