"""The `callproof` command line (docs/cli.md): one module per subcommand, each with `add_arguments(parser)` and
`run(args) -> int`; exit codes are `ExitCode` (0 conformant, 1 a MUST rule failed, 2 usage or setup error with a
one-line reason, 3 interrupted).

Start-up stays light: `callproof --version` and `callproof --help` import no subcommand module (the names and
one-line helps are in `_COMMANDS`), and a command imports only its own module, whose flags are defined when argparse
reaches it; what a command needs beyond its flags (the runner, the mock, pytest, httpx) is imported by its `run`.
tests/harness/cli/test_cli.py checks the modules the light commands load."""

from __future__ import annotations

import argparse
import difflib
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from callproof.harness._doc_refs import terminal_refs
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
    "rules": "print the rule catalogue, or the rules of the given ids in full",
    "docs": "print the documentation that ships with callproof: a guide, the spec, the scenario format",
    "record": "record real traffic as scenario files (a recording proxy)",
}


def _module(command: str) -> ModuleType:
    """The module of a subcommand, imported on first use."""
    return importlib.import_module(f"._{command}_command", __name__)


#: argparse's "required" errors: when an unknown option was given too, it is the likelier mistake (`--lunch`).
_REQUIRED = ("the following arguments are required", "one of the arguments")
#: argparse's "invalid choice" error: the value, and the choices it lists (quoted or not, by Python version).
_INVALID_CHOICE = re.compile(r"^argument (?P<name>[^:]+): invalid choice: (?P<value>'[^']*'|\S+) "
                             r"\(choose from (?P<choices>.*)\)$")
#: A negative number, which argparse takes for a value, not an option.
_NUMBER = re.compile(r"-\d+(\.\d*)?")


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, define: Callable[[argparse.ArgumentParser], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._define = define
        self._given: list[str] = []

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        """Defines the flags of a lazily made subcommand parser first (argparse parses a subcommand through here).
        An argument this parser does not know is its error, so the message points at its own --help: argparse
        would hand it up to `callproof`, whose --help does not list it."""
        if self._define is not None:
            define, self._define = self._define, None
            define(self)
        self._given = list(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(self._unrecognized(extras))
        return parsed, extras

    def _unknown(self, tokens: Sequence[str]) -> list[str]:
        """The options among `tokens` this parser does not know (nor as an abbreviation), up to a `--`."""
        known = [o for o in self._option_string_actions if o.startswith("-")]
        unknown: list[str] = []
        for token in tokens:
            if token == "--":
                break
            name = token.partition("=")[0]
            if len(name) < 2 or not name.startswith("-") or _NUMBER.fullmatch(name):
                continue
            if name not in known and not (name.startswith("--") and any(o.startswith(name) for o in known)):
                unknown.append(name)
        return unknown

    def _unrecognized(self, extras: Sequence[str]) -> str:
        """argparse's message for arguments left over, with the nearest option to an unknown one."""
        message = f"unrecognized arguments: {' '.join(extras)}"
        for name in self._unknown(extras):
            near = difflib.get_close_matches(name, [o for o in self._option_string_actions if len(o) > 2], n=1)
            if near:
                return f"{message}; did you mean {near[0]}?"
        return message

    def _reworded(self, message: str) -> str:
        """argparse's message, made to say the likelier mistake and the nearest valid word."""
        if message.startswith(_REQUIRED) and self._unknown(self._given):
            return self._unrecognized(self._unknown(self._given))
        choice = _INVALID_CHOICE.match(message)
        if choice is None:
            return message
        value = choice["value"].strip("'")
        choices = [c.strip().strip("'") for c in choice["choices"].split(",")]
        near = difflib.get_close_matches(value, choices, n=1)
        hint = f"; did you mean {near[0]}?" if near else ""
        if choice["name"] in ("command", "action") or choice["name"].startswith("{"):  # a subcommand's dest/metavar
            return f"unknown command {value!r}{hint} (commands: {', '.join(choices)})"
        return f"{message}{hint}"

    def error(self, message: str) -> NoReturn:
        """One line naming the mistake, the nearest valid word, and where the usage is (not argparse's usage block
        before it)."""
        reason = terminal_refs(self._reworded(message))  # a flag's check may quote the repository (a bad report)
        self.exit(ExitCode.USAGE, f"callproof: error: {reason} (see `{self.prog} --help`)\n")


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
