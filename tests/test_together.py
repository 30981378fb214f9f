"""tests/together.py, which `make check` runs its two halves of tests with: the commands at the same time, the first
one's output live and the others' held and printed in order once they end, the first failure the exit status."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.together import main


def _python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


def test_every_command_runs_at_once_and_the_held_output_follows_in_order(
        capfd: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # the first waits for a file only the second writes: they must run at the same time
    first = _python("import os, time\nfor _ in range(600):\n    if os.path.exists('second-ran'): break\n"
                    "    time.sleep(0.05)\nprint('first done', os.path.exists('second-ran'))")
    second = _python("open('second-ran', 'w').close(); print('second done')")
    third = _python("import sys; print('third done'); sys.exit(4)")
    code = main([first, second, third])
    out = capfd.readouterr().out
    assert code == 4, out
    lines = out.splitlines()
    assert lines[:3] == ["first done True", "second done", "third done"], out
    assert lines[-1].startswith("tests.together: 3 commands, exit 0 0 4 in "), out


def test_the_first_failure_in_order_is_the_exit_status(capfd: pytest.CaptureFixture[str]) -> None:
    assert main([_python("import sys; sys.exit(3)"), _python("import sys; sys.exit(5)")]) == 3
    assert main([_python("pass"), _python("import sys; sys.exit(5)")]) == 5
    assert main([_python("pass"), _python("pass")]) == 0
    capfd.readouterr()


def test_usage_and_a_command_that_cannot_start_exit_2(capfd: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["--help"]) == 2
    assert main([_python("pass"), "/no/such/program"]) == 2
    err = capfd.readouterr().err
    assert "usage: python -m tests.together COMMAND [COMMAND ...]" in err
    assert "tests.together: cannot run '/no/such/program': No such file or directory" in err
