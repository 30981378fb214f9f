"""The status badge: pass percentage, colour thresholds, the SVG and the shields.io endpoint JSON."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from callproof.reports import badge_json, badge_svg, render_markdown

SVG = "{http://www.w3.org/2000/svg}"


def _report(base: dict[str, Any], *, passed: int, failed: int = 0, skipped: int = 0, xfailed: int = 0,
            error: int = 0) -> dict[str, Any]:
    """Only the summary and `complete` matter to the badge."""
    counts = {"passed": passed, "failed": failed, "skipped": skipped, "xfailed": xfailed, "error": error}
    summary = {**base["summary"], **counts, "cases": sum(counts.values())}
    return {**base, "summary": summary}


@pytest.mark.parametrize(("counts", "message", "colour"), [
    ({"passed": 100}, "100% pass", "brightgreen"),
    ({"passed": 199, "failed": 1}, "99% pass", "green"),  # rounded down: 100% only when everything passed
    ({"passed": 95, "failed": 5}, "95% pass", "green"),
    ({"passed": 949, "failed": 51}, "94% pass", "yellow"),
    ({"passed": 80, "error": 20}, "80% pass", "yellow"),
    ({"passed": 79, "failed": 21}, "79% pass", "orange"),
    ({"passed": 50, "failed": 50}, "50% pass", "orange"),
    ({"passed": 49, "failed": 51}, "49% pass", "red"),
    ({"passed": 0, "failed": 3}, "0% pass", "red"),
    ({"passed": 90, "xfailed": 10}, "100% pass", "brightgreen"),  # baseline-covered failures count as passing
    ({"passed": 9, "skipped": 90, "failed": 1}, "90% pass", "yellow"),  # skipped cases are left out
    ({"passed": 0, "skipped": 4}, "nothing judged", "red"),  # no verdict without evidence: never "no cases"
    ({"passed": 0, "error": 7}, "nothing judged", "red"),  # not "0% pass" either: no case was judged
    ({"passed": 0, "error": 1, "xfailed": 1}, "50% pass", "orange"),  # a baseline-covered failure was judged
    ({"passed": 0}, "no cases", "lightgrey"),
    ({"passed": 29, "failed": 71}, "29% pass", "red"),  # counted in integers: 100 * 0.29 is 28.999... in floats
])
def test_message_and_colour(passing: dict[str, Any], counts: dict[str, int], message: str, colour: str) -> None:
    report = _report(passing, **counts)
    assert badge_json(report) == {"schemaVersion": 1, "label": "callproof", "message": message, "color": colour}
    assert f">{message}</text>" in badge_svg(report)


def test_fixtures(failing: dict[str, Any], passing: dict[str, Any], incomplete: dict[str, Any]) -> None:
    summary = failing["summary"]
    percent = int(100 * (summary["passed"] + summary["xfailed"]) / (summary["cases"] - summary["skipped"]))
    assert badge_json(failing)["message"] == f"{percent}% pass"
    assert badge_json(passing)["message"] == "100% pass"
    assert badge_json(incomplete) == {"schemaVersion": 1, "label": "callproof", "message": "incomplete",
                                      "color": "lightgrey"}
    json.dumps(badge_json(failing))


def test_svg_is_valid_accessible_and_sized_by_its_text(passing: dict[str, Any]) -> None:
    def parse(report: dict[str, Any]) -> ET.Element:
        return ET.fromstring(badge_svg(report))

    root = parse(passing)
    assert root.tag == f"{SVG}svg" and root.get("height") == "20"
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "callproof: 100% pass" == root.get("aria-label")
    assert root.get("role") == "img"
    rects = root.findall(f"{SVG}g/{SVG}rect")
    assert int(str(rects[0].get("width"))) + int(str(rects[1].get("width"))) == int(str(root.get("width")))
    assert rects[1].get("fill") == "#4c1"
    wide = int(str(root.get("width")))
    narrow = int(str(parse(_report(passing, passed=0, failed=1)).get("width")))  # "0% pass": two digits fewer
    assert wide - narrow == 14
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts == ["callproof", "callproof", "100% pass", "100% pass"]  # shadow and text for each half
    assert all(re.fullmatch(r"\d+", str(t.get("textLength"))) for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("counts", [
    {"passed": 13, "failed": 3}, {"passed": 199, "failed": 1}, {"passed": 29, "error": 71},
    {"passed": 90, "xfailed": 10}, {"passed": 9, "skipped": 90, "failed": 1},
])
def test_the_badge_is_the_markdowns_pass_rate_rounded_down(passing: dict[str, Any], counts: dict[str, int]) -> None:
    report = _report(passing, **counts)
    row = re.search(r"^\| \*\*all cases\*\* \| (\d+) \| (\d+) \| ([\d.]+)% \|$", render_markdown(report), re.M)
    assert row is not None
    ok, ran = counts["passed"] + counts.get("xfailed", 0), sum(counts.values()) - counts.get("skipped", 0)
    assert (int(row[1]), int(row[2])) == (ok, ran)
    assert badge_json(report)["message"] == f"{int(float(row[3]))}% pass"


def test_the_failing_fixtures_badge_and_markdown_agree(failing: dict[str, Any]) -> None:
    row = re.search(r"^\| \*\*all cases\*\* \| \d+ \| \d+ \| ([\d.]+)% \|$", render_markdown(failing), re.M)
    assert row is not None and badge_json(failing)["message"] == f"{int(float(row[1]))}% pass"
