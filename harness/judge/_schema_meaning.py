"""JSON Schemas and JSON values compared by what a model or a validator sees (docs/spec/schema-comparison.md).

`schema_normal_form` rewrites a JSON Schema into its normal form: empty `$defs`, `definitions`, `properties`,
`patternProperties`, `dependentSchemas` and an empty `required` dropped, `required` a set, `type` a set (a lone
type the same as a list of one), every number an exact value (1 and 1.0 the same JSON number), and each subschema
normalised in place. Keywords are only read at schema positions: under `properties`, `$defs`, `definitions`,
`patternProperties` and `dependentSchemas` the keys are names (a property named `title`, `required` or `$ref` is a
property, never a keyword), and the values of `const`, `enum`, `default` and `examples` are data, compared as JSON.

Before that, both sides' local `$ref`s (`#/$defs/X`, `#/definitions/X`, any `#/...` pointer) are inlined and the
definitions no remaining `$ref` uses dropped, so a gateway that dereferences a schema sends the same schema; a
recursive `$ref`, one with a non-annotation keyword beside it, and a remote one are kept as written (§2.1).

`schema_difference` compares two schemas in normal form and returns the first real difference (a JSON path from
`$`, both values) or None; `json_difference` does the same for plain JSON values (tool-call arguments, formats):
key order never matters, list order always does, numbers compare by value and `true` is never `1`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short

__all__ = ["ABSENT", "Difference", "dereferenced", "json_difference", "schema_difference", "schema_normal_form"]

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
#: The maps of definitions a `$ref` points into: an entry no remaining `$ref` reaches says nothing.
_DEFS = frozenset({"$defs", "definitions"})
#: Keywords that may stand beside a `$ref` that is still inlined: they annotate, the one beside the `$ref` wins.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                          "$comment"})

_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


class _Absent:
    """The value of a key that one side does not have."""

    def __repr__(self) -> str:
        return "ABSENT"


#: What `Difference.expected` / `.actual` hold for a key one side does not have.
ABSENT: JSONData = _Absent()


@dataclass(frozen=True)
class Difference:
    """The first real difference: where (a JSON path from `$`) and the two values there as JSON, in normal form
    (sets as sorted lists; `ABSENT`: that side has no such key)."""

    path: str
    expected: JSONData
    actual: JSONData

    def evidence(self, base: str) -> Evidence:
        """Evidence at `base` (the compared value's path, e.g. `upstream request $.tools[0].parameters`) followed
        by this difference's path; ABSENT shown as null."""
        return Evidence(path=base + self.path.removeprefix("$"), expected=_shown(self.expected),
                        actual=_shown(self.actual))

    def says(self) -> str:
        """`$.properties.title: absent upstream, expected {"type": ["string"]}`, for a message."""
        return f"{self.path}: {_said(self.actual)} upstream, expected {_said(self.expected)}"


def _shown(side: JSONData) -> JSONValue:
    return None if side is ABSENT else side


def _said(side: JSONData) -> str:
    return "absent" if side is ABSENT else short(side)


def _number(value: int | float) -> int | float:
    """A JSON number by value: 1, 1.0 and 1e0 the same (an integral float becomes an int)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _json(value: JSONData) -> JSONData:
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


def _plain(value: JSONData) -> JSONValue:
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


def _pointer(ref: JSONData) -> tuple[str, ...] | None:
    """The tokens of a local JSON-pointer `$ref` (`#/$defs/A~1B` is `("$defs", "A/B")`), or None for any other."""
    if ref == "#":
        return ()
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None  # a remote ref, an anchor (`#name`) or not a string: kept as it is
    return tuple(unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/"))


def _resolve(root: JSONData, tokens: tuple[str, ...]) -> JSONData:
    """The value at `tokens` in `root`, or ABSENT."""
    for token in tokens:
        if isinstance(root, Mapping) and token in root:
            root = root[token]
        elif isinstance(root, list) and token.isdigit() and int(token) < len(root):
            root = root[int(token)]
        else:
            return ABSENT
    return root


def _subschemas(schema: JSONData, at: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    """Each subschema that is a JSON object, with its pointer tokens; only schema positions are entered, so a
    property named `$ref` is a name and a `$ref` inside a `const` or `default` value is data."""
    if not isinstance(schema, Mapping):
        return
    yield at, schema
    for key, value in schema.items():
        if key in _MAP and isinstance(value, Mapping):
            for name, sub in value.items():
                yield from _subschemas(sub, (*at, key, str(name)))
        elif key in _LIST and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _subschemas(sub, (*at, key, str(index)))
        elif key in _ONE:
            yield from _subschemas(value, (*at, key))


def _target(root: JSONData, schema: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The pointer a subschema's `$ref` may be inlined from: local, resolving to a schema object, and with only
    annotation keywords beside it (docs/spec/schema-comparison.md §2.1); None: the `$ref` is kept."""
    tokens = _pointer(schema.get("$ref"))
    if tokens is None or not isinstance(_resolve(root, tokens), Mapping):
        return None
    return tokens if all(k == "$ref" or k in _ANNOTATIONS for k in schema) else None


def _cyclic(root: JSONData) -> frozenset[tuple[str, ...]]:
    """The ref targets that reach themselves through the refs inside them (a recursive schema): never inlined."""
    refs = [(at, t) for at, sub in _subschemas(root) if (t := _target(root, sub)) is not None]
    targets = {t for _, t in refs}
    edges = {t: {u for at, u in refs if at[:len(t)] == t} for t in targets}
    cyclic = set()
    for start in targets:
        seen, todo = set(), list(edges[start])
        while todo:
            node = todo.pop()
            if node == start:
                cyclic.add(start)
                break
            if node not in seen:
                seen.add(node)
                todo += edges[node]
    return frozenset(cyclic)


def _inline(schema: JSONData, root: JSONData, cyclic: frozenset[tuple[str, ...]]) -> JSONData:
    """`schema` with each non-recursive local `$ref` replaced by the schema it points to (its annotation siblings
    kept over the target's): terminates, as no ref left to inline leads back to itself."""
    if not isinstance(schema, Mapping):
        return schema
    tokens = _target(root, schema)
    if tokens is not None and tokens not in cyclic:
        inlined = _inline(_resolve(root, tokens), root, cyclic)
        return {**inlined, **{k: v for k, v in schema.items() if k != "$ref"}}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _MAP and isinstance(value, Mapping):
            out[key] = {name: _inline(sub, root, cyclic) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [_inline(sub, root, cyclic) for sub in value]
        elif key in _ONE:
            out[key] = _inline(value, root, cyclic)
        else:
            out[key] = value
    return out


def _unused_defs_dropped(schema: JSONData) -> JSONData:
    """`schema` without the `$defs` / `definitions` entries no remaining `$ref` points into (or above)."""
    kept = [t for _, sub in _subschemas(schema) if (t := _pointer(sub.get("$ref"))) is not None]

    def used(at: tuple[str, ...]) -> bool:
        return any(t[:len(at)] == at or at[:len(t)] == t for t in kept)

    def drop(sub: JSONData, at: tuple[str, ...]) -> JSONData:
        if not isinstance(sub, Mapping):
            return sub
        out: dict[str, Any] = {}
        for key, value in sub.items():
            if key in _MAP and isinstance(value, Mapping):
                out[key] = {name: drop(s, (*at, key, str(name))) for name, s in value.items()
                            if key not in _DEFS or used((*at, key, str(name)))}
            elif key in _LIST and isinstance(value, list):
                out[key] = [drop(s, (*at, key, str(i))) for i, s in enumerate(value)]
            elif key in _ONE:
                out[key] = drop(value, (*at, key))
            else:
                out[key] = value
        return out

    return drop(schema, ())


def dereferenced(schema: JSONData) -> JSONData:
    """`schema` with its local non-recursive `$ref`s inlined and the definitions left unused dropped (§2.1), as
    JSON (not yet in normal form)."""
    if isinstance(schema, Mapping):
        return _unused_defs_dropped(_inline(schema, schema, _cyclic(schema)))
    return schema


def schema_normal_form(schema: JSONData) -> JSONData:
    """`schema` as a model or validator sees it (module docstring): comparable with ==; `_plain` turns it back.
    Local `$ref`s are inlined first, except recursive ones, and the definitions left unused dropped (§2.1)."""
    return _normal(dereferenced(schema))


def _normal(schema: JSONData) -> JSONData:
    if not isinstance(schema, Mapping):
        return _json(schema)  # a boolean schema, or not a schema at all: compared as JSON
    out: dict[str, Any] = {}
    for key, value in schema.items():
        key = str(key)
        if key in _EMPTY_MEANS_ABSENT and not value and isinstance(value, list if key == "required" else Mapping):
            continue
        if key in _MAP and isinstance(value, Mapping):
            out[key] = {str(name): _normal(sub) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = tuple(_normal(sub) for sub in value)
        elif key in _ONE:
            out[key] = _normal(value)
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


def _first(expected: JSONData, actual: JSONData, path: str) -> Difference | None:
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


def _empty(key: str) -> JSONData:
    """What a keyword that says nothing when empty stands for when absent."""
    return frozenset() if key == "required" else {}


def _schema_first(expected: JSONData, actual: JSONData, path: str) -> Difference | None:
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


def schema_difference(expected: JSONData, actual: JSONData, path: str = "$") -> Difference | None:
    """The first real difference between two JSON Schemas in normal form, or None when they mean the same."""
    return _schema_first(schema_normal_form(expected), schema_normal_form(actual), path)


def json_difference(expected: JSONData, actual: JSONData, path: str = "$") -> Difference | None:
    """The first difference between two JSON values (key order ignored, numbers by value), or None."""
    return _first(_json(expected), _json(actual), path)
