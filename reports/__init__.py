"""callproof.reports: every report format, rendered from the report alone (schemas/report.schema.json): the typed
`Report` (callproof.harness.report_model) or its JSON.

    report = read_report(Path("report.json"))      # or the report.jsonl of a run cut off mid-way; load_report
                                                   # gives the same report as its JSON
    render_markdown(report)                        # PR comment / $GITHUB_STEP_SUMMARY, under 60,000 characters
    render_junit(report)                           # JUnit XML for CI test views
    render_html([report, other])                   # a standalone page; several reports side by side
    badge_svg(report), badge_json(report)          # "callproof | 97% pass"
    diff_text(diff_reports(base, head))            # what newly fails between two runs
    FORMATS                                        # every format: name, renderer, file extension, run flag

The public API; the modules behind it are private and may change without notice.
"""

from __future__ import annotations

from callproof.harness.report_model import (
    Report,
    ReportError,
    read_report,
    write_jsonl_case,
    write_jsonl_footer,
    write_jsonl_header,
)

from ._badge import badge_json, badge_svg
from ._diff import ReportDiff, diff_markdown, diff_reports, diff_text
from ._formats import FORMATS, Renderer, ReportFormat, RunOutput, run_formats
from ._html import render_html
from ._junit import render_junit
from ._load import load_report
from ._markdown import render_markdown
from ._text import skip_reasons

__all__ = [
    "FORMATS",
    "Renderer",
    "Report",
    "ReportDiff",
    "ReportError",
    "ReportFormat",
    "RunOutput",
    "badge_json",
    "badge_svg",
    "diff_markdown",
    "diff_reports",
    "diff_text",
    "load_report",
    "read_report",
    "render_html",
    "render_junit",
    "render_markdown",
    "run_formats",
    "skip_reasons",
    "write_jsonl_case",
    "write_jsonl_footer",
    "write_jsonl_header",
]
