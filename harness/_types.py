"""Type aliases shared across the harness; the dialect names and columns are reads of the dialect table."""

from __future__ import annotations

from collections.abc import Mapping

from callproof.harness.dialects import DIALECTS, Column, Dialect

from ._json_types import JSONData, JSONObject, JSONValue

__all__ = ["DIALECTS", "DIALECT_NAMES", "FRONT_PATHS", "Dialect", "JSONData", "JSONObject", "JSONValue"]


#: Where each dialect is served, under an API's /v1 (a gateway's front; the mock serves them under any prefix).
FRONT_PATHS: Mapping[str, str] = Column[str]("front_path")
#: How messages name each dialect.
DIALECT_NAMES: Mapping[str, str] = Column[str]("display")
