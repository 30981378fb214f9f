"""Small readers of decoded JSON the dialect rows share."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from callproof.harness._json_types import JSONData

__all__ = ["arguments", "flat", "output_text", "text_of"]


def text_of(content: JSONData) -> str:
    """The text of a message content: a string, or text parts / blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def output_text(value: JSONData) -> str | None:
    """A tool output's text: a string, or the texts of its parts joined (None: another shape)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(str(p.get("text", "")) for p in value if isinstance(p, Mapping))
    return None


def arguments(text: JSONData) -> JSONData:
    """A call's arguments: the JSON value a string holds, else the value as given."""
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def flat(usage: Mapping[str, Any]) -> dict[str, Any]:
    """A usage object with nested objects' fields as `outer.inner`."""
    out: dict[str, Any] = {}
    for key, value in usage.items():
        if isinstance(value, Mapping):
            out.update({f"{key}.{inner}": v for inner, v in value.items()})
        else:
            out[key] = value
    return out
