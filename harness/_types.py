"""Type aliases shared across the harness; the dialect names and columns are reads of the dialect table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from callproof.harness.dialects import DIALECTS, Column, Dialect

__all__ = ["DIALECTS", "DIALECT_NAMES", "FRONT_PATHS", "Dialect", "JSONData", "JSONObject", "JSONValue"]


#: Where each dialect is served, under an API's /v1 (a gateway's front; the mock serves them under any prefix).
FRONT_PATHS: Mapping[str, str] = Column("front_path")
#: How messages name each dialect.
DIALECT_NAMES: Mapping[str, str] = Column("display")

#: Any value `json.loads` can return.
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
#: A decoded JSON object as the checkers see it (values are read defensively, never trusted).
JSONObject: TypeAlias = dict[str, Any]
#: A decoded JSON value read from outside (a request or response body, an event's payload, a scenario file, a
#: report): typed `Any` underneath, as `json.loads` types its result, because the readers check its shape as they
#: go (isinstance, `.get` with a default) rather than trust it. A value the harness builds is a `JSONValue`.
JSONData: TypeAlias = Any
