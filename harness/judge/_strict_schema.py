"""Schemas compared under the target dialect's strict normal form (docs/spec/schema-comparison.md §6).

An upstream's strict mode (Anthropic's structured outputs and strict tools; OpenAI's `strict: true` formats and
tools) takes a subset of JSON Schema, and a gateway may rewrite the front's schema into that subset on the way: the
official SDKs do it themselves before they send a schema (anthropic `lib/_parse/_transform.py` `transform_schema`,
openai `lib/_pydantic.py` `_ensure_strict_json_schema`). Those rewrites leave what the upstream enforces and what its
model is shown the same, so they are not differences. `strict_aligned` takes the front's schema to the upstream's
wherever the upstream made one of them, position by position, and nowhere else; the two are then compared as before
(`schema_difference`). Every other change stays a difference, and so does a rewrite made the other way (an
`additionalProperties: false` removed, a keyword moved out of a description).

The rewrites, per target:

- every strict target: an object schema (`type` `object`) without `additionalProperties` gets
  `additionalProperties: false` (a strict upstream takes no other object, and refuses one without it);
- Anthropic only, as its SDKs rewrite: a keyword its strict mode does not take (`minLength`, `maximum`, `pattern`, a
  format outside its list, `minItems` above 1, ...) moved into the schema's description as `{key: value, ...}` after
  a blank line (the value printed as the Python SDK prints it, or as JSON as the TypeScript SDK does); `oneOf`
  written `anyOf`; and `type` left out beside an `enum` or `const` whose values are all of that type.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from callproof.harness._types import JSONData
from callproof.harness.dialects import DIALECTS

from ._schema_meaning import _LIST, _MAP, _ONE, Difference, dereferenced, schema_difference

__all__ = ["StrictTarget", "compared_by", "strict_aligned", "strict_schema_difference", "strict_target"]

#: Whose strict mode a schema is sent to: Anthropic's, or OpenAI's (Responses and Chat Completions).
StrictTarget = Literal["anthropic", "openai"]

#: The string formats Anthropic's strict mode takes (anthropic `lib/_parse/_transform.py` SupportedStringFormats).
ANTHROPIC_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
                               "uuid"})
#: The keywords Anthropic's strict mode takes whatever their value (the ones `transform_schema` keeps); `enum`,
#: `const`, `format` and `minItems` are taken for some values only (`_anthropic_takes`).
_ANTHROPIC_KEYWORDS = frozenset({"$defs", "$ref", "type", "anyOf", "oneOf", "allOf", "description", "title",
                                 "properties", "additionalProperties", "required", "items"})
#: The JSON type each `type` name admits (a bool is no number).
_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def strict_target(dialect: str, *, strict: bool) -> StrictTarget | None:
    """The strict mode a schema sent to a `dialect` upstream falls under: Anthropic's structured output always
    (`strict` True), a tool or format marked `strict: true` in any dialect; None where no strict mode applies."""
    if not strict:
        return None
    return DIALECTS[dialect].strict_target


def compared_by(target: StrictTarget | None) -> str:
    """How a schema difference was found, for a message: by meaning, under the target's strict normal form if any."""
    if target is None:
        return "(schemas compared by meaning: docs/spec/schema-comparison.md)"
    who = {"anthropic": "Anthropic's", "openai": "OpenAI's"}[target]
    return f"(schemas compared by meaning, under {who} strict normal form: docs/spec/schema-comparison.md §6)"


def _primitive(value: JSONData) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _anthropic_takes(key: str, value: JSONData) -> bool:
    """Whether Anthropic's strict mode takes this keyword with this value (else its SDKs move it to the
    description)."""
    if key in _ANTHROPIC_KEYWORDS:
        return True
    if key == "enum":
        return isinstance(value, list) and bool(value) and all(_primitive(v) for v in value)
    if key == "const":
        return _primitive(value)
    if key == "format":
        return value in ANTHROPIC_FORMATS
    if key == "minItems":
        return not isinstance(value, bool) and value in (0, 1)
    return False


def _is_object(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def _printed(value: JSONData) -> tuple[str, ...]:
    """How the SDKs print a moved keyword's value: Python's `f"{value}"` and JavaScript's `JSON.stringify`."""
    return str(value), json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _moved(front: Mapping[str, Any], upstream: Mapping[str, Any]) -> dict[str, Any] | None:
    """`front` with the keywords the upstream's description now carries (in the SDKs' `{key: value, ...}` form)
    moved there as the upstream has them; None when the upstream moved none of the front's keywords that way."""
    keys = [k for k, v in front.items() if k not in upstream and not _anthropic_takes(k, v)]
    described = upstream.get("description")
    if not keys or not isinstance(described, str):
        return None
    before = front.get("description")
    if before is None:
        prefixes = [""]
    elif isinstance(before, str):  # an empty one: Python appends after "\n\n", TypeScript does not
        prefixes = [f"{before}\n\n"] if before else ["\n\n", ""]
    else:
        return None
    block = next((described[len(p):] for p in prefixes if described.startswith(p)), None)
    if block is None or not (block.startswith("{") and block.endswith("}")):
        return None
    inner = block[1:-1]
    starts = list(re.finditer(r"(?:^|, )(" + "|".join(re.escape(k) for k in keys) + "): ", inner))
    found = [m.group(1) for m in starts]
    if not starts or starts[0].start() != 0 or sorted(found) != sorted(keys):
        return None
    ends = [m.start() for m in starts[1:]] + [len(inner)]
    for match, end in zip(starts, ends, strict=True):
        if inner[match.end():end] not in _printed(front[match.group(1)]):
            return None
    return {**{k: v for k, v in front.items() if k not in keys}, "description": described}


def _type_implied(front: Mapping[str, Any], upstream: Mapping[str, Any]) -> bool:
    """Whether the upstream left out a `type` that the front's `enum` / `const` implies (every value of that type),
    keeping the values: the Python SDK drops `type` beside literals."""
    kind = front.get("type")
    if "type" in upstream or not isinstance(kind, str) or kind not in _TYPE_CHECKS:
        return False
    if "enum" in front and isinstance(front["enum"], list) and front["enum"]:
        values = list(front["enum"])
    elif "const" in front:
        values = [front["const"]]
    else:
        return False
    return all(_TYPE_CHECKS[kind](v) for v in values) and all(
        front.get(k) == upstream.get(k) for k in ("enum", "const") if k in front)


def _rewritten(front: Mapping[str, Any], upstream: Mapping[str, Any], target: StrictTarget) -> dict[str, Any]:
    """One subschema of the front with each rewrite the upstream made at the same place (module docstring)."""
    out = dict(front)
    if target == "anthropic":
        if "oneOf" in out and "anyOf" not in out and "anyOf" in upstream and "oneOf" not in upstream:
            out["anyOf"] = out.pop("oneOf")
        if _type_implied(out, upstream):
            del out["type"]
        moved = _moved(out, upstream)
        if moved is not None:
            out = moved
    if _is_object(out) and "additionalProperties" not in out and upstream.get("additionalProperties") is False:
        out["additionalProperties"] = False
    return out


def strict_aligned(front: JSONData, upstream: JSONData, target: StrictTarget) -> JSONData:
    """`front` (a schema, its refs inlined) with every rewrite into `target`'s strict normal form that `upstream`
    made, at the same positions; what the upstream did not rewrite, or changed otherwise, is left as the front
    has it, so that the comparison names it."""
    if not (isinstance(front, Mapping) and isinstance(upstream, Mapping)):
        return front
    out = _rewritten(front, upstream, target)
    for key, value in out.items():
        other = upstream.get(key)
        if key in _MAP and isinstance(value, Mapping) and isinstance(other, Mapping):
            out[key] = {name: strict_aligned(sub, other[name], target) if name in other else sub
                        for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list) and isinstance(other, list):
            out[key] = [strict_aligned(sub, other[i], target) if i < len(other) else sub
                        for i, sub in enumerate(value)]
        elif key in _ONE and key in upstream:
            out[key] = strict_aligned(value, other, target)
    return out


def strict_schema_difference(expected: JSONData, actual: JSONData, target: StrictTarget | None,
                             path: str = "$") -> Difference | None:
    """`schema_difference` under `target`'s strict normal form (None: none, the plain comparison): the front's
    schema `expected` is first given the rewrites into that form the upstream's `actual` made."""
    if target is None:
        return schema_difference(expected, actual, path)
    return schema_difference(strict_aligned(dereferenced(expected), dereferenced(actual), target), actual, path)
