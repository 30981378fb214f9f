"""`callproof scenarios`: list the scenarios; and the corpus `--scenarios` makes in every command: the bundled
scenarios plus the user's files (ids must not clash), or only the user's with `--no-bundled`."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from callproof.harness._errors import InputError
from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.capture import import_capture, read_capture, scenario_file
from callproof.harness.scenario import (
    Scenario,
    ScenarioError,
    load_scenarios,
    parse_scenario_file,
    with_bundled,
)

from ._exit import ExitCode

__all__ = ["add_arguments", "add_corpus_options", "corpus", "run"]


def add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """`--scenarios PATH ...` (besides the bundled corpus, as in `callproof run`) and `--no-bundled`."""
    parser.add_argument("--scenarios", nargs="+", action="extend", type=Path, metavar="PATH",
                        help="your scenario files or folders, besides the bundled corpus")
    parser.add_argument("--no-bundled", dest="bundled", action="store_false",
                        help="leave the bundled corpus out: only the --scenarios files")


def corpus(paths: Sequence[Path] | None, bundled: bool) -> dict[str, Scenario]:
    """The scenarios `--scenarios` and `--no-bundled` name, loaded as `callproof run` loads them. Raises
    `ScenarioError`."""
    if not bundled:
        if not paths:
            raise ScenarioError("--no-bundled leaves no scenario: give your files with --scenarios PATH")
        return load_scenarios(paths)
    return with_bundled(paths or ())


def add_arguments(scenarios: argparse.ArgumentParser) -> None:
    scenarios.description = (
        "List every scenario: its id, feature, description and [tags] (--format json: also the rules its streams "
        "break); the bundled corpus and the files of --scenarios PATH ... (only those with --no-bundled)."
    )
    scenarios.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    add_corpus_options(scenarios)
    actions = scenarios.add_subparsers(dest="action", metavar="{import}")
    imports = actions.add_parser(
        "import", help="turn a capture into a scenario file on stdout",
        description="Turn a capture (an SSE stream or a non-stream JSON body of any dialect, e.g. from curl or a bug "
                    "report) into a scenario file on stdout that replays it: structured output (fragments exactly as "
                    "chunked, ending, usage, call ids) for every dialect, the capture verbatim in its own.",
    )
    imports.add_argument("file", metavar="FILE", help="the capture, or - for standard input")
    imports.add_argument("--front", choices=DIALECTS, help="the capture's dialect (default: detected)")
    imports.add_argument("--id", dest="scenario_id", metavar="NAME",
                         help="the scenario id (snake_case; default: from the file name)")
    imports.add_argument("--no-raw", dest="raw", action="store_false",
                         help="leave out the verbatim frames: the capture's own dialect renders from the structure")


_NOT_ID = re.compile(r"[^a-z0-9_]+")


def _default_id(name: str) -> str:
    stem = "capture" if name == "<stdin>" else Path(name).name.split(".", 1)[0]
    ident = _NOT_ID.sub("_", stem.lower()).strip("_")
    return f"imported_{ident}".rstrip("_")[:64]


def _import(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        scenario_id = args.scenario_id or _default_id(name)
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", scenario_id):
            raise InputError(f"--id {scenario_id!r} is not a scenario id: snake_case, a letter first, at most 64")
        try:
            data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
        capture = read_capture(data, name, cast(Dialect | None, args.front))
        kind = "stream" if capture.kind == "sse" else "body"
        scenario = import_capture(capture, scenario_id=scenario_id, raw=args.raw,
                                  description=f"{capture.dialect} {kind} imported from {Path(name).name}")
        text = json.dumps(scenario_file(scenario_id, f"Imported from {name}.", [scenario]), indent=2,
                          ensure_ascii=False)
        parse_scenario_file(text, "<stdout>")  # what is printed loads as it is, saved under any name
    except (InputError, ScenarioError) as exc:
        print(f"callproof scenarios import: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    sys.stdout.write(text + "\n")
    print(f"callproof scenarios import: scenario {scenario_id!r} ({capture.dialect} {kind}); save it as any "
          f"*.json (e.g. {scenario_id}.json) and load it with --scenarios PATH", file=sys.stderr)
    return ExitCode.OK


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) == "import":
        return _import(args)
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
            tags = f" [{', '.join(s.tags)}]" if s.tags else ""
            print(f"{s.id:<36} {s.feature:<22} {s.description}{tags}")
    return ExitCode.OK
