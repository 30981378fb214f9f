"""The dialect table: one `DialectSpec` row per wire dialect, one module per dialect (docs/spec/dialects.md).

Every consumer reads `DIALECTS` (CLI choices, option validation, schema loading, mock routes, planning, judging,
reports, docs); parts on a higher floor are bound to a row by its name in one table per floor (`check`'s
CHECKERS, `outcome`'s readers, `request`'s builders, the mock's RENDERERS), each tested against this table.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

from ._json import flat, text_of
from ._spec import Body, Dialect, DialectSpec, Entry, ToolEntry, ToolRead
from .anthropic import ANTHROPIC
from .chat import CHAT
from .responses import RESPONSES

__all__ = ["DIALECTS", "Body", "Column", "Dialect", "DialectSpec", "Entry", "ToolEntry", "ToolRead", "flat", "spec",
           "text_of"]

#: The dialect table, in the order the CLI, the plan and the docs list them. A plain dict: the throwaway-dialect
#: test (tests/harness/dialects/test_throwaway.py) adds a row to it for its duration.
DIALECTS: Mapping[str, DialectSpec] = {row.name: row for row in (RESPONSES, CHAT, ANTHROPIC)}


def spec(name: str) -> DialectSpec:
    """The row of dialect `name` (a KeyError names the known dialects)."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a dialect; use one of {', '.join(DIALECTS)}") from None


_T = TypeVar("_T")


class Column(Mapping[str, _T], Generic[_T]):
    """One field of every row, by dialect name, read live (a row added to `DIALECTS` shows here): a consumer that
    wants a mapping (`FRONT_PATHS`, `ERROR_SHAPES`) keeps no list of its own."""

    __slots__ = ("_field",)

    def __init__(self, field: str) -> None:
        self._field = field

    def __getitem__(self, name: str) -> _T:
        value: _T = getattr(DIALECTS[name], self._field)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(DIALECTS)

    def __len__(self) -> int:
        return len(DIALECTS)
