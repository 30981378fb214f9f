"""The report of a run: baselines of known failures (and, as a typed model, the report itself)."""

from __future__ import annotations

from ._baseline import Baseline, BaselineError, format_baseline, load_baseline

__all__ = [
    "Baseline",
    "BaselineError",
    "format_baseline",
    "load_baseline",
]
