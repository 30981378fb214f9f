"""`callproof fuzz`: hypothesis-generated scenarios run against the IUT, a failure shrunk to a minimal scenario."""

from __future__ import annotations

from ._fuzz import FuzzOptions, FuzzOutcome, add_fuzz_parser, fuzz, fuzz_command

__all__ = [
    "FuzzOptions",
    "FuzzOutcome",
    "add_fuzz_parser",
    "fuzz",
    "fuzz_command",
]
