"""The bundled suite's progress line on a terminal: cases done of the total, failed, errors, elapsed time and an
estimate of the time left, rewritten in place on standard error as cases finish (pytest's per-case letters are left
out meanwhile). Quiet when standard output or standard error is not a terminal (CI logs, pipes, pytester)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

__all__ = ["Progress", "isatty", "progress_line"]


def isatty() -> bool:
    """Whether both standard output and standard error are terminals (tests force it by replacing this)."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdout, sys.stderr))


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_line(done: int, total: int, failed: int, errors: int, elapsed: float) -> str:
    """`callproof: 120/996 cases, 3 failed, 1 error, 0:42 elapsed, ETA 5:06` (no ETA before the first case)."""
    eta = f", ETA {_clock(elapsed / done * (total - done))}" if done and total >= done else ""
    return (f"callproof: {done}/{total or '?'} cases, {failed} failed, {errors} error{'' if errors == 1 else 's'}, "
            f"{_clock(elapsed)} elapsed{eta}")


@dataclass
class Progress:
    """The progress line of one run; `active` only on a terminal."""

    active: bool
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    total: int = 0
    done: int = 0
    failed: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)
    _shown: bool = False

    def count(self, word: str) -> None:
        """A case finished, counted as `word` (`callproof.harness.report_model.tally`: `failed` only when a MUST rule
        failed); the line is rewritten."""
        self.done += 1
        self.failed += word == "failed"
        self.errors += word == "error"
        self.show()

    def show(self) -> None:
        if not self.active:
            return
        line = progress_line(self.done, self.total, self.failed, self.errors, time.monotonic() - self.started)
        self.stream.write(f"\r\x1b[2K{line}")
        self.stream.flush()
        self._shown = True

    def clear(self) -> None:
        """Erase the line (before pytest's summary is written)."""
        if self._shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._shown = False
