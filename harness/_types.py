"""Type aliases shared across the harness."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, get_args

__all__ = ["DIALECTS", "DIALECT_NAMES", "FRONT_PATHS", "Dialect", "JSONData", "JSONObject", "JSONValue"]

#: The three wire dialects callproof speaks, on either side of a gateway.
Dialect: TypeAlias = Literal["responses", "chat", "anthropic"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
#: Where each dialect is served, under an API's /v1 (a gateway's front; the mock serves them under any prefix).
FRONT_PATHS: dict[Dialect, str] = {
    "responses": "/v1/responses", "chat": "/v1/chat/completions", "anthropic": "/v1/messages",
}
#: How messages name each dialect.
DIALECT_NAMES: dict[Dialect, str] = {
    "responses": "Responses", "chat": "Chat Completions", "anthropic": "Anthropic Messages",
}

#: Any value `json.loads` can return.
JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
#: A decoded JSON object as the checkers see it (values are read defensively, never trusted).
JSONObject: TypeAlias = dict[str, Any]
#: A decoded JSON value read from outside (a request or response body, an event's payload, a scenario file, a
#: report): typed `Any` underneath, as `json.loads` types its result, because the readers check its shape as they
#: go (isinstance, `.get` with a default) rather than trust it. A value the harness builds is a `JSONValue`.
JSONData: TypeAlias = Any
