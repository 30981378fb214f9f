"""A gateway's own venv (out/interop-gateways/venvs/<name>, never the project's .venv): created with `python -m
venv`, its pinned requirements installed with pip, the installed version checked against the data file. A stamp
file holds what was installed, so a second run installs nothing unless the pins changed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ._spec import Gateway

__all__ = ["InstallError", "ensure", "installed_version"]

_STAMP = ".callproof-installed"


class InstallError(RuntimeError):
    """A venv that could not be created or filled; the message is one line naming the gateway and the fix."""


def _last_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("WARNING")]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["(no output)"])[-1]


def installed_version(venv: Path, distribution: str) -> str | None:
    """The version of `distribution` in the venv, or None when the venv or the distribution is missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    done = subprocess.run(
        [str(python), "-c", "import sys, importlib.metadata as m; print(m.version(sys.argv[1]))", distribution],
        capture_output=True, text=True, timeout=120, check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure(gateway: Gateway, venv: Path, *, timeout: float = 1800.0) -> str:
    """Install the gateway's pins into `venv` unless its stamp says they are there; return the installed version.
    Raises `InstallError` on a failed step or a version other than the pinned one."""
    stamp = venv / _STAMP
    wanted = json.dumps(list(gateway.pip))
    if not gateway.pip:
        return installed_version(venv, gateway.distribution) or gateway.version
    if not (stamp.exists() and stamp.read_text(encoding="utf-8") == wanted):
        steps = ([] if (venv / "bin" / "python").exists() else [[sys.executable, "-m", "venv", str(venv)]]) + [
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             *gateway.pip]]
        for step in steps:
            try:
                done = subprocess.run(step, capture_output=True, text=True, timeout=timeout, check=False)
            except subprocess.TimeoutExpired:
                raise InstallError(f"{gateway.name}: `{' '.join(step[-3:])}` took over {timeout:.0f} s; is the "
                                   "package index reachable?") from None
            if done.returncode != 0:
                cause = _last_error(done.stderr + done.stdout)
                network = any(w in cause.lower() for w in ("connection", "resolve", "network", "no matching"))
                hint = (" (no network, or the index lacks the pin: pip needs a package index that has it)"
                        if network else "")
                raise InstallError(f"{gateway.name}: install of {' '.join(gateway.pip)} into {venv} failed "
                                   f"(exit {done.returncode}): {cause}{hint}")
        stamp.write_text(wanted, encoding="utf-8")
    version = installed_version(venv, gateway.distribution)
    if version != gateway.version:
        raise InstallError(f"{gateway.name}: {gateway.distribution} {version} is installed in {venv}, the data file "
                           f"pins {gateway.version}; delete the venv or fix the pin")
    return version
