"""The `[callproof:...]` markers, written and read in one place (docs/spec/contracts.md §3): the harness puts
`[callproof:scenario=<id>] [callproof:case=<tag>]` in the first user message of every request it sends; the mock
selects the scenario by the first, ties each upstream request to its front request by the second, and a `match`
block reads the user text without either.

Each reader keeps the syntax its caller has always accepted: a scenario id is any run of characters but `]` and
whitespace; a case tag only letters, digits and `_.:-` (the tags the harness writes are uuid4 hex); stripping takes
any lower-case key, an empty value included, with the whitespace before it.
"""

from __future__ import annotations

import re

__all__ = ["case_marker", "markers", "scenario_marker", "strip_markers"]

_SCENARIO = re.compile(r"\[callproof:scenario=([^\]\s]+)\]")
_CASE = re.compile(r"\[callproof:case=([A-Za-z0-9_.:-]+)\]")
_ANY = re.compile(r"\s*\[callproof:[a-z]+=[^\]\s]*\]")


def markers(scenario: str, case: str) -> str:
    """The text that selects `scenario` in the mock and ties the upstream request to case `case`."""
    return f"[callproof:scenario={scenario}] [callproof:case={case}]"


def scenario_marker(text: str) -> str | None:
    """The scenario id of the first `[callproof:scenario=<id>]` marker in `text`, or None."""
    match = _SCENARIO.search(text)
    return match.group(1) if match else None


def case_marker(text: str) -> str | None:
    """The case tag of the first `[callproof:case=<tag>]` marker in `text`, or None."""
    match = _CASE.search(text)
    return match.group(1) if match else None


def strip_markers(text: str) -> str:
    """`text` without callproof markers ([callproof:scenario=...], [callproof:case=...]), trimmed."""
    return _ANY.sub("", text).strip()
