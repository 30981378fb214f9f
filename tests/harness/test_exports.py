"""The public surface of callproof.harness is exactly its sorted `__all__`: every name in it is bound in the package
and every public name bound in the package (but its subpackages) is in it."""

from __future__ import annotations

import callproof.harness as harness


def test_all_is_sorted_and_complete() -> None:
    assert list(harness.__all__) == sorted(harness.__all__)
    public = {name for name in vars(harness) if not name.startswith("_") or name == "__version__"} - {"annotations"}
    modules = {name for name in public if type(getattr(harness, name)).__name__ == "module"}
    assert public - modules == set(harness.__all__)
