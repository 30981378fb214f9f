"""The `callproof` command line (docs/spec/contracts.md §4).

Exit codes: 0 conformant, 1 a MUST rule failed, 2 usage or setup error (with a one-line reason).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, NoReturn, cast

from callproof.harness._errors import InputError
from callproof.harness._version import __version__
from callproof.harness.catalogue import CATALOGUE, FRONTS, PROFILES, Profile
from callproof.harness.check import catalogue_markdown, check_capture, format_report
from callproof.harness.fuzz import add_fuzz_parser, fuzz_command

from ._report_cli import add_diff_parser, add_report_parser, diff, report
from ._run import add_run_parser, run

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"callproof: error: {message} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="callproof", description="Conformance harness for tool-call streaming.")
    parser.add_argument("--version", action="version", version=f"callproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser(
        "check",
        help="check captured streams or bodies against the rule catalogue",
        description="Check raw SSE text as captured off the wire (or a non-stream JSON body), rule by rule.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="capture file, or - for standard input")
    check.add_argument("--front", choices=("auto", *FRONTS), default="auto",
                       help="the dialect of the capture (default: detected from its first event)")
    check.add_argument("--profile", choices=PROFILES, default="openai", help="rules and schema variant")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format")

    mock = sub.add_parser(
        "mock",
        help="run the scripted mock upstream",
        description="Serve the scenarios in the Responses, Chat Completions and Anthropic dialects until SIGINT or "
                    "SIGTERM; prints `callproof mock listening on http://HOST:PORT/v1`.",
    )
    mock.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    mock.add_argument("--port", type=_port, default=0, help="port to bind (default 0: a free port)")
    mock.add_argument("--scenarios", nargs="+", action="extend", type=Path, metavar="PATH",
                      help="scenario files or directories to serve instead of the bundled corpus")
    mock.add_argument("--strict", action="store_true",
                      help="answer 404 (listing the nearest ids) when no scenario matches, instead of `default`")
    mock.add_argument("--seed", type=int, default=0, help="seed of fault probabilities and jitter (default 0)")
    mock.add_argument("--journal", type=Path, metavar="FILE.jsonl", help="append the journal to this file")
    mock.add_argument("--speed", type=_speed, default=1.0, help="divide every scripted delay by FACTOR (default 1)")

    scenarios = sub.add_parser("scenarios", help="list the scenarios", description="List every scenario id, its "
                               "feature, tags and description (the bundled corpus, or --scenarios PATH ...).")
    scenarios.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    scenarios.add_argument("--scenarios", nargs="+", action="extend", type=Path, metavar="PATH",
                           help="scenario files or directories instead of the bundled corpus")

    add_run_parser(sub)
    add_fuzz_parser(sub)
    add_report_parser(sub)
    add_diff_parser(sub)

    rules = sub.add_parser("rules", help="print the rule catalogue", description="Print the rule catalogue.")
    rules.add_argument("--format", choices=("text", "json", "md"), default="text", help="output format")
    rules.add_argument("--front", choices=FRONTS, help="only the rules of this front")
    rules.add_argument("--profile", choices=PROFILES, help="only the rules of this profile")
    return parser


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535, got {value}")
    return value


def _speed(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"speed must be a positive number, got {text}")
    return value


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _check(args: argparse.Namespace) -> int:
    outcome = EXIT_OK
    documents = []
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            stream = _open(path)
            try:
                report = check_capture(stream, name, front=args.front, profile=cast(Profile, args.profile))
            finally:
                if stream is not sys.stdin.buffer:
                    stream.close()
        except InputError as exc:
            print(f"callproof check: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if not report.conformant:
            outcome = EXIT_FAILED
        if args.format == "json":
            documents.append({"file": name, **report.to_json()})
        else:
            print(format_report(report, name))
    if args.format == "json":
        json.dump({"callproof_version": __version__, "checks": documents}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return outcome


def _mock(args: argparse.Namespace) -> int:
    from callproof.mock_server import ScenarioError, serve_forever

    try:
        serve_forever(host=args.host, port=args.port, scenario_paths=args.scenarios or (), strict=args.strict,
                      seed=args.seed, journal_path=args.journal, speed=args.speed)
    except ScenarioError as exc:
        print(f"callproof mock: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"callproof mock: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}; "
              "pick another --port (0 chooses a free one)", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _scenarios(args: argparse.Namespace) -> int:
    from callproof.mock_server import ScenarioError, bundled_scenarios, load_scenarios

    try:
        found = load_scenarios(args.scenarios) if args.scenarios else bundled_scenarios()
    except ScenarioError as exc:
        print(f"callproof scenarios: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        rows = [
            {"id": s.id, "feature": s.feature, "tags": list(s.tags), "description": s.description,
             "breaks": {d: list(r) for d, r in s.breaks.items()}}
            for s in found.values()
        ]
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for s in found.values():
            print(f"{s.id:<36} {s.feature:<22} {s.description}")
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    selected = [
        rule for rule in CATALOGUE
        if (args.front is None or args.front in rule.fronts) and (args.profile is None or args.profile in rule.profiles)
    ]
    if args.format == "md":
        sys.stdout.write(catalogue_markdown(selected))
    elif args.format == "json":
        rows = [
            {
                "id": r.id, "level": r.level, "family": r.family, "fronts": sorted(r.fronts),
                "profiles": sorted(r.profiles), "statement": r.statement, "spec": r.spec, "fix": r.fix,
            }
            for r in selected
        ]
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in selected:
            print(f"{r.id:<15} {r.level:<6} {r.family:<10} {r.statement}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "mock":
            return _mock(args)
        if args.command == "scenarios":
            return _scenarios(args)
        if args.command == "run":
            return run(args)
        if args.command == "fuzz":
            return fuzz_command(args)
        if args.command == "report":
            return report(args)
        if args.command == "diff":
            return diff(args)
        return _rules(args)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("callproof: interrupted", file=sys.stderr)
        return 130

