"""The transport table: every `TransportSpec` row, looked up by name, and the CLI's choices read from it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from ._transport_spec import TransportSpec
from .http import HTTP
from .websocket import WEBSOCKET

__all__ = ["DEFAULT_TRANSPORT", "TRANSPORTS", "TransportChoices", "own_prefixes", "transport", "transport_names"]

#: The transport of a run that names none (`--client-transport`, `--front-transport`, `--upstream-transport`).
DEFAULT_TRANSPORT = "http"

#: Every transport, the default first. A row is one module beside http.py (tests/harness/transports swaps in a copy
#: with one more row and sees every consumer pick it up).
TRANSPORTS: list[TransportSpec] = [HTTP, WEBSOCKET]


def transport(name: str) -> TransportSpec:
    """The row named `name` (or whose `capture_name` it is). Raises KeyError naming the transports there are."""
    for spec in TRANSPORTS:
        if name in (spec.name, spec.capture_name):
            return spec
    raise KeyError(f"no transport {name!r}; the transports are {', '.join(transport_names())}")


def own_prefixes() -> tuple[str, ...]:
    """The prefixes of the rules each transport has of its own (judged over it alone)."""
    return tuple(spec.rule_prefix for spec in TRANSPORTS if spec.rule_prefix is not None)


def transport_names() -> tuple[str, ...]:
    """Every transport's name, in table order."""
    return tuple(spec.name for spec in TRANSPORTS)


class TransportChoices(Sequence[str]):
    """The choices of a transport option, read from `TRANSPORTS` whenever they are read (argparse's `choices` and
    its --help, a config check): a row added to the table is a choice everywhere. `capture`: the spellings of
    `callproof check --transport` (`auto` first)."""

    def __init__(self, *, capture: bool = False) -> None:
        self._capture = capture

    def _names(self) -> tuple[str, ...]:
        if self._capture:
            return ("auto", *(spec.capture_name for spec in TRANSPORTS))
        return transport_names()

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __repr__(self) -> str:
        return repr(self._names())
