"""`callproof report` (convert a JSON or JSON Lines report to another format) and `callproof diff` (compare two
runs), and the report files `callproof run` writes beside its JSON. Every format is rendered from the JSON alone
(callproof.reports)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from callproof.harness.report import Report

__all__ = ["FORMATS", "add_diff_parser", "add_report_parser", "diff", "render", "report", "write_formats"]

#: `callproof report --format` values and what they render.
FORMATS = ("md", "html", "junit", "badge", "badge-json", "json")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_report_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "report", help="convert a report to Markdown, HTML, JUnit XML or a badge",
        description="Render a JSON report (or the JSON Lines report of a run cut off mid-way, shown as incomplete) "
                    "in another format. Several reports with --format html give a side-by-side matrix.",
    )
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="report.json or report.jsonl")
    parser.add_argument("--format", choices=FORMATS, required=True, help="output format")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output")


def add_diff_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "diff", help="compare two reports: newly failing, newly passing, stale baseline entries",
        description="Compare a base run with a head run case by case. Exit 1 when a case newly fails.",
    )
    parser.add_argument("base", type=Path, metavar="BASE", help="the report of the base run")
    parser.add_argument("head", type=Path, metavar="HEAD", help="the report of the head run")
    parser.add_argument("--format", choices=("md", "text"), default="text", help="output format (default text)")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of standard output")


def render(fmt: str, reports: Sequence[Report | Mapping[str, Any]]) -> str:
    """One format of one report (HTML takes several: a matrix)."""
    from callproof import reports as r

    if fmt == "html":
        return r.render_html(reports)
    if len(reports) != 1:
        raise ValueError(f"--format {fmt} takes one report; only html compares several")
    one = reports[0]
    if fmt == "md":
        return r.render_markdown(one)
    if fmt == "junit":
        return r.render_junit(one)
    if fmt == "badge":
        return r.badge_svg(one)
    if fmt == "badge-json":
        return json.dumps(r.badge_json(one), indent=2) + "\n"
    return json.dumps(one.to_json() if isinstance(one, Report) else one, indent=2, ensure_ascii=False) + "\n"


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")


def report(args: argparse.Namespace) -> int:
    from callproof.reports import ReportError, read_report

    try:
        loaded = [read_report(path) for path in args.reports]
        _emit(render(args.format, loaded), args.output)
    except (ReportError, ValueError) as exc:
        print(f"callproof report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def diff(args: argparse.Namespace) -> int:
    from callproof.reports import ReportError, diff_markdown, diff_reports, diff_text, read_report

    try:
        changes = diff_reports(read_report(args.base), read_report(args.head))
    except ReportError as exc:
        print(f"callproof diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    _emit(diff_markdown(changes) if args.format == "md" else diff_text(changes), args.output)
    return EXIT_FAILED if changes.regression else EXIT_OK


def write_formats(data: Report | Mapping[str, Any], outputs: Mapping[str, Path | None]) -> list[Path]:
    """Write each requested format (`md`, `junit`, `html`, `badge`) of a finished run's report."""
    written: list[Path] = []
    for fmt, path in outputs.items():
        if path is not None:
            _emit(render(fmt, [data]), path)
            written.append(path)
    return written
