"""The files a run writes at the checkout's root (the JSON report, the JSON Lines report beside it, and every other
format's `report.<ext>`, the badge) are ignored by git, as the README's commands leave them; the sources are not."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from callproof.reports import FORMATS

ROOT = Path(__file__).resolve().parents[1]


def _ignored(name: str) -> bool:
    done = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", name], check=False)
    assert done.returncode in (0, 1), f"git check-ignore failed for {name}"
    return done.returncode == 0


pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                                reason="not a git checkout")


@pytest.mark.parametrize("name", sorted({"report.json", "report.jsonl", "badge.svg"}
                                        | {f"report{f.extension}" for f in FORMATS}))
def test_a_runs_report_files_are_ignored(name: str) -> None:
    assert _ignored(name)


@pytest.mark.parametrize("name", ["README.md", "reports/_formats.py", "schemas/report.schema.json",
                                  "reports/assets/report.js"])
def test_the_sources_are_not(name: str) -> None:
    assert not _ignored(name)
