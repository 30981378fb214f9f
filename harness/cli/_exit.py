"""The exit codes of every `callproof` command (docs/cli.md#exit-codes)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """What a `callproof` command's exit status means."""

    #: conformant (or nothing newly failing, or no failure found)
    OK = 0
    #: a MUST rule failed, a case could not be judged or none was, a case newly fails, a fuzz failure was found
    FAILED = 1
    #: usage or setup error, reported in one line on standard error
    USAGE = 2
    #: interrupted by SIGINT (Ctrl-C) or SIGTERM; `run` still writes its reports, marked incomplete
    INTERRUPTED = 3
