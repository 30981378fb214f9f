"""`callproof report`: convert a JSON or JSON Lines report to another format; and the report files `callproof run`
writes beside its JSON. Every format is rendered from the JSON alone (callproof.reports)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from callproof import reports
from callproof.harness.report_model import Report

from ._exit import ExitCode
from ._flags import Subparsers

__all__ = ["FORMATS", "add_parser", "emit", "render", "run", "write_formats"]

#: `callproof report --format` values and what they render.
FORMATS = ("md", "html", "junit", "badge", "badge-json", "json")


def add_parser(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="convert a report to Markdown, HTML, JUnit XML or a badge",
        description="Render a JSON report (or the JSON Lines report of a run cut off mid-way, shown as incomplete) "
                    "in another format. Several reports with --format html give a side-by-side matrix.",
    )
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="report.json or report.jsonl")
    parser.add_argument("--format", choices=FORMATS, required=True, help="output format")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output")


def render(fmt: str, loaded: Sequence[Report | Mapping[str, Any]]) -> str:
    """One format of one report (HTML takes several: a matrix)."""
    if fmt == "html":
        return reports.render_html(loaded)
    if len(loaded) != 1:
        raise ValueError(f"--format {fmt} takes one report; only html compares several")
    one = loaded[0]
    if fmt == "md":
        return reports.render_markdown(one)
    if fmt == "junit":
        return reports.render_junit(one)
    if fmt == "badge":
        return reports.badge_svg(one)
    if fmt == "badge-json":
        return json.dumps(reports.badge_json(one), indent=2) + "\n"
    return json.dumps(one.to_json() if isinstance(one, Report) else one, indent=2, ensure_ascii=False) + "\n"


def emit(text: str, output: Path | None) -> None:
    """Write to `output` (its folder created), or to standard output."""
    if output is None:
        sys.stdout.write(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    try:
        loaded = [reports.read_report(path) for path in args.reports]
        emit(render(args.format, loaded), args.output)
    except (reports.ReportError, ValueError) as exc:
        print(f"callproof report: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    return ExitCode.OK


def write_formats(data: Report | Mapping[str, Any], outputs: Mapping[str, Path | None]) -> list[Path]:
    """Write each requested format (`md`, `junit`, `html`, `badge`) of a finished run's report."""
    written: list[Path] = []
    for fmt, path in outputs.items():
        if path is not None:
            emit(render(fmt, [data]), path)
            written.append(path)
    return written
