"""The `callproof` command line (docs/cli.md): one module per subcommand, each with `add_parser(subparsers)` and
`run(args) -> int`; exit codes are `ExitCode` (0 conformant, 1 a MUST rule failed, 2 usage or setup error with a
one-line reason, 3 interrupted)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from callproof.harness._version import __version__

from . import (
    _check_command,
    _diff_command,
    _fuzz_command,
    _mock_command,
    _record_command,
    _report_command,
    _rules_command,
    _run_command,
    _scenarios_command,
)
from ._exit import ExitCode

__all__ = ["ExitCode", "main"]

#: The subcommands by name, in --help order.
_COMMANDS = {
    "check": _check_command, "mock": _mock_command, "scenarios": _scenarios_command, "run": _run_command,
    "fuzz": _fuzz_command, "report": _report_command, "diff": _diff_command, "rules": _rules_command,
    "record": _record_command,
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line naming the mistake and where the usage is (not argparse's usage block before it)."""
        self.exit(ExitCode.USAGE, f"callproof: error: {message} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="callproof", description="Conformance harness for tool-call streaming.")
    parser.add_argument("--version", action="version", version=f"callproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in _COMMANDS.values():
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = _COMMANDS[args.command].run
    try:
        return command(args)
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        print("callproof: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
