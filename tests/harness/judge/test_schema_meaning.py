"""Schemas and JSON values compared by meaning (docs/spec/schema-comparison.md): each pair of data/schema_pairs.json
is the same or differs first at the JSON path it names, in both directions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness.catalogue import Evidence
from callproof.harness.judge._schema_meaning import (
    ABSENT,
    Difference,
    json_difference,
    schema_difference,
    schema_normal_form,
)

DATA = Path(__file__).parent / "data"
DOC = json.loads((DATA / "schema_pairs.json").read_text(encoding="utf-8"))


def test_the_data_file_is_valid() -> None:
    jsonschema.validate(DOC, json.loads((DATA / "schema_pairs.schema.json").read_text(encoding="utf-8")))
    assert len({p["id"] for p in DOC["pairs"]}) == len(DOC["pairs"]), "pair ids are unique"
    assert {p["same"] for p in DOC["pairs"]} == {True, False}


def _compare(pair: dict[str, Any], expected: Any, actual: Any) -> Difference | None:
    compare = json_difference if pair.get("kind") == "json" else schema_difference
    return compare(expected, actual)


@pytest.mark.parametrize("pair", DOC["pairs"], ids=lambda p: p["id"])
def test_pair(pair: dict[str, Any]) -> None:
    found = _compare(pair, pair["expected"], pair["actual"])
    assert (found.path if found else None) == pair.get("path"), found
    backwards = _compare(pair, pair["actual"], pair["expected"])
    assert (backwards.path if backwards else None) == pair.get("path"), backwards
    assert _compare(pair, pair["expected"], pair["expected"]) is None


def test_the_first_difference_names_both_values_in_normal_form() -> None:
    front = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    found = schema_difference(front, {"type": "object", "properties": {}, "required": []})
    assert found == Difference("$.properties.title", {"type": ["string"]}, ABSENT)
    assert found.says() == '$.properties.title: absent upstream, expected {"type": ["string"]}'
    assert found.evidence("upstream request $.tools[0].parameters") == Evidence(
        path="upstream request $.tools[0].parameters.properties.title", expected={"type": ["string"]}, actual=None)


def test_the_normal_form_keeps_names_and_data_and_drops_empty_keywords() -> None:
    schema = {"type": "object", "required": [], "$defs": {}, "properties": {"required": {}, "$defs": {}, "title": {
        "type": ["string"], "default": {"required": []}}}, "enum": [2.0, True]}
    assert schema_normal_form(schema) == {
        "type": frozenset({"object"}), "enum": (2, True),
        "properties": {"required": {}, "$defs": {}, "title": {"type": frozenset({"string"}),
                                                             "default": {"required": ()}}}}


def test_sets_compare_as_sets_whatever_the_repetition() -> None:
    assert schema_difference({"required": ["a", "b"]}, {"required": ["b", "a", "a"]}) is None
    found = schema_difference({"required": ["a", "b"]}, {"required": ["a"]})
    assert found == Difference("$.required", ["a", "b"], ["a"])


ADDRESS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_local_refs_are_inlined_and_their_definitions_dropped() -> None:
    """docs/spec/schema-comparison.md §2.1: `#/$defs/X`, `#/definitions/X` and any local pointer (~0, ~1) inlined."""
    front = {"type": "object", "properties": {"to": {"$ref": "#/$defs/Add~1ress"}}, "$defs": {"Add/ress": ADDRESS}}
    assert schema_normal_form(front) == schema_normal_form({"type": "object", "properties": {"to": ADDRESS}})
    assert "$defs" not in schema_normal_form(front)


def test_an_inlined_target_that_changed_is_named_where_it_is_used() -> None:
    front = {"properties": {"to": {"$ref": "#/$defs/Address"}}, "$defs": {"Address": ADDRESS}}
    found = schema_difference(front, {"properties": {"to": {**ADDRESS, "required": []}}})
    assert found is not None
    assert found.says() == '$.properties.to.required: [] upstream, expected ["city"]'


def test_a_recursive_ref_is_kept_and_an_unrolled_one_differs() -> None:
    node = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    front = {"properties": {"tree": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}}
    assert schema_normal_form(front)["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    found = schema_difference(front, {"properties": {"tree": node}, "$defs": {"Node": node}})
    assert found is not None
    assert found.says().startswith('$.properties.tree.$ref: absent upstream, expected "#/$defs/Node"')


def test_a_property_named_ref_is_never_a_reference() -> None:
    """A gateway that strips `$ref` by key name deletes a parameter (llm-rosetta 0.13 does): still a failure."""
    front = {"type": "object", "properties": {"$ref": {"type": "string"}, "sha": {"type": "string"}}}
    found = schema_difference(front, {"type": "object", "properties": {"sha": {"type": "string"}}})
    assert found is not None
    assert found.says() == '$.properties.$ref: absent upstream, expected {"type": ["string"]}'
