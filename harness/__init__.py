"""callproof.harness: check tool-call streams against the rule catalogue.

The public API; everything else in this package is private and may change without notice.
"""

from __future__ import annotations

from ._errors import CallproofError, InputError
from ._version import __version__
from .catalogue._catalogue import CATALOGUE, RULES, rules_for
from .catalogue._rule import Evidence, Rule, RuleResult, Violation
from .check._check import CheckReport, StreamChecker, check_body, check_bytes, check_events
from .check._sse import FramingIssue, SSEEvent, SSEParser, parse_sse

__all__ = [
    "CATALOGUE",
    "CallproofError",
    "CheckReport",
    "Evidence",
    "FramingIssue",
    "InputError",
    "RULES",
    "Rule",
    "RuleResult",
    "SSEEvent",
    "SSEParser",
    "StreamChecker",
    "Violation",
    "__version__",
    "check_body",
    "check_bytes",
    "check_events",
    "parse_sse",
    "rules_for",
]
