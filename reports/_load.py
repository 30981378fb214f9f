"""`load_report`: a report file as its validated JSON (the renderers take it as it is, or the typed `Report` that
`callproof.harness.report_model.read_report` gives)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from callproof.harness.report_model import read_report

__all__ = ["load_report"]


def load_report(path: Path) -> dict[str, Any]:
    """The report at `path` (a `.json` report or the `.jsonl` report of a run, also one cut off mid-way) as its
    JSON, validated against schemas/report.schema.json: a JSON Lines report comes back rebuilt (cases sorted by id,
    the summary recomputed, `complete` false without the footer). Raises `ReportError` saying what is wrong, where.
    """
    return read_report(path).to_json()
