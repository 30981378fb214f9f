"""The public surface of callproof.mock_server is exactly its sorted `__all__`."""

from __future__ import annotations

import callproof.mock_server as mock_server


def test_all_is_sorted_and_complete() -> None:
    assert list(mock_server.__all__) == sorted(mock_server.__all__)
    public = {name for name in vars(mock_server) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if type(getattr(mock_server, name)).__name__ == "module"}
    assert public - modules == set(mock_server.__all__)
