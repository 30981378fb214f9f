"""A fresh venv for the tests that install callproof as a user would (tests/test_packaging.py, tests/test_action.py):
`python -m venv`, but with pip copied from this interpreter's instead of installed by ensurepip (5 CPU-s a venv: it
unpacks and byte-compiles pip's wheel), and `PIP_NO_COMPILE` for the installs into it (pip byte-compiles every module
it installs; an interpreter compiles what it imports). What the venv holds besides pip is what the test installs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pip

__all__ = ["PIP_ENV", "fresh_venv"]

#: The environment of the installs into a fresh venv: pip does not byte-compile what it installs.
PIP_ENV = {"PIP_NO_COMPILE": "1"}


def fresh_venv(path: Path) -> Path:
    """A new venv at `path` with pip importable in it (`python -m pip`); returns its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, capture_output=True)
    python = path / "bin" / "python"
    done = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True)
    shutil.copytree(Path(pip.__file__).parent, Path(done.stdout.strip()) / "pip",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return path / "bin"
