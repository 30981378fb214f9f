"""`callproof report`: convert a JSON or JSON Lines report to another format, or merge the reports of a run's shards
into one (`--merge`, docs/ci.md#shards); and the report files `callproof run` writes beside its JSON. Every format is
rendered from the JSON alone, as its row of the format registry (`callproof.reports.FORMATS`) says: the `--format`
choices are the registry's names."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from callproof import reports
from callproof.harness._doc_refs import terminal_refs
from callproof.harness.report_model import MergeError, Report, merge_reports, read_report

from ._exit import ExitCode
from ._outputs import refuse_outputs

__all__ = ["add_arguments", "emit", "render", "run", "write_formats"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Render a JSON report (or the JSON Lines report of a run cut off mid-way, shown as incomplete) in another "
        "format. Several reports with --format html give a side-by-side matrix. With --merge, the reports of every "
        "shard of one run (--shard I/N) become the one report of the whole run (JSON unless --format says otherwise)."
    )
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="report.json or report.jsonl")
    parser.add_argument("--format", choices=[f.name for f in reports.FORMATS], help="output format (required, "
                        "but with --merge: json by default)")
    parser.add_argument("--merge", action="store_true", help="merge the reports of every shard of one run (--shard "
                        "I/N) into the whole run's report")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output")


def render(fmt: str, loaded: Sequence[Report | Mapping[str, Any]]) -> str:
    """One format of one report (a format that compares `several`, HTML, takes several: a matrix)."""
    chosen = {f.name: f for f in reports.FORMATS}[fmt]
    if not chosen.several and len(loaded) != 1:
        several = " and ".join(f.name for f in reports.FORMATS if f.several)
        raise ValueError(f"--format {fmt} takes one report; only {several} compares several")
    return chosen.renderer(loaded)


def emit(text: str, output: Path | None) -> None:
    """Write to `output` (its folder created), or to standard output. Raises `OSError` (the commands checked the
    path before any work, so only a write that fails mid-way, a full disk, raises)."""
    if output is None:
        sys.stdout.write(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    if args.format is None and not args.merge:
        print("callproof report: give --format (one of " + ", ".join(f.name for f in reports.FORMATS) + "), or "
              "--merge to join the reports of shards", file=sys.stderr)
        return ExitCode.USAGE
    refused = refuse_outputs("report", [("-o", args.output)])
    if refused is not None:
        return refused
    try:
        if args.merge:
            merged = merge_reports([(str(path), read_report(path)) for path in args.reports])
            emit(render(args.format or "json", [merged]), args.output)
        else:
            loaded = [reports.read_report(path) for path in args.reports]
            emit(render(args.format, loaded), args.output)
    except (reports.ReportError, MergeError, ValueError) as exc:
        print(f"callproof report: {terminal_refs(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except OSError as exc:
        print(f"callproof report: -o {args.output}: cannot write there ({exc.strerror or exc})", file=sys.stderr)
        return ExitCode.USAGE
    return ExitCode.OK


def write_formats(data: Report | Mapping[str, Any], outputs: Mapping[str, Path | None]) -> list[Path]:
    """Write each requested format (by name: `md`, `junit`, ...) of a finished run's report, in the given order."""
    written: list[Path] = []
    for fmt, path in outputs.items():
        if path is not None:
            emit(render(fmt, [data]), path)
            written.append(path)
    return written
