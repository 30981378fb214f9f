"""The public surface of callproof.harness is exactly its sorted `__all__`."""

from __future__ import annotations

import callproof.harness as harness


def test_all_is_sorted_and_complete() -> None:
    assert list(harness.__all__) == sorted(harness.__all__)
    public = {name for name in vars(harness) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if type(getattr(harness, name)).__name__ == "module"}
    assert public - modules == set(harness.__all__) - {"__version__"}


def test_every_export_resolves() -> None:
    for name in harness.__all__:
        assert getattr(harness, name) is not None
