"""JSON Schemas and JSON values compared by what a model or a validator sees (docs/spec/schema-comparison.md).

`schema_normal_form` rewrites a JSON Schema into its normal form: empty `$defs`, `definitions`, `properties`,
`patternProperties`, `dependentSchemas` and an empty `required` dropped, `required` a set, `type` a set (a lone
type the same as a list of one), every number an exact value (1 and 1.0 the same JSON number), and each subschema
normalised in place. Keywords are only read at schema positions: under `properties`, `$defs`, `definitions`,
`patternProperties` and `dependentSchemas` the keys are names (a property named `title`, `required` or `$ref` is a
property, never a keyword), and the values of `const`, `enum`, `default` and `examples` are data, compared as JSON.

`schema_difference` compares two schemas in normal form and returns the first real difference (a JSON path from
`$`, both values) or None; `json_difference` does the same for plain JSON values (tool-call arguments, formats):
key order never matters, list order always does, numbers compare by value and `true` is never `1`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short

__all__ = ["ABSENT", "Difference", "json_difference", "schema_difference", "schema_normal_form"]

#: Keywords whose value is one subschema.
_ONE = frozenset({"additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                  "unevaluatedProperties", "unevaluatedItems", "additionalItems", "items", "contentSchema"})
#: Keywords whose value is a list of subschemas, in order (`items` as a list: draft 4-2019 tuple form).
_LIST = frozenset({"prefixItems", "anyOf", "oneOf", "allOf", "items"})
#: Keywords whose value maps names (never keywords) to subschemas.
_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
#: Keywords whose value is a set of strings: order and repetition carry nothing.
_SET = frozenset({"required", "type"})
#: Keywords that say nothing when empty: a schema with `"required": []` or `"$defs": {}` is the schema without them.
_EMPTY_MEANS_ABSENT = frozenset({"required", "$defs", "definitions", "properties", "patternProperties",
                                 "dependentSchemas"})

_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


class _Absent:
    """The value of a key that one side does not have."""

    def __repr__(self) -> str:
        return "ABSENT"


#: What `Difference.expected` / `.actual` hold for a key one side does not have.
ABSENT: Any = _Absent()


@dataclass(frozen=True)
class Difference:
    """The first real difference: where (a JSON path from `$`) and the two values there as JSON, in normal form
    (sets as sorted lists; `ABSENT`: that side has no such key)."""

    path: str
    expected: Any
    actual: Any

    def evidence(self, base: str) -> Evidence:
        """Evidence at `base` (the compared value's path, e.g. `upstream request $.tools[0].parameters`) followed
        by this difference's path; ABSENT shown as null."""
        return Evidence(path=base + self.path.removeprefix("$"), expected=_shown(self.expected),
                        actual=_shown(self.actual))

    def says(self) -> str:
        """`$.properties.title: absent upstream, expected {"type": ["string"]}`, for a message."""
        return f"{self.path}: {_said(self.actual)} upstream, expected {_said(self.expected)}"


def _shown(side: Any) -> JSONValue:
    return None if side is ABSENT else side


def _said(side: Any) -> str:
    return "absent" if side is ABSENT else short(side)


def _number(value: int | float) -> int | float:
    """A JSON number by value: 1, 1.0 and 1e0 the same (an integral float becomes an int)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _json(value: Any) -> Any:
    """A JSON value in comparable form: numbers exact (never a bool), objects as dicts, arrays as tuples."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_json(v) for v in value)
    return value


def _plain(value: Any) -> JSONValue:
    """A comparable value back as JSON (evidence): tuples and sets as lists."""
    if value is ABSENT:
        return value  # type: ignore[no-any-return]
    if isinstance(value, frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value  # type: ignore[no-any-return]


def schema_normal_form(schema: Any) -> Any:
    """`schema` as a model or validator sees it (module docstring): comparable with ==; `_plain` turns it back."""
    if not isinstance(schema, Mapping):
        return _json(schema)  # a boolean schema, or not a schema at all: compared as JSON
    out: dict[str, Any] = {}
    for key, value in schema.items():
        key = str(key)
        if key in _EMPTY_MEANS_ABSENT and not value and isinstance(value, list if key == "required" else Mapping):
            continue
        if key in _MAP and isinstance(value, Mapping):
            out[key] = {str(name): schema_normal_form(sub) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = tuple(schema_normal_form(sub) for sub in value)
        elif key in _ONE:
            out[key] = schema_normal_form(value)
        elif key in _SET and isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[key] = frozenset(value)
        elif key == "type" and isinstance(value, str):
            out[key] = frozenset({value})
        else:
            out[key] = _json(value)
    return out


def _step(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _NAME.match(key) else f"{path}[{key!r}]"


def _first(expected: Any, actual: Any, path: str) -> Difference | None:
    """The first difference of two comparable values, keys in sorted order, list items in order."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            found = _first(expected.get(key, ABSENT), actual.get(key, ABSENT), _step(path, key))
            if found is not None:
                return found
        return None
    if isinstance(expected, tuple) and isinstance(actual, tuple) and len(expected) == len(actual):
        for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
            found = _first(one, other, _step(path, index))
            if found is not None:
                return found
        return None
    if type(expected) is not type(actual) or expected != actual:  # bool vs int: True == 1 in Python, not in JSON
        return Difference(path, _plain(expected), _plain(actual))
    return None


def _empty(key: str) -> Any:
    """What a keyword that says nothing when empty stands for when absent."""
    return frozenset() if key == "required" else {}


def _schema_first(expected: Any, actual: Any, path: str) -> Difference | None:
    """`_first` for two schemas in normal form, keyword by keyword: a keyword that says nothing when empty compares
    with its empty value when absent, so a property dropped from a schema whose only property it was is named
    (`$.properties.title`), not the whole `properties`."""
    if not (isinstance(expected, dict) and isinstance(actual, dict)):
        return _first(expected, actual, path)
    for key in sorted(expected.keys() | actual.keys()):
        one, other = expected.get(key, ABSENT), actual.get(key, ABSENT)
        if key in _EMPTY_MEANS_ABSENT:
            one, other = (_empty(key) if v is ABSENT else v for v in (one, other))
        where = _step(path, key)
        if key in _MAP and isinstance(one, dict) and isinstance(other, dict):
            found = next((d for name in sorted(one.keys() | other.keys()) if (d := _schema_first(
                one.get(name, ABSENT), other.get(name, ABSENT), _step(where, name))) is not None), None)
        elif key in _LIST and isinstance(one, tuple) and isinstance(other, tuple) and len(one) == len(other):
            found = next((d for i, (a, b) in enumerate(zip(one, other, strict=True))
                          if (d := _schema_first(a, b, _step(where, i))) is not None), None)
        elif key in _ONE:
            found = _schema_first(one, other, where)
        else:
            found = _first(one, other, where)
        if found is not None:
            return found
    return None


def schema_difference(expected: Any, actual: Any, path: str = "$") -> Difference | None:
    """The first real difference between two JSON Schemas in normal form, or None when they mean the same."""
    return _schema_first(schema_normal_form(expected), schema_normal_form(actual), path)


def json_difference(expected: Any, actual: Any, path: str = "$") -> Difference | None:
    """The first difference between two JSON values (key order ignored, numbers by value), or None."""
    return _first(_json(expected), _json(actual), path)
