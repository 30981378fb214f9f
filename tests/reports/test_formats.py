"""The format registry (reports/_formats.py) is the one list of report formats: each row renders exactly what its
render function gives (the bytes `callproof report` has always written), its names, flags and files are distinct,
and the pages that describe the formats name every one of them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from callproof import reports

ROOT = Path(__file__).resolve().parents[2]
NAMES = [f.name for f in reports.FORMATS]


def test_the_registry_holds_the_historic_formats_in_format_order() -> None:
    assert NAMES == ["md", "html", "junit", "badge", "badge-json", "json"]
    assert [(f.flag, f.metavar) for f in reports.run_formats(reports.FORMATS)] == [
        ("--md", "OUT.md"), ("--junit", "OUT.xml"), ("--html", "OUT.html"), ("--badge", "OUT.svg")]


def test_names_flags_and_orders_are_distinct() -> None:
    assert len(set(NAMES)) == len(NAMES)
    orders = [f.run.order for f in reports.FORMATS if f.run is not None]
    assert len(set(orders)) == len(orders)
    for entry in reports.FORMATS:
        assert re.fullmatch(r"[a-z][a-z-]*", entry.name), entry.name
        assert entry.extension.startswith(".") and "/" in entry.media_type, entry.name


@pytest.mark.parametrize("name", NAMES)
def test_each_renderer_gives_the_bytes_of_its_render_function(name: str, failing: dict[str, Any]) -> None:
    typed = reports.Report.from_json(failing)
    entry = next(f for f in reports.FORMATS if f.name == name)
    expected: dict[str, Callable[[Any], str]] = {
        "md": reports.render_markdown,
        "html": lambda r: reports.render_html([r]),
        "junit": reports.render_junit,
        "badge": reports.badge_svg,
        "badge-json": lambda r: json.dumps(reports.badge_json(r), indent=2) + "\n",
        "json": lambda r: json.dumps(r.to_json() if isinstance(r, reports.Report) else r, indent=2,
                                     ensure_ascii=False) + "\n",
    }
    for form in (failing, typed):  # the JSON and the typed report alike
        assert entry.renderer([form]) == expected[name](form)


def test_only_html_compares_several(failing: dict[str, Any], passing: dict[str, Any]) -> None:
    assert [f.name for f in reports.FORMATS if f.several] == ["html"]
    html = next(f for f in reports.FORMATS if f.several)
    assert html.renderer([failing, passing]) == reports.render_html([failing, passing])


def test_the_report_page_describes_every_format() -> None:
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    for name in NAMES:
        assert f"--format {name}" in text, f"docs/report.md shows no `--format {name}` example"
    assert "reports/_formats.py" in text.split("## Adding a format", 1)[1]
