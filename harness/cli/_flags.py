"""The `run` and `fuzz` flags, generated from the option table (harness/_options.py), and the `--callproof-*`
options `callproof run` hands the pytest plugin. The `RunConfig` they make is `_config.run_config`'s (it loads the
runner; this module, which defines the flags, does not)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from callproof.harness._options import Option, Surface, options_for, plugin_flag

__all__ = ["add_options", "pytest_argv"]


def _add(parser: argparse._ActionsContainer, entry: Option) -> None:
    kwargs: dict[str, Any] = {"dest": entry.name, "help": entry.help}
    if entry.kind == "many":
        kwargs.update(nargs="+", action="extend")
    elif entry.kind in ("true", "false"):
        kwargs["action"] = f"store_{entry.kind}"
    if entry.kind != "many" and entry.default is not None:
        kwargs["default"] = entry.default
    for key in ("metavar", "type", "choices"):
        if getattr(entry, key) is not None:
            kwargs[key] = getattr(entry, key)
    parser.add_argument(*entry.cli_flags, **kwargs)


def add_options(parser: argparse.ArgumentParser, command: Surface) -> None:
    """The command's flags from the option table: the IUT flags as a required group of exactly one."""
    iut = parser.add_mutually_exclusive_group(required=True)
    for entry in options_for(command):
        _add(iut if entry.iut else parser, entry)


def pytest_argv(args: argparse.Namespace) -> list[str]:
    """The `--callproof-*` options carrying these flags to the plugin (each as --flag=value: a value may start with
    a dash); flags left at None are not passed."""
    argv: list[str] = []
    for entry in options_for("pytest"):
        value = getattr(args, entry.name, None)
        if entry.kind in ("true", "false"):  # a switch is passed as itself, when set
            argv += [plugin_flag(entry)] if value is not None and value != entry.default else []
            continue
        values = (value or []) if entry.kind == "many" else [] if value is None else [value]
        argv += [f"{plugin_flag(entry)}={item.resolve() if isinstance(item, Path) else item}" for item in values]
    return argv
