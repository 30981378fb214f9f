"""Real gateways under callproof: `python -m interop.gateways` (`make interop-gateways`) installs each gateway of
interop/gateways.json at its pinned release into a venv of its own, runs the callproof suite against every front x
upstream mode it serves, and writes the reports and the generated section of docs/interop.md. Not part of the
installed package: a repository tool, like bench/."""

from __future__ import annotations

from ._docs import BEGIN, END, Entry, read_baseline, render, update_docs
from ._install import InstallError, ensure, installed_version
from ._launch import OFFLINE_ENV, Launch, prepare
from ._mode_run import ModeResult, Paths, command, run_mode, stop_all, verdicts
from ._spec import DATA, SCHEMA, Gateway, Mode, SpecError, Unsupported, load
from ._template import PLACEHOLDERS, fill

__all__ = [
    "BEGIN", "DATA", "END", "Entry", "Gateway", "InstallError", "Launch", "Mode", "ModeResult", "OFFLINE_ENV",
    "PLACEHOLDERS", "Paths", "SCHEMA", "SpecError", "Unsupported", "command", "ensure", "fill", "installed_version",
    "load", "prepare", "read_baseline", "render", "run_mode", "stop_all", "update_docs", "verdicts",
]
