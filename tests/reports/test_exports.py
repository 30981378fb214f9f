"""The public surface of callproof.reports is exactly its sorted `__all__`."""

from __future__ import annotations

import callproof.reports as reports


def test_all_is_sorted_and_complete() -> None:
    assert list(reports.__all__) == sorted(reports.__all__)
    public = {name for name in vars(reports) if not name.startswith("_")} - {"annotations"}
    modules = {name for name in public if type(getattr(reports, name)).__name__ == "module"}
    assert public - modules == set(reports.__all__)
