"""A fuzz session's inputs and results as values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from callproof.harness._errors import CallproofError
from callproof.harness.run import RunConfig

__all__ = ["FuzzError", "FuzzFailure", "FuzzOptions", "FuzzOutcome"]


class FuzzError(CallproofError):
    """hypothesis stopped the search (the command exits 2 with this message)."""


@dataclass(frozen=True, slots=True)
class FuzzOptions:
    """A fuzz session: the IUT and rules (`config`, as for `callproof run`), its bounds, its seed, where a failing
    scenario goes, and whether quirks are generated."""

    config: RunConfig
    max_examples: int = 100
    seconds: float = 60.0
    seed: int = 0
    out: Path = Path()
    quirks: bool = True


@dataclass(frozen=True, slots=True)
class FuzzFailure:
    """The failure of one scenario: the first failed MUST rule (or `error`: the IUT did not answer) in case order."""

    rule: str
    message: str
    case: str
    scenario: Mapping[str, Any]
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FuzzOutcome:
    """`examples` generated (until the first failure, if any); `found_after` seconds to the first failure;
    `failure` is the shrunk one (`replayed`: it failed again when hypothesis replayed it)."""

    examples: int
    seconds: float
    seed: int
    failure: FuzzFailure | None = None
    found_after: float = 0.0
    shrink_runs: int = 0
    replayed: bool = True
