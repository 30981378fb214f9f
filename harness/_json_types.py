"""The JSON value types (re-exported by harness/_types.py): their own module so that the dialect table, which
`_types` reads, can use them too."""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JSONData", "JSONObject", "JSONValue"]

#: Any value `json.loads` can return.
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
#: A decoded JSON object as the checkers see it (values are read defensively, never trusted).
JSONObject: TypeAlias = dict[str, Any]
#: A decoded JSON value read from outside (a request or response body, an event's payload, a scenario file, a
#: report): typed `Any` underneath, as `json.loads` types its result, because the readers check its shape as they
#: go (isinstance, `.get` with a default) rather than trust it. A value the harness builds is a `JSONValue`.
JSONData: TypeAlias = Any
