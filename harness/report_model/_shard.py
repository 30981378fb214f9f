"""Shards of a run as the report records them (`--shard I/N`: the report's `shard`) and the command line of the
unsharded run; `_merge` joins the reports of every shard (docs/ci.md#shards)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness._errors import CallproofError
from callproof.harness._types import JSONValue

__all__ = ["MergeError", "Shard", "unsharded_command"]


class MergeError(CallproofError):
    """The reports do not make one run (`callproof report --merge` exits 2 with this message)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard `index` of `count` (1-based). `selection` is a digest of what chose the slice besides the shard (the
    run's options, `-k`, the durations that balanced it): the shards of one run share it."""

    index: int
    count: int
    selection: str = ""

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Shard:
        return cls(data["index"], data["count"], data.get("selection", ""))

    def to_json(self) -> dict[str, JSONValue]:
        return {"index": self.index, "count": self.count, "selection": self.selection}


#: The flags that choose the shard (with their value), left out of the merged report's command.
_SHARD_FLAGS = ("--shard", "--callproof-shard")


def unsharded_command(command: Sequence[str]) -> tuple[str, ...]:
    """A shard's command line without its `--shard I/N` (or `--callproof-shard`), as the whole run's."""
    out: list[str] = []
    skip = False
    for arg in command:
        if skip:
            skip = False
            continue
        if arg in _SHARD_FLAGS:
            skip = True
            continue
        if arg.partition("=")[0] in _SHARD_FLAGS and "=" in arg:
            continue
        out.append(arg)
    return tuple(out)
