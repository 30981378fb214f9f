"""Links in reports come from one place, `[project.urls]` in pyproject.toml (its `Rules` entry, the published
docs/rules.md): no renderer invents a URL, and without one a report names its rules as plain code, no broken link."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from callproof.reports import render_markdown
from callproof.reports._diff import diff_markdown, diff_reports
from callproof.reports._html import render_html
from callproof.reports._text import DOCS_URL

ROOT = Path(__file__).resolve().parents[2]


def test_the_rules_url_is_the_one_of_project_urls() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project.get("urls", {}).get("Rules", "") == DOCS_URL


def test_no_renderer_invents_a_url() -> None:
    for path in sorted((ROOT / "reports").rglob("*.*")):
        if path.suffix in (".py", ".js", ".css"):
            text = path.read_text(encoding="utf-8")
            invented = [u for u in re.findall(r"https?://[^\s\"')>]+", text)
                        if not u.startswith(("http://www.w3.org/", "https://shields.io/"))]
            assert invented == [], f"{path.relative_to(ROOT)}: {invented}"


def test_a_report_without_a_url_names_its_rules_as_code(failing: dict[str, Any], passing: dict[str, Any]) -> None:
    for text in (render_markdown(failing, docs_url=""), diff_markdown(diff_reports(passing, failing), docs_url="")):
        assert "](#" not in text and "]()" not in text
        assert re.search(r"(?<!\[)`[A-Z]+(-[A-Z]+)?-\d{3}`", text), text[:2000]
    assert "https://" not in render_html([failing])


def test_a_report_with_a_url_links_its_rules(failing: dict[str, Any]) -> None:
    text = render_markdown(failing, docs_url="https://docs.example.test/rules.md")
    assert "[`RSP-ID-008`](https://docs.example.test/rules.md#rsp-id-008)" in text
