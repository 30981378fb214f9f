"""The one check every command that writes makes before it does any work: each output file (`-o`, `--report`,
`--md`, `--journal`, ...) and output folder (`--out`) it was given can be written, else one line on standard error
naming the flag, the path and why, and exit 2 (docs/cli.md#output-paths). The questions themselves are the run's
preflight's too (callproof.harness._outputs)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from itertools import chain
from pathlib import Path

from callproof.harness._outputs import folder_problem, output_problem

from ._exit import ExitCode

__all__ = ["refuse_outputs"]


def refuse_outputs(command: str, files: Iterable[tuple[str, Path | None]] = (),
                   folders: Iterable[tuple[str, Path | None]] = ()) -> ExitCode | None:
    """`ExitCode.USAGE`, once the first output of `command` (by flag; None: not given) that cannot be written is
    named in one line on standard error; None when every one can be."""
    asked = chain(((output_problem, flag, path) for flag, path in files),
                  ((folder_problem, flag, path) for flag, path in folders))
    problem = next((p for check, flag, path in asked if path is not None and (p := check(flag, path))), None)
    if problem is None:
        return None
    print(f"callproof {command}: {problem}", file=sys.stderr)
    return ExitCode.USAGE
