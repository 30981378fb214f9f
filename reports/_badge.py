"""A status badge: a shields.io-style flat SVG ("callproof | 97% pass") and the shields.io endpoint JSON
(https://shields.io/badges/endpoint-badge) for a badge served from your own storage.

The pass percentage is (passed + xfailed) / (cases - skipped): the cases that ran, and of those the ones that
passed or failed only as the baseline expects. A case with only SHOULD failures is `failed` and counts against it,
like an `error`. It is rounded down, so 100% means every case that ran passed. It is the Markdown report's pass rate
(its "all cases" row, one decimal), rounded down to a whole percent: the two always agree. Colour: brightgreen at
100%, green from 95%, yellow from 80%, orange from 50%, red below; lightgrey for "incomplete" (a run cut off before
every case ran) and "no cases" (the report holds none); red "nothing judged" when every case is an `error` or
skipped (no case was judged: the run exits 1).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from callproof.harness.report_model import Report

from ._text import ReportLike, as_report

__all__ = ["COLOURS", "badge_json", "badge_svg", "pass_counts", "pass_percentage"]

LABEL = "callproof"
#: shields.io's named colours (the endpoint JSON uses the names, the SVG the hex values).
COLOURS = {"brightgreen": "#4c1", "green": "#97ca00", "yellow": "#dfb317", "orange": "#fe7d37", "red": "#e05d44",
           "lightgrey": "#9f9f9f"}
_THRESHOLDS = ((100, "brightgreen"), (95, "green"), (80, "yellow"), (50, "orange"), (0, "red"))

#: Advance widths of Verdana 11px (the shields flat style's font) in pixels; other characters count as 7.
_WIDTHS = {
    **dict.fromkeys("0123456789", 7.0), " ": 3.9, "%": 12.0, ".": 3.9, ",": 3.9, ":": 4.7, "-": 4.8, "/": 4.9,
    "(": 4.7, ")": 4.7, "|": 5.0, "a": 6.7, "b": 6.9, "c": 5.8, "d": 6.9, "e": 6.7, "f": 3.9, "g": 6.9, "h": 7.0,
    "i": 3.0, "j": 3.8, "k": 6.5, "l": 3.0, "m": 10.7, "n": 7.0, "o": 6.7, "p": 6.9, "q": 6.9, "r": 4.7, "s": 5.7,
    "t": 4.3, "u": 7.0, "v": 6.5, "w": 9.0, "x": 6.5, "y": 6.5, "z": 5.8,
}
_PADDING = 10  # horizontal padding per half, 5 px each side


@dataclass(frozen=True, slots=True)
class _Badge:
    label: str
    message: str
    colour: str  # a key of COLOURS


def pass_counts(report: ReportLike) -> tuple[int, int]:
    """The cases that passed (or failed only as the baseline expects: xfailed) and the cases that ran (not
    skipped): the pass rate's numerator and denominator, for the badge and the Markdown report alike."""
    summary = as_report(report).summary
    return summary.passed + summary.xfailed, summary.cases - summary.skipped


def pass_percentage(report: ReportLike) -> float | None:
    """(passed + xfailed) / (cases - skipped) * 100, or None when no case ran."""
    ok, ran = pass_counts(report)
    return None if ran <= 0 else 100 * ok / ran


def _badge(report: Report) -> _Badge:
    ok, ran = pass_counts(report)
    if not report.complete:
        return _Badge(LABEL, "incomplete", "lightgrey")
    if report.summary.cases and not report.summary.judged:  # every case an error or skipped: the run exits 1
        return _Badge(LABEL, "nothing judged", "red")
    if ran <= 0:
        return _Badge(LABEL, "no cases", "lightgrey")
    shown = 100 * ok // ran  # in integers: 29 of 100 is 29%, not floor(28.999...)
    colour = next(name for threshold, name in _THRESHOLDS if shown >= threshold)
    return _Badge(LABEL, f"{shown}% pass", colour)


def badge_json(report: ReportLike) -> dict[str, Any]:
    """The shields.io endpoint badge: `{"schemaVersion": 1, "label", "message", "color"}`."""
    badge = _badge(as_report(report))
    return {"schemaVersion": 1, "label": badge.label, "message": badge.message, "color": badge.colour}


def _width(text: str) -> int:
    return math.ceil(sum(_WIDTHS.get(ch, 7.0) for ch in text)) + _PADDING


def badge_svg(report: ReportLike) -> str:
    """The badge as a standalone SVG document (flat style, 20 px high, with a `<title>` for screen readers)."""
    badge = _badge(as_report(report))
    left, right = _width(badge.label), _width(badge.message)
    total = left + right
    text = f"{badge.label}: {badge.message}"
    svg = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": str(total), "height": "20",
                             "role": "img", "aria-label": text})
    ET.SubElement(svg, "title").text = text
    gradient = ET.SubElement(svg, "linearGradient", {"id": "s", "x2": "0", "y2": "100%"})
    ET.SubElement(gradient, "stop", {"offset": "0", "stop-color": "#bbb", "stop-opacity": ".1"})
    ET.SubElement(gradient, "stop", {"offset": "1", "stop-opacity": ".1"})
    clip = ET.SubElement(svg, "clipPath", {"id": "r"})
    ET.SubElement(clip, "rect", {"width": str(total), "height": "20", "rx": "3", "fill": "#fff"})
    shapes = ET.SubElement(svg, "g", {"clip-path": "url(#r)"})
    ET.SubElement(shapes, "rect", {"width": str(left), "height": "20", "fill": "#555"})
    ET.SubElement(shapes, "rect", {"x": str(left), "width": str(right), "height": "20",
                                   "fill": COLOURS[badge.colour]})
    ET.SubElement(shapes, "rect", {"width": str(total), "height": "20", "fill": "url(#s)"})
    texts = ET.SubElement(svg, "g", {"fill": "#fff", "text-anchor": "middle", "font-size": "110",
                                     "font-family": "Verdana,Geneva,DejaVu Sans,sans-serif",
                                     "text-rendering": "geometricPrecision"})
    for offset, width, label in ((0, left, badge.label), (left, right, badge.message)):
        # Drawn at 10x and scaled down, as shields does, for sub-pixel placement; a shadow under each text.
        x, length = str((offset * 2 + width) * 5), str((width - _PADDING) * 10)
        for y, extra in (("150", {"fill": "#010101", "fill-opacity": ".3", "aria-hidden": "true"}), ("140", {})):
            ET.SubElement(texts, "text", {**extra, "x": x, "y": y, "transform": "scale(.1)",
                                          "textLength": length}).text = label
    return ET.tostring(svg, encoding="unicode") + "\n"
