"""Load the JSON Schemas shipped in `callproof.schemas` and compile validators once per process.

Validation runs on the hot path (every event of every stream), so events are dispatched on their `type`
to a per-type validator compiled with jsonschema-rs; errors are only collected for events that fail
`is_valid` (bench/results.md: the checker rows). Front manifests in `schemas/fronts/` say which schema
validates which event type for a front and profile.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import jsonschema_rs

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.catalogue import Profile
from callproof.harness.dialects import DIALECTS

__all__ = [
    "SCHEMA_BASE",
    "FrontSchemas",
    "SchemaError",
    "SchemaStore",
    "json_path",
    "schema_store",
]

#: Every schema's `$id` is this base plus its path under schemas/.
SCHEMA_BASE = "https://callproof.dev/schemas/"


@dataclass(frozen=True, slots=True)
class SchemaError:
    """One validation error, located in the instance."""

    path: str
    message: str
    schema: str

    def __str__(self) -> str:
        return f"{self.message} (at {self.path}, {self.schema})"


def json_path(parts: Iterator[str | int] | list[str | int] | tuple[str | int, ...]) -> str:
    """`['item', 'call_id']` -> `$.item.call_id`; `['output', 0]` -> `$.output[0]`."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


class _Validator:
    __slots__ = ("_rs", "is_valid", "ref")

    def __init__(self, ref: str, compiled: jsonschema_rs.Validator) -> None:
        self.ref = ref
        self._rs = compiled
        #: Whether an instance is valid: the compiled validator's own method (called once per event).
        self.is_valid: Callable[[object], bool] = compiled.is_valid

    def errors(self, instance: object, limit: int = 5) -> list[SchemaError]:
        """The most specific errors first (deepest instance path), at most `limit`."""
        unique: dict[tuple[str, str], SchemaError] = {}
        for err in self._rs.iter_errors(instance):
            # Overlays wrap their base with allOf, so one bad field can fail at several schema locations.
            parts: list[str | int] = list(err.instance_path)
            if isinstance(err.kind, jsonschema_rs.ValidationErrorKind.Required):
                parts.append(str(err.kind.property))  # locate the missing field itself, not its parent
            error = SchemaError(json_path(parts), str(err.message), self.ref)
            unique.setdefault((error.path, error.message), error)
        found = list(unique.values())
        found.sort(key=lambda e: -e.path.count(".") - e.path.count("["))
        return found[:limit]


@dataclass(frozen=True, slots=True)
class FrontSchemas:
    """The validators of one front under one profile, from its manifest in schemas/fronts/."""

    front: Dialect
    profile: Profile
    events: Mapping[str, _Validator]
    body: _Validator
    error_body: _Validator
    extensions: bool


class SchemaStore:
    """All shipped schemas in one registry; validators compiled on first use and cached."""

    def __init__(self, root: Traversable) -> None:
        self._root = root
        self._docs: dict[str, JSONValue] = {}
        self._manifests: dict[str, dict[str, Any]] = {}
        for path, doc in _walk(root, ""):
            if not isinstance(doc, dict):
                continue
            if path.startswith("fronts/"):
                self._manifests[path.removeprefix("fronts/").removesuffix(".json")] = doc
            else:
                self._docs[SCHEMA_BASE + path] = doc
        self._registry = jsonschema_rs.Registry(list(self._docs.items()))
        self._validators: dict[str, _Validator] = {}
        self._fronts: dict[tuple[Dialect, Profile], FrontSchemas] = {}

    @property
    def documents(self) -> Mapping[str, JSONValue]:
        return self._docs

    @property
    def manifests(self) -> Mapping[str, dict[str, Any]]:
        return self._manifests

    def validator(self, ref: str) -> _Validator:
        """A validator for `ref`: a path under schemas/ (`responses/response.json`) or a full `$id`."""
        uri = ref if ref.startswith(SCHEMA_BASE) else SCHEMA_BASE + ref
        found = self._validators.get(uri)
        if found is None:
            if uri not in self._docs:
                raise KeyError(f"no schema with $id {uri!r} in callproof.schemas")
            compiled = jsonschema_rs.validator_for({"$ref": uri}, registry=self._registry)
            found = self._validators[uri] = _Validator(uri.removeprefix(SCHEMA_BASE), compiled)
        return found

    def front(self, front: Dialect, profile: Profile) -> FrontSchemas:
        key = (front, profile)
        cached = self._fronts.get(key)
        if cached is None:
            named = DIALECTS[front].schema_set
            manifest = self._manifests.get(f"{named}.{profile}") or self._manifests.get(named)
            if manifest is None:
                raise KeyError(f"no manifest schemas/fronts/{named}.{profile}.json or {named}.json")
            cached = self._fronts[key] = FrontSchemas(
                front=front,
                profile=profile,
                events={name: self.validator(ref) for name, ref in manifest["events"].items()},
                body=self.validator(manifest["body"]),
                error_body=self.validator(manifest["error_body"]),
                extensions=bool(manifest.get("extensions", False)),
            )
        return cached


def _walk(node: Traversable, prefix: str) -> Iterator[tuple[str, JSONValue]]:
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            if not child.name.startswith(("_", ".")):
                yield from _walk(child, rel + "/")
        elif child.name.endswith(".json"):
            yield rel, json.loads(child.read_text(encoding="utf-8"))


@cache
def schema_store() -> SchemaStore:
    """The process-wide store of the schemas shipped with callproof."""
    return SchemaStore(files("callproof.schemas"))
