"""The capture import: a captured SSE stream or JSON body of any dialect (from curl, a bug report or `callproof
record`) read back into a scenario file that replays it (`callproof scenarios import`, docs/cli.md)."""

from __future__ import annotations

from ._import import Capture, import_capture, read_capture, request_match, scenario_file

__all__ = ["Capture", "import_capture", "read_capture", "request_match", "scenario_file"]
