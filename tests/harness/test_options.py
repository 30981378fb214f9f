"""The option table (harness/_options.py) is the one declaration of the run options: `callproof run`, `callproof
fuzz` and the `--callproof-*` pytest options expose exactly its entries, with the flag names and defaults they have
always had, and a RunConfig built from either surface is the same."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest

from callproof.harness._options import OPTIONS, options_for, plugin_flag
from callproof.harness.cli import _parser as cli_parser
from callproof.harness.cli import main
from callproof.harness.run import ConfigError, RunConfig

ROOT = Path(__file__).resolve().parents[2]
IUT = {"--launch", "--target", "--app", "--client-cmd", "--client"}
SHARED = {"--front": "responses", "--upstream-dialect": "chat", "--client-dialect": "responses",
          "--front-url": None, "--ready-url": None, "--case-timeout": 30.0,
          "--start-timeout": 30.0, "--model": "callproof-model", "--mock-port": 0, "--profile": "openai",
          "--header": None}
#: The flags and defaults each surface has had since before the table: compatibility, spelled out.
RUN = {**dict.fromkeys(IUT), **SHARED, "-k": None, "--list-cases": False, "-n": "0", "--scenarios": None,
       "--baseline": None, "--write-baseline": None, "--report": Path("report.json"), "--md": None, "--junit": None,
       "--html": None, "--badge": None, "-v": False, "--repeat": 1, "--strict-baseline": False,
       "--policy": None, "--max-events": None, "--max-bytes": None, "--max-consecutive-errors": 5, "--shard": None,
       "--shard-durations": None, "--client-transport": "http",
       "--front-transport": "http", "--upstream-transport": "http"}
FUZZ = {**dict.fromkeys(IUT), **SHARED, "--max-examples": 100, "--time": 60.0, "--seed": None, "--out": Path(),
        "--no-quirks": True}
PYTEST: dict[str, Any] = {**{f"--callproof-{k[2:]}": v for k, v in {**dict.fromkeys(IUT), **SHARED}.items()},
          "--callproof-profile": None, "--callproof-scenarios": [], "--callproof-baseline": None,
          "--callproof-report": None, "--callproof-repeat": 1, "--callproof-header": [], "--callproof-policy": [],
          "--callproof-max-events": None, "--callproof-max-bytes": None,
          "--callproof-strict-baseline": False, "--callproof-max-consecutive-errors": 5, "--callproof-shard": None,
          "--callproof-shard-durations": None, "--callproof-client-transport": "http",
          "--callproof-front-transport": "http", "--callproof-upstream-transport": "http"}


def _subcommand(name: str) -> argparse.ArgumentParser:
    sub = next(a for a in cli_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = sub.choices[name]
    return parser


def _cli_flags(name: str) -> dict[str, Any]:
    return {a.option_strings[0]: a.default for a in _subcommand(name)._actions if a.option_strings
            and a.dest != "help"}


def _pytest_flags(pytester: pytest.Pytester) -> dict[str, Any]:
    """Every `--callproof-*` flag `pytest --help` lists, with its default."""
    names = set(re.findall(r"--callproof-[a-z-]+", pytester.runpytest("-p", "callproof", "--help").stdout.str()))
    config = pytester.parseconfig("-p", "callproof")
    return {name: config.getoption(name[2:].replace("-", "_")) for name in names}


@pytest.mark.parametrize(("surface", "expected"), [("run", RUN), ("fuzz", FUZZ)])
def test_the_commands_expose_the_table_with_their_historic_flags_and_defaults(surface: str,
                                                                             expected: dict[str, Any]) -> None:
    assert _cli_flags(surface) == expected
    assert {o.cli_flags[0] for o in options_for(surface)} == set(expected)  # type: ignore[arg-type]


def test_pytest_exposes_the_table_with_its_historic_flags_and_defaults(pytester: pytest.Pytester) -> None:
    assert _pytest_flags(pytester) == PYTEST
    assert {plugin_flag(o) for o in options_for("pytest")} == set(PYTEST)


def test_an_option_run_passes_to_pytest_has_the_same_default_on_both_unless_the_table_says(
    pytester: pytest.Pytester,
) -> None:
    cli, plugin = _cli_flags("run"), _pytest_flags(pytester)
    for entry in options_for("pytest"):
        if entry.ini is None and entry.kind == "value" and entry.pytest_default is entry.default:
            assert cli[entry.cli_flags[0]] == plugin[plugin_flag(entry)], entry.name
    # read by the report, or by the suite's plugin as it stops or slices the run, not by the run's config
    not_config = {"baseline", "report", "strict_baseline", "max_consecutive_errors", "shard", "shard_durations"}
    assert {o.name for o in OPTIONS if o.field} == {o.name for o in options_for("pytest")} - not_config


def test_both_surfaces_make_the_same_run_config(pytester: pytest.Pytester, tmp_path: Path) -> None:
    argv = ["--launch", "gw {port}", "--upstream-dialect", "anthropic", "--case-timeout", "5", "--mock-port", "7",
            "--profile", "lenient", "--scenarios", "a.json", "b"]
    args = _subcommand("run").parse_args(argv)
    from_cli = RunConfig.from_options(lambda n: getattr(args, n, None), tmp_path)
    config = pytester.parseconfig("-p", "callproof", *["--callproof-" + a[2:] if a.startswith("--") else a
                                                       for a in argv[:-1]], "--callproof-scenarios", "b")
    from_pytest = RunConfig.from_options(lambda n: config.getoption(f"callproof_{n}"), tmp_path)
    assert from_cli == from_pytest == RunConfig(
        launch="gw {port}", upstream_dialect="anthropic", case_timeout=5.0, mock_port=7, profile="lenient",
        scenario_paths=(tmp_path / "a.json", tmp_path / "b"))


def test_options_that_make_no_run_are_one_line_errors_named_by_their_flags(tmp_path: Path) -> None:
    assert RunConfig.from_options(lambda n: None, tmp_path) is None
    values = {"target": "http://h/v1/responses"}
    with pytest.raises(ConfigError, match=r"^--target needs --mock-port PORT"):
        RunConfig.from_options(values.get, tmp_path)
    with pytest.raises(ConfigError, match=r"^--profile 'strict' is not a profile"):
        RunConfig.from_options({"launch": "x", "profile": "strict"}.get, tmp_path)


@pytest.mark.parametrize("command", ["run", "fuzz"])
def test_docs_cli_md_documents_every_flag(command: str) -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split(f"## `callproof {command}`")[1].split("\n## `callproof ")[0]
    for entry in options_for(command):  # type: ignore[arg-type]
        assert f"`{entry.cli_flags[0]}" in section or (entry.iut and f"`{entry.cli_flags[0]}" in text), entry.name


def test_a_usage_error_in_the_table_types_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", "--launch", "x", "--max-examples", "0"])
    assert exc.value.code == 2
    assert "argument --max-examples: must be at least 1, got 0" in capsys.readouterr().err


def test_an_unknown_client_dialect_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", "--client-cmd", "x", "--client-dialect", "gemini"])
    assert exc.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert errors == ["callproof: error: argument --client-dialect: invalid choice: 'gemini' (choose from "
                      "'responses', 'chat', 'anthropic') (see `callproof run --help`)"]
    with pytest.raises(ConfigError, match=r"^--client-dialect 'gemini' is not a dialect; use one of responses, chat"):
        RunConfig.from_options({"client_cmd": "x", "client_dialect": "gemini"}.get, tmp_path)
    config = RunConfig.from_options({"client": "m:f", "client_dialect": "chat"}.get, tmp_path)
    assert config is not None and config.client_dialect == "chat"
    assert config.repro("one_call::client") == "callproof run --client m:f --client-dialect chat -k 'one_call::client'"
