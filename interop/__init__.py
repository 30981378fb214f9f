"""Real gateways under callproof: `python -m interop.gateways` (`make interop-gateways`) installs each gateway of
interop/gateways.json at its pinned release into a venv of its own, runs the callproof suite against every front x
upstream mode it serves, and writes the reports and the generated section of docs/interop.md. Not part of the
installed package: a repository tool, like bench/."""

from __future__ import annotations

__all__: list[str] = []
