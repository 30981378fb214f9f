"""Usage errors as a new user makes them: one line, exit 2, naming the help of the command that was mistyped (not
`callproof --help`, which does not list a subcommand's flags) and the nearest valid option, command or choice; no
internal name (`invalid _port value`); an empty scenario file says it is empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness.cli import main


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.rstrip("\n")


@pytest.mark.parametrize(("argv", "line"), [
    (["rules", "--formt", "md"],  # `md` is taken for a rule id: the flag alone is left over
     "unrecognized arguments: --formt; did you mean --format? (see `callproof rules --help`)"),
    (["diff", "a.json", "b.json", "--outptu", "x"],
     "unrecognized arguments: --outptu x; did you mean --output? (see `callproof diff --help`)"),
    (["scenarios", "--nope"], "unrecognized arguments: --nope (see `callproof scenarios --help`)"),
    (["scenarios", "import", "x.sse", "--frnt", "chat"],
     "unrecognized arguments: --frnt chat; did you mean --front? (see `callproof scenarios import --help`)"),
    (["run", "--launch", "gw {port}", "--repot", "r.json"],
     "unrecognized arguments: --repot r.json; did you mean --report? (see `callproof run --help`)"),
    # the required IUT flag is missing because it was mistyped: the mistyped flag is the error
    (["run", "--lunch", "gw {port}"],
     "unrecognized arguments: --lunch; did you mean --launch? (see `callproof run --help`)"),
    (["fuzz", "--client-comd", "x"],
     "unrecognized arguments: --client-comd; did you mean --client-cmd? (see `callproof fuzz --help`)"),
    (["--nope"], "unrecognized arguments: --nope (see `callproof --help`)"),
    (["repot"], "unknown command 'repot'; did you mean report? (commands: check, mock, scenarios, run, fuzz, "
                "report, diff, rules, docs, record) (see `callproof --help`)"),
    (["scenarios", "improt", "x"],
     "unknown command 'improt'; did you mean import? (commands: import) (see `callproof scenarios --help`)"),
    (["rules", "--format", "mdd"], "argument --format: invalid choice: 'mdd' (choose from 'text', 'json', 'md'); did "
                                   "you mean md? (see `callproof rules --help`)"),
    (["check", "--front", "chta", "x.sse"], "argument --front: invalid choice: 'chta' (choose from 'auto', "
                                            "'responses', 'chat', 'anthropic'); did you mean chat? (see `callproof "
                                            "check --help`)"),
    (["mock", "--port", "abc"], "argument --port: 'abc' is not a port number (0 to 65535; 0 picks a free port) (see "
                                "`callproof mock --help`)"),
    (["record", "--upstream", "http://x", "--out", "d", "--port", "70000"],
     "argument --port: '70000' is not a port number (0 to 65535; 0 picks a free port) (see `callproof record "
     "--help`)"),
    (["run", "--launch", "gw {port}", "--mock-port", "http"],
     "argument --mock-port: 'http' is not a port number (0 to 65535; 0 picks a free port) (see `callproof run "
     "--help`)"),
    (["mock", "--speed", "fast"],
     "argument --speed: expected a number (a factor, like 2 or 0.5), got 'fast' (see `callproof mock --help`)"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_usage_error_names_its_commands_help_and_the_nearest_word(
    argv: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _error(argv, capsys) == f"callproof: error: {line}"


def test_choices_are_parsed_from_the_message_of_this_python(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse quotes the choices or not, by Python version: the nearest one is found either way."""
    assert _error(["report", "r.json", "--format", "jnit"], capsys).endswith(
        "; did you mean junit? (see `callproof report --help`)")


@pytest.mark.parametrize("content", ["", "  \n\n"], ids=["empty", "blank"])
def test_an_empty_scenario_file_says_it_is_empty(content: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.json"
    path.write_text(content, encoding="utf-8")
    assert main(["scenarios", "--scenarios", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"callproof scenarios: {path}: the file is empty: a scenario file is a JSON object with feature, description "
        "and scenarios; see `callproof docs scenario-format`\n")
