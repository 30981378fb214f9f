"""The hypothesis side of generation: `Draws` backed by hypothesis (which records the choices and shrinks them) and
the strategy of scenario entries."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from ._generate import CHARS, Draws, Json, gen_scenario

__all__ = ["HypothesisDraws", "scenario_documents"]

T = TypeVar("T")


@functools.cache
def _json_objects() -> SearchStrategy[Json]:
    def text(max_size: int) -> SearchStrategy[str]:
        return st.lists(st.sampled_from(CHARS), max_size=max_size).map("".join)

    scalars = st.one_of(text(10), st.integers(-(10**6), 10**6), st.booleans(), st.none(),
                        st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False))
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text(6), inner,
                                                                                               max_size=3),
                          max_leaves=5)
    return st.dictionaries(text(6), values, max_size=4)


class HypothesisDraws:
    """`Draws` from a hypothesis composite's `draw`."""

    def __init__(self, draw: DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))

    def text(self, max_size: int, *, min_size: int = 0, alphabet: str = CHARS) -> str:
        return "".join(self._draw(st.lists(st.sampled_from(alphabet), min_size=min_size, max_size=max_size)))

    def cuts(self, length: int, most: int) -> list[int]:
        return sorted(self._draw(st.sets(st.integers(1, length - 1), max_size=min(length - 1, most))))

    def json_object(self) -> Json:
        return self._draw(_json_objects())

    def items(self, build: Callable[[Draws], T], min_size: int, max_size: int) -> list[T]:
        @st.composite
        def one(draw: DrawFn) -> T:
            return build(HypothesisDraws(draw))

        return self._draw(st.lists(one(), min_size=min_size, max_size=max_size))


def scenario_documents(*, quirks: bool = True) -> SearchStrategy[Json]:
    """Scenario entries within schemas/scenario.schema.json, their `expect` derived from the output (`gen_scenario`);
    `quirks` adds missing call ids and the chat and Responses quirks."""
    @st.composite
    def scenarios(draw: DrawFn) -> Json:
        return gen_scenario(HypothesisDraws(draw), quirks=quirks)

    return scenarios()
