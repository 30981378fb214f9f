"""`-k` decided from the plan, before anything starts (`keyword_selects`): the same cases pytest selects, checked
against pytest's own collection of the bundled suite; an expression pytest would refuse is a ValueError saying
why; one naming a folder pytest adds to every case's names is left to pytest; and the nearest ids for a
did-you-mean."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from callproof.harness.run import Harness, RunConfig, closest_cases, keyword_selects

SUITE = Path(str(files("callproof.suite")))
LAUNCH = "never-started --port {port}"
IDS = [s.id for s in Harness(RunConfig(launch=LAUNCH)).cases()]


def _pytest_selects(expression: str, rootdir: Path) -> list[str]:
    """The case ids pytest itself collects with `-k expression` (nothing is started: --collect-only)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(rootdir), "-p", "no:cacheprovider",
         "--import-mode=importlib", "-p", "callproof", "--pyargs", "callproof.suite", "--collect-only", "-q",
         "--callproof-launch", LAUNCH, "-k", expression],
        cwd=rootdir, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: nothing selected
    return re.findall(r"test_conformance\[(.+?)\]$", done.stdout, re.MULTILINE)


# each a name of the case id in another case (and negated), grouping, the module's and the mark's names, nothing
@pytest.mark.parametrize("expression", [
    "ONE_CALL and not Identity", "(parallel or faults) and not chat", "conformance.py and usage and not one",
    "xdist and fault_http_500", "no_such_case",
])
def test_the_cases_are_the_ones_pytest_selects(expression: str, tmp_path: Path) -> None:
    mine = keyword_selects(expression, IDS, tmp_path, SUITE)
    assert mine == _pytest_selects(expression, tmp_path)


@pytest.mark.parametrize(("expression", "why"), [
    ("(one_call", "a parenthesis is not closed"),
    ("one_call and", "it ends where a name or a parenthesis is expected"),
    ("and one_call", "'and' where a name is expected"),
    ("one call", "'call' where and, or or the end is expected"),
    ("one_call $", "unexpected '$' at column 10"),
])
def test_an_expression_pytest_would_refuse_says_why(expression: str, why: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        keyword_selects(expression, IDS, tmp_path, SUITE)


def test_a_name_of_the_suites_folders_is_left_to_pytest(tmp_path: Path) -> None:
    """Installed under the rootdir (a checkout, a venv in the project), pytest adds the folders down to the suite to
    every case's names: an expression naming one is not decided here."""
    assert keyword_selects("suite and one_call", IDS, tmp_path, SUITE) is None
    assert keyword_selects("one_call", IDS, tmp_path, SUITE) is not None
    inside = tmp_path / "venv" / "site" / "callproof" / "suite"
    assert keyword_selects("site and one_call", IDS, tmp_path, inside) is None
    assert keyword_selects("site and one_call", IDS, tmp_path / "elsewhere", inside) == []


def test_the_nearest_ids_come_one_per_word_first() -> None:
    assert closest_cases("one_call and identiti", IDS) == ["one_call", "identity", "one_call::ids"]
    assert closest_cases("paralel_two_calls", IDS)[0] == "parallel_two_calls"
    assert closest_cases("zzzz", IDS) == []
