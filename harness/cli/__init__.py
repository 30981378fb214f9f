"""The `callproof` command line (docs/cli.md): one module per subcommand, each with `add_arguments(parser)` and
`run(args) -> int`; exit codes are `ExitCode` (0 conformant, 1 a MUST rule failed, 2 usage or setup error with a
one-line reason, 3 interrupted).

Start-up stays light: `callproof --version` and `callproof --help` import no subcommand module (the names and
one-line helps are in `_COMMANDS`), and a command imports only its own module, whose flags are defined when argparse
reaches it; what a command needs beyond its flags (the runner, the mock, pytest, httpx) is imported by its `run`.
tests/harness/cli/test_cli.py checks the modules the light commands load."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from callproof.harness._version import __version__

from ._exit import ExitCode

__all__ = ["ExitCode", "main"]

#: The subcommands by name, in --help order, with their one-line help; `_<name>_command` is each one's module.
_COMMANDS = {
    "check": "check captured streams or bodies against the rule catalogue",
    "mock": "run the scripted mock upstream",
    "scenarios": "list the scenarios, or import a capture as one (scenarios import)",
    "run": "run the conformance suite against a gateway or client",
    "fuzz": "generate scenarios against a gateway or client and shrink a failure to a scenario file",
    "report": "convert a report to Markdown, HTML, JUnit XML or a badge; merge the reports of shards",
    "diff": "compare two reports: newly failing, newly passing, stale baseline entries",
    "rules": "print the rule catalogue",
    "record": "record real traffic as scenario files (a recording proxy)",
}


def _module(command: str) -> ModuleType:
    """The module of a subcommand, imported on first use."""
    return importlib.import_module(f"._{command}_command", __name__)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, define: Callable[[argparse.ArgumentParser], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._define = define

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        """Defines the flags of a lazily made subcommand parser first (argparse parses a subcommand through here)."""
        if self._define is not None:
            define, self._define = self._define, None
            define(self)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """One line naming the mistake and where the usage is (not argparse's usage block before it)."""
        self.exit(ExitCode.USAGE, f"callproof: error: {message} (see `{self.prog} --help`)\n")


def _define(command: str) -> Callable[[argparse.ArgumentParser], None]:
    return lambda parser: _module(command).add_arguments(parser)


def _parser(*, lazy: bool = False) -> argparse.ArgumentParser:
    """The whole command line; with `lazy`, a subcommand's module is imported and its flags defined only when the
    command line names it (how `main` parses)."""
    parser = _Parser(prog="callproof", description="Conformance harness for tool-call streaming.")
    parser.add_argument("--version", action="version", version=f"callproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, help_text in _COMMANDS.items():
        command = sub.add_parser(name, help=help_text, define=_define(name) if lazy else None)
        if not lazy:
            _define(name)(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser(lazy=True).parse_args(argv)
    command: Callable[[argparse.Namespace], int] = _module(args.command).run
    try:
        return command(args)
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        print("callproof: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
