"""`callproof run -k` decided before anything starts: an expression that matches none of the run's cases, or is
no expression at all, is one line and exit 2 with the nearest ids (the launch command here would fail if it were
tried); `--list-cases` prints the cases a command line runs, after -k and --shard, starting nothing. And a run's
terminal cites the documents of its findings as `callproof docs` commands, while its report keeps their paths."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from callproof.harness.cli import main
from tests import fakes

#: A launch command that cannot start: nothing in these tests may reach it.
NEVER = "no-such-program-callproof --port {port}"
CALLPROOF = Path(sys.executable).parent / "callproof"


def test_a_keyword_matching_nothing_is_one_line_before_the_iut_starts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--launch", NEVER, "-k", "paralel_two_calls"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and re.fullmatch(
        r"callproof run: -k 'paralel_two_calls' matches none of the \d+ cases of this run; did you mean "
        r"parallel_two_calls or parallel_two_calls::\w+ or \w+\? \(add --list-cases to this command to list them\)\n",
        err), err


def test_a_keyword_that_is_no_expression_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--launch", NEVER, "-k", "(one_call"]) == 2
    assert capsys.readouterr() == ("", "callproof run: -k '(one_call' is not a pytest -k expression: a parenthesis "
                                       "is not closed (names joined by and, or, not and parentheses)\n")


def test_list_cases_prints_the_cases_of_this_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--launch", NEVER, "--list-cases", "-k", "one_call and not identity"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "one_call::framing" in listed and "one_call::expected" in listed
    assert all(case.startswith("one_call::") and case != "one_call::identity" for case in listed)
    assert main(["run", "--client-cmd", "never", "--list-cases", "-k", "one_call"]) == 0
    assert capsys.readouterr().out.splitlines() == ["one_call::expected", "one_call::client"]


def test_list_cases_cuts_shards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--launch", NEVER, "--list-cases"]) == 0
    every = capsys.readouterr().out.splitlines()
    shards = []
    for index in (1, 2):
        assert main(["run", "--launch", NEVER, "--list-cases", "--shard", f"{index}/2"]) == 0
        shards.append(capsys.readouterr().out.splitlines())
    assert sorted(shards[0] + shards[1]) == sorted(every) and shards[0] and shards[1]


def test_list_cases_refuses_what_only_pytest_can_select(capsys: pytest.CaptureFixture[str]) -> None:
    """`suite`, the suite's own folder, may be among every case's names or not, by where callproof is installed."""
    assert main(["run", "--launch", NEVER, "--list-cases", "-k", "suite and one_call"]) == 2
    assert capsys.readouterr() == ("", "callproof run: --list-cases cannot apply -k 'suite and one_call' without "
                                       "pytest (it names a folder of the installed suite); list every case without "
                                       "-k\n")


def test_the_terminal_cites_commands_and_the_report_keeps_the_paths(tmp_path: Path) -> None:
    """CLI-008's finding cites docs/adapters.md#layers: `callproof docs adapters#layers` on the terminal."""
    env = fakes.env({k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    done = subprocess.run([str(CALLPROOF), "run", "--client-cmd", fakes.command("clients",
                           "executing_hands_on_malformed"), "-k", "malformed_args_completed and client"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "(`callproof docs adapters#layers`)" in done.stdout and "docs/adapters.md" not in done.stdout
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    messages = [r["message"] for c in report["cases"] for r in c["results"] if r["rule"] == "CLI-008"]
    assert any("(docs/adapters.md#layers)" in m for m in messages), messages
