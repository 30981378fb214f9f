"""Whether a command's output files and folders can be written, asked before the command does any work: each
answer is None or one line naming the flag, the path and why, with the fix. `callproof run` (through the run's
preflight, which the pytest plugin asks too) and every other command that writes (harness/cli/_outputs.py) ask
these two questions. A file's missing folder is created, as its writer would create it; an output folder is left as
it was found.

A user running as root writes anywhere the file system lets them: a folder they may not write to is found only
where the file system itself refuses (a read-only mount, /sys, /proc)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["folder_problem", "output_problem"]


def _blocked(flag: str, path: Path) -> str | None:
    """Why a folder cannot be made at or above `path`: an ancestor that exists and is not a folder."""
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is None:
        return None
    return f"{flag} {path}: {blocking} is a file, not a folder; choose another path"


def _make_folder(flag: str, path: Path, folder: Path) -> str | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"{flag} {path}: cannot create the folder {folder} ({exc.strerror or exc}); choose another path"
    return None


def output_problem(flag: str, path: Path) -> str | None:
    """Why the file `path` cannot be written (its folder is created, as the writers do), or None. Nothing is left
    behind but that folder: a file the check created is removed."""
    if path.is_dir():
        return f"{flag} {path} is a folder; name a file"
    problem = _blocked(flag, path) or _make_folder(flag, path, path.parent)
    if problem is not None:
        return problem
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
        if not os.access(path.parent, os.W_OK):  # the JSON report is replaced atomically from its folder
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        return f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose a writable path"
    finally:
        if not existed:
            with contextlib.suppress(OSError):
                path.unlink()
    return None


def folder_problem(flag: str, path: Path) -> str | None:
    """Why files cannot be written into the folder `path`, or None: a file is created in it and removed, and the
    folders the check had to create are removed too (a command writes into its folder only when it has something
    to write: `fuzz --out` a failure's scenario)."""
    if path.exists() and not path.is_dir():
        return f"{flag} {path} is a file; give a folder"
    missing = [p for p in (path, *path.parents) if not p.exists()]  # deepest first
    problem = _blocked(flag, path) or _make_folder(flag, path, path)
    try:
        if problem is None:
            with tempfile.NamedTemporaryFile(dir=path, prefix=".callproof-"):
                pass
    except OSError as exc:
        problem = f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose a writable folder"
    finally:
        for folder in missing:
            with contextlib.suppress(OSError):
                folder.rmdir()
    return problem
