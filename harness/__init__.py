"""callproof.harness: check tool-call streams against the rule catalogue.

The public API; everything else in this package is private and may change without notice.
"""

from __future__ import annotations

from ._credentials import credential_values, is_credential_name
from ._errors import CallproofError, InputError
from ._types import Dialect, JSONData, JSONValue
from ._version import __version__
from .catalogue import CATALOGUE, RULES, Evidence, Rule, RuleResult, Violation, rules_for
from .check import (
    CheckReport,
    FramingIssue,
    SSEEvent,
    SSEParser,
    StreamChecker,
    check_body,
    check_bytes,
    check_events,
    parse_sse,
)

__all__ = [
    "CATALOGUE",
    "CallproofError",
    "CheckReport",
    "Dialect",
    "Evidence",
    "FramingIssue",
    "InputError",
    "JSONData",
    "JSONValue",
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
    "credential_values",
    "is_credential_name",
    "parse_sse",
    "rules_for",
]
