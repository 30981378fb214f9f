"""The capture import: a captured SSE stream or JSON body of any dialect (from curl, a bug report or `callproof
record`) read back into a scenario file that replays it (`callproof scenarios import`, docs/cli.md)."""

from __future__ import annotations

from ._import import Capture, import_capture, read_capture, request_match, scenario_file
from ._import_parse import STRUCTURE_READERS

__all__ = ["STRUCTURE_READERS", "Capture", "import_capture", "read_capture", "request_match", "scenario_file"]
