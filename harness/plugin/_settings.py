"""The pytest view of the option table (harness/_options.py), kept out of the thin plugin module: the
`--callproof-*` options and the ini settings it registers, and reading a setting (its option, else its ini value)."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness._options import Option, option, options_for, plugin_dest, plugin_flag, plugin_text
from callproof.harness.run import ConfigError, RunConfig

__all__ = ["add_options", "profile", "run_config", "setting"]


def add_options(parser: pytest.Parser) -> None:
    """Every `--callproof-*` option of the table, in its group, and the ini settings of the fixtures."""
    groups = {
        "general": parser.getgroup("callproof", "callproof: tool-call streaming conformance"),
        "iut": parser.getgroup("callproof-iut", "callproof: the implementation under test (give one)"),
        "run": parser.getgroup("callproof-run", "callproof: the bundled suite (callproof.suite)"),
    }
    for entry in options_for("pytest"):
        _add_option(groups["iut" if entry.iut else "general" if entry.ini else "run"], entry)
    parser.addini("callproof_profile", "default callproof profile: openai, open-responses or lenient",
                  default="openai")
    parser.addini("callproof_scenarios", "scenario files or folders served by callproof_mock besides the bundled "
                  "corpus (relative to the rootdir)", type="paths", default=[])
    parser.addini("callproof_seed", "seed of the callproof_mock chaos faults", default="0")
    parser.addini("callproof_virtual_clock", "play callproof_mock's scripted delays at once on a virtual clock",
                  type="bool", default=False)


def _add_option(group: pytest.OptionGroup, entry: Option) -> None:
    """One `--callproof-*` option, generated from the option table (harness/_options.py)."""
    kwargs: dict[str, Any] = {"dest": plugin_dest(entry), "help": plugin_text(entry.help)}
    if entry.kind == "many":
        kwargs.update(action="append", default=[], help=f"{kwargs['help']} (repeatable)")
    elif entry.kind in ("true", "false"):
        kwargs.update(action=f"store_{entry.kind}", default=entry.pytest_default)
    else:
        kwargs["default"] = entry.pytest_default
    if entry.ini:
        kwargs["help"] = kwargs["help"].replace("(default ", f"(default: ini {entry.ini}, else ")
    for key in ("metavar", "type", "choices"):
        if getattr(entry, key) is not None:
            kwargs[key] = getattr(entry, key)
    group.addoption(plugin_flag(entry), **kwargs)


def setting(config: pytest.Config, name: str) -> object:
    """An option's value, its ini setting when it was not given."""
    entry = option(name)
    value = config.getoption(plugin_dest(entry))
    if value is None and entry.ini:
        value = config.getini(entry.ini)
    return value


def profile(config: pytest.Config) -> str:
    """The profile of `callproof_check`: --callproof-profile, else the callproof_profile ini setting."""
    return str(setting(config, "profile"))


def run_config(config: pytest.Config) -> RunConfig | None:
    """The bundled suite's configuration; None when no implementation under test is named."""
    try:
        return RunConfig.from_options(lambda name: setting(config, name), config.invocation_params.dir)
    except ConfigError as exc:
        raise pytest.UsageError(plugin_text(str(exc))) from None
