"""Type aliases shared across the harness."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, get_args

__all__ = ["DIALECTS", "Dialect", "JSONObject", "JSONValue"]

#: The three wire dialects callproof speaks, on either side of a gateway.
Dialect: TypeAlias = Literal["responses", "chat", "anthropic"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)

#: Any value `json.loads` can return.
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
#: A decoded JSON object as the checkers see it (values are read defensively, never trusted).
JSONObject: TypeAlias = dict[str, Any]
