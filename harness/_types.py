"""Type aliases shared across the harness."""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JSONObject", "JSONValue"]

#: Any value `json.loads` can return.
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
#: A decoded JSON object as the checkers see it (values are read defensively, never trusted).
JSONObject: TypeAlias = dict[str, Any]
