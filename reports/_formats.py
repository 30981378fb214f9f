"""The report formats, declared once. `callproof report --format` (its choices and its rendering), the files
`callproof run` writes beside its JSON report (`--md OUT.md`, ...: the option table, harness/_options.py, makes a
flag of each format with a `run` entry) and the formats table `make docs` writes into docs/cli.md all read
`FORMATS`; none keeps a list of its own.

Adding a format is one `ReportFormat` row in `FORMATS` plus its renderer (docs/report.md#adding-a-format):

    ReportFormat("sarif", "SARIF 2.1 for code scanning", _one(render_sarif), ".sarif", "application/sarif+json",
                 run=RunOutput("also write SARIF", order=5))

The JSON report itself (`--report`, and the JSON Lines file of a run in progress) is the run's own output, written
by the plugin: its `json` row here is only `callproof report --format json`, the report normalised.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from callproof.harness.report_model import Report

from ._badge import badge_json, badge_svg
from ._html import render_html
from ._junit import render_junit
from ._markdown import render_markdown
from ._text import ReportLike

__all__ = ["FORMATS", "Renderer", "ReportFormat", "RunOutput", "run_formats"]


class Renderer(Protocol):
    """Renders reports as one text: every report given to a format that compares `several`, else exactly one."""

    def __call__(self, reports: Sequence[ReportLike], /) -> str: ...


@dataclass(frozen=True, slots=True)
class RunOutput:
    """How `callproof run` writes a format beside its JSON report: the flag `--<name> OUT<extension>` with this
    help. `order` places the flag among the run's format flags: their `--help` order and the order the files are
    written and named (md, junit, html, badge since the first release)."""

    help: str
    order: int


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """One report format. `name` is the `--format` value (and, with `run`, the `callproof run` flag `--<name>`);
    `what` says in a few words what it is (the docs' formats table); `renderer` makes it from the report alone;
    `extension` and `media_type` are what a file of it is; `several`: it takes several reports at once (the HTML
    matrix), where every other format takes exactly one."""

    name: str
    what: str
    renderer: Renderer
    extension: str
    media_type: str
    run: RunOutput | None = None
    several: bool = False

    @property
    def flag(self) -> str:
        """The `callproof run` flag that writes it (when it has a `run` entry): `--md`."""
        return f"--{self.name}"

    @property
    def option(self) -> str:
        """The option-table name (argparse dest) of its `callproof run` flag: `md`, `badge_json`."""
        return self.name.replace("-", "_")

    @property
    def metavar(self) -> str:
        """The file its `callproof run` flag names: `OUT.md`."""
        return f"OUT{self.extension}"


def run_formats(formats: Iterable[ReportFormat]) -> tuple[ReportFormat, ...]:
    """The formats `callproof run` can write (those with a `run` entry), in their flags' order."""
    written = [f for f in formats if f.run is not None]
    return tuple(sorted(written, key=lambda f: f.run.order if f.run is not None else 0))


def _one(render: Callable[[ReportLike], str]) -> Renderer:
    """The renderer of a format that takes one report."""

    def renderer(reports: Sequence[ReportLike], /) -> str:
        return render(reports[0])

    return renderer


def _badge_json(report: ReportLike) -> str:
    return json.dumps(badge_json(report), indent=2) + "\n"


def _json(report: ReportLike) -> str:
    """The report's JSON as `callproof run` wrote it (a JSON Lines report becomes one document)."""
    return json.dumps(report.to_json() if isinstance(report, Report) else report, indent=2, ensure_ascii=False) + "\n"


#: Every format, in `callproof report --format` order.
FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("md", "Markdown: a PR comment or `$GITHUB_STEP_SUMMARY`, under 60,000 characters",
                 _one(render_markdown), ".md", "text/markdown",
                 run=RunOutput("also write the Markdown report (PR comment)", order=1)),
    ReportFormat("html", "one self-contained HTML page; several reports side by side as a matrix", render_html,
                 ".html", "text/html", run=RunOutput("also write the self-contained HTML report", order=3),
                 several=True),
    ReportFormat("junit", "JUnit XML for CI test views", _one(render_junit), ".xml", "application/xml",
                 run=RunOutput("also write JUnit XML", order=2)),
    ReportFormat("badge", "an SVG status badge: the pass percentage", _one(badge_svg), ".svg", "image/svg+xml",
                 run=RunOutput("also write an SVG badge", order=4)),
    ReportFormat("badge-json", "the badge as a shields.io endpoint document", _one(_badge_json), ".json",
                 "application/json"),
    ReportFormat("json", "the JSON report (a JSON Lines report of a run cut off mid-way as one document)",
                 _one(_json), ".json", "application/json"),
)
