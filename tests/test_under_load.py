"""tests/under_load.py, which `make test` and `make test-under-load` run: the timing tests beside a competitor
command (`--beside`, the rest of the suite), their output held until they end, the first failure the exit status,
and the timing run killed past its `--timeout`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.under_load import main

TIMING_TEST = '''import time
import pytest

@pytest.mark.timing
def test_sleeps():
    time.sleep({seconds})
'''


def _timing_file(tmp_path: Path, seconds: float) -> str:
    path = tmp_path / "test_paced.py"
    path.write_text(TIMING_TEST.format(seconds=seconds), encoding="utf-8")
    return str(path)


def _python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def test_the_competitors_failure_is_the_runs_and_the_timing_output_follows_its_own(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    beside = _python("import sys, time; print('competitor speaking'); time.sleep(0.5); sys.exit(3)")
    code = main(["--hogs", "1", "--timeout", "120", "--beside", beside, "-q", "-p", "no:cacheprovider",
                 "-W", "ignore::pytest.PytestUnknownMarkWarning", _timing_file(tmp_path, 0.1)])
    out = capfd.readouterr().out
    assert code == 3, out
    assert out.index("competitor speaking") < out.index("1 passed") < out.index("then 1 hogs: exit 0")


def test_timing_tests_past_the_timeout_are_killed_and_fail_the_run(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code = main(["--hogs", "1", "--timeout", "3", "--beside", _python("pass"), "-q", "-p", "no:cacheprovider",
                 "-W", "ignore::pytest.PytestUnknownMarkWarning", _timing_file(tmp_path, 60)])
    captured = capfd.readouterr()
    assert code == 1
    assert "took over 3 s under load; killed" in captured.err
