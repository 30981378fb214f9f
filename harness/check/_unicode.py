"""Lone UTF-16 surrogates: `"\\ud83d"` without its pair is valid JSON syntax but no Unicode text, and no UTF-8
writer (nor the schema validator) can encode what it decodes to. Such text is evidence: it is kept, escaped."""

from __future__ import annotations

import json
import re

import orjson

from callproof.harness._types import JSONData

__all__ = ["escape_surrogates", "loads_json"]

#: A surrogate code point in a Python string: what a JSON escape of a lone surrogate decodes to.
_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(value: JSONData) -> JSONData:
    """`value` (JSON-like) with every lone surrogate written as its escape, six characters (`\\ud83d`); anything
    without one comes back as it is."""
    if isinstance(value, str):
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    if isinstance(value, dict):
        return {escape_surrogates(k): escape_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_surrogates(v) for v in value]
    return value


def loads_json(text: str | bytes) -> JSONData:
    """`json.loads`, with lone surrogates escaped (only a text holding a `\\u` escape can produce one).

    Text without a `\\u` escape is decoded by orjson first (a third of json.loads' time on event payloads,
    bench/results.md); what orjson refuses (NaN and Infinity, which json.loads accepts, and every syntax error)
    is decoded by json.loads, so the values and the error messages are json.loads' own, with one difference:
    integers beyond 64 bits become floats, as JavaScript clients read them too."""
    escaped = b"\\u" in text if isinstance(text, bytes) else "\\u" in text
    if not escaped:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    value = json.loads(text)
    return escape_surrogates(value) if escaped else value
