"""`callproof diff`: compare two runs case by case."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from callproof.harness._doc_refs import terminal_refs
from callproof.reports import ReportError, diff_markdown, diff_reports, diff_text, read_report

from ._exit import ExitCode
from ._outputs import refuse_outputs
from ._report_command import emit

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Compare a base run with a head run case by case. Exit 1 when a case newly fails."
    parser.add_argument("base", type=Path, metavar="BASE", help="the report of the base run")
    parser.add_argument("head", type=Path, metavar="HEAD", help="the report of the head run")
    parser.add_argument("--format", choices=("md", "text"), default="text", help="output format (default text)")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    refused = refuse_outputs("diff", [("-o", args.output)])
    if refused is not None:
        return refused
    try:
        changes = diff_reports(read_report(args.base), read_report(args.head))
    except ReportError as exc:
        print(f"callproof diff: {terminal_refs(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    emit(diff_markdown(changes) if args.format == "md" else diff_text(changes), args.output)
    if changes.warning:  # also in the output; on stderr too, for a diff written to a file or a pipe
        print(f"callproof diff: warning: {changes.warning}", file=sys.stderr)
    return ExitCode.FAILED if changes.regression else ExitCode.OK
