"""`callproof scenarios`: list the scenarios; and the corpus `--scenarios` makes in every command: the bundled
scenarios plus the user's files (ids must not clash), or only the user's with `--no-bundled`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from callproof.harness.run import run_scenarios
from callproof.harness.scenario import Scenario, ScenarioError, load_scenarios

from ._exit import ExitCode
from ._options import Subparsers

__all__ = ["add_corpus_options", "add_parser", "corpus", "run"]


def add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """`--scenarios PATH ...` (besides the bundled corpus, as in `callproof run`) and `--no-bundled`."""
    parser.add_argument("--scenarios", nargs="+", action="extend", type=Path, metavar="PATH",
                        help="your scenario files or folders, besides the bundled corpus")
    parser.add_argument("--no-bundled", dest="bundled", action="store_false",
                        help="leave the bundled corpus out: only the --scenarios files")


def corpus(paths: Sequence[Path] | None, bundled: bool) -> dict[str, Scenario]:
    """The scenarios `--scenarios` and `--no-bundled` name. Raises `ScenarioError`."""
    if not bundled:
        if not paths:
            raise ScenarioError("--no-bundled leaves no scenario: give your files with --scenarios PATH")
        return load_scenarios(paths)
    return dict(run_scenarios(paths or ()))


def add_parser(subparsers: Subparsers) -> None:
    scenarios = subparsers.add_parser(
        "scenarios", help="list the scenarios",
        description="List every scenario id, its feature, tags and description: the bundled corpus and the files "
                    "of --scenarios PATH ... (only those with --no-bundled).",
    )
    scenarios.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_corpus_options(scenarios)


def run(args: argparse.Namespace) -> int:
    try:
        found = corpus(args.scenarios, args.bundled)
    except ScenarioError as exc:
        print(f"callproof scenarios: {exc}", file=sys.stderr)
        return ExitCode.USAGE
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
    return ExitCode.OK
