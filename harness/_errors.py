"""Errors callproof raises, along the life of a check.

read the input (`InputError`: empty, binary, too large, unreadable) -> parse SSE and decode JSON
(never raised: reported as framing rules SSE-*) -> validate and check the stream (never raised: reported
as rule violations). Only problems that stop a check from starting are exceptions; everything wrong with
the stream itself is evidence in the report.
"""

from __future__ import annotations

__all__ = ["CallproofError", "InputError"]


class CallproofError(Exception):
    """Base of every error callproof raises; the message says what, where and how to fix it."""


class InputError(CallproofError):
    """The input cannot be checked at all (the CLI exits 2 with this message)."""
