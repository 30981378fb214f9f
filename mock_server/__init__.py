"""callproof.mock_server: the scripted mock upstream (scenarios, dialect renderers, faults, server)."""

from __future__ import annotations
