"""The report of a run: the typed model (`Report`, `Case`, `RuleOutcome`, `Evidence`) with its JSON and JSON Lines
files (schemas/report.schema.json), and baselines of known failures."""

from __future__ import annotations

from ._baseline import Baseline, BaselineError, format_baseline, load_baseline, stale_entries
from ._files import read_report, write_jsonl_case, write_jsonl_footer, write_jsonl_header, write_report
from ._merge import merge_reports
from ._model import (
    ABSENT,
    OUTCOMES,
    REPORT_FORMAT,
    Absent,
    BaselineMark,
    Case,
    CaseOutcome,
    Level,
    Platform,
    Report,
    ReportEvidence,
    ReportViolation,
    RuleOutcome,
    Summary,
    Target,
    TimelineEvent,
    nothing_judged,
)
from ._shard import MergeError, Shard, unsharded_command
from ._tally import TALLIES, Tally, tally, tally_line
from ._validate import ReportError

#: The report's evidence of a violation (named apart from the catalogue's `Evidence`, which the checkers produce).
Evidence = ReportEvidence

__all__ = [
    "ABSENT",
    "OUTCOMES",
    "REPORT_FORMAT",
    "TALLIES",
    "Absent",
    "Baseline",
    "BaselineError",
    "BaselineMark",
    "Case",
    "CaseOutcome",
    "Evidence",
    "Level",
    "MergeError",
    "Platform",
    "Report",
    "ReportError",
    "ReportEvidence",
    "ReportViolation",
    "RuleOutcome",
    "Shard",
    "Summary",
    "Tally",
    "Target",
    "TimelineEvent",
    "format_baseline",
    "load_baseline",
    "merge_reports",
    "nothing_judged",
    "read_report",
    "stale_entries",
    "tally",
    "tally_line",
    "unsharded_command",
    "write_jsonl_case",
    "write_jsonl_footer",
    "write_jsonl_header",
    "write_report",
]
