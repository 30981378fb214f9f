"""Schemas compared under the target dialect's strict normal form (docs/spec/schema-comparison.md §6,
harness/judge/_strict_schema.py): what the official SDKs do to a schema before sending it to a strict upstream is no
difference there; every other change still is, and names its path."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest

from callproof.harness.judge import check_request_items
from callproof.harness.judge._findings import Findings
from callproof.harness.judge._strict_schema import StrictTarget, strict_schema_difference, strict_target
from callproof.harness.judge._translation import check_translation
from callproof.harness.request import front_request
from callproof.mock_server import bundled_scenarios
from tests.fakes.schema_gateways import transform_schema

SCENARIOS = bundled_scenarios()

#: A schema with every kind of keyword the anthropic SDK's transform rewrites.
KITCHEN_SINK: dict[str, Any] = {
    "type": "object",
    "description": "A person.",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 40, "description": "Who."},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "email": {"type": "string", "format": "email"},
        "slug": {"type": "string", "pattern": "^[a-z, -]+$", "format": "slug"},
        "sky": {"type": "string", "enum": ["sunny", "rain"]},
        "unit": {"type": "string", "const": "celsius"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": True},
        "one": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
        "pet": {"oneOf": [{"type": "object", "properties": {"cat": {"type": "boolean"}}}, {"type": "null"}]},
        "address": {"type": "object", "properties": {"city": {"type": "string", "default": "Paris"}},
                    "required": ["city"]},
        "score": {"type": "number", "multipleOf": 0.5, "examples": [1.5, 2]},
    },
    "required": ["name", "age"],
}


def _structured_schemas() -> list[tuple[str, Any]]:
    """The structured output schemas of the bundled scenarios."""
    return [(s.id, s.request["text"]["format"]["schema"]) for s in SCENARIOS.values()
            if isinstance(s.request.get("text"), dict) and s.request["text"].get("format", {}).get("type") ==
            "json_schema"]


@pytest.mark.parametrize(("name", "schema"), [("kitchen_sink", KITCHEN_SINK), *_structured_schemas()])
def test_the_anthropic_sdk_transform_is_no_difference_toward_anthropic(name: str, schema: Any) -> None:
    sent = transform_schema(copy.deepcopy(schema))
    assert strict_schema_difference(schema, sent, "anthropic") is None


def test_without_the_strict_form_the_same_transform_is_a_difference() -> None:
    """The strict form is what makes it pass: compared plainly, the closed objects and moved keywords differ."""
    sent = transform_schema(copy.deepcopy(KITCHEN_SINK))
    difference = strict_schema_difference(KITCHEN_SINK, sent, None)
    assert difference is not None and difference.path == "$.additionalProperties"


def _js_transform(schema: Any) -> Any:
    """What anthropic-sdk-typescript's transformJSONSchema (src/lib/transform-json-schema.ts) sends: like the
    Python SDK's, but `type` kept beside an enum and the moved values printed with JSON.stringify."""
    if not isinstance(schema, dict):
        return schema
    rest = dict(schema)
    out: dict[str, Any] = {}
    kind = rest.pop("type", None)
    variants = rest.pop("anyOf", None) or rest.pop("oneOf", None)
    if variants is not None:
        out["anyOf"] = [_js_transform(v) for v in variants]
    else:
        out["type"] = kind
    for key in ("description", "title", "const", "enum"):
        if key in rest:
            out[key] = rest.pop(key)
    if kind == "object":
        out["properties"] = {k: _js_transform(v) for k, v in rest.pop("properties", {}).items()}
        rest.pop("additionalProperties", None)
        out["additionalProperties"] = False
        if "required" in rest:
            out["required"] = rest.pop("required")
    elif kind == "string" and rest.get("format") in ("email", "date"):
        out["format"] = rest.pop("format")
    elif kind == "array":
        if "items" in rest:
            out["items"] = _js_transform(rest.pop("items"))
        if rest.get("minItems") in (0, 1):
            out["minItems"] = rest.pop("minItems")
    if rest:
        moved = ", ".join(f"{k}: {json.dumps(v, separators=(',', ':'))}" for k, v in rest.items())
        out["description"] = (f"{out['description']}\n\n" if out.get("description") else "") + "{" + moved + "}"
    return out


def test_the_typescript_sdk_form_is_no_difference_toward_anthropic() -> None:
    assert strict_schema_difference(KITCHEN_SINK, _js_transform(copy.deepcopy(KITCHEN_SINK)), "anthropic") is None


def _with(schema: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `schema` with the value at the dotted `path` set (`...`: deleted)."""
    out = copy.deepcopy(schema)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[key]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return out


@functools.cache
def _sent_once() -> dict[str, Any]:
    """KITCHEN_SINK as the anthropic SDK sends it to a strict upstream (copy it before editing)."""
    return transform_schema(copy.deepcopy(KITCHEN_SINK))


@pytest.mark.parametrize(("case", "edit", "target", "path"), [
    # a bound dropped instead of moved: the model is no longer told it
    ("keyword_dropped", lambda sent: _with(sent, "properties.name.description", "Who."), "anthropic",
     "$.properties.name.maxLength"),
    # a keyword Anthropic takes is not moved: `required` in a description enforces nothing
    ("required_moved",
     lambda sent: _with(_with(sent, "required", ...), "description", "A person.\n\n{required: ['name', 'age']}"),
     "anthropic", "$.description"),
    # an optional property made required (a strict form for OpenAI, not a rewrite Anthropic needs)
    ("all_required", lambda sent: _with(sent, "required", list(KITCHEN_SINK["properties"])), "anthropic", "$.required"),
    # the moved value printed differently from what the front holds
    ("moved_value_changed", lambda sent: _with(sent, "properties.age.description", "{minimum: 1, maximum: 150}"),
     "anthropic", "$.properties.age.description"),
    # `type` dropped where the enum does not imply it
    ("type_dropped_without_literals", lambda sent: _with(sent, "properties.email.type", ...), "anthropic",
     "$.properties.email.type"),
    # oneOf as anyOf is Anthropic's rewrite, not OpenAI's
    ("one_of_as_any_of_for_openai", lambda sent: {"anyOf": [{"type": "string"}, {"type": "null"}]}, "openai",
     "$.anyOf"),
])
def test_other_changes_are_still_differences(case: str, edit: Callable[[dict[str, Any]], Any], target: StrictTarget,
                                             path: str) -> None:
    front: Any = {"oneOf": [{"type": "string"}, {"type": "null"}]} if case.endswith("openai") else KITCHEN_SINK
    difference = strict_schema_difference(front, edit(copy.deepcopy(_sent_once())), target)
    assert difference is not None and difference.path == path, difference


@pytest.mark.parametrize("target", ["anthropic", "openai"])
def test_additional_properties_only_ever_closes_an_object_that_said_nothing(target: StrictTarget) -> None:
    """Added where absent: no difference. Removed, or an explicitly open object closed: a difference (the caller
    allowed other properties; the SDK's transform closes it anyway, callproof does not call that the same)."""
    assert strict_schema_difference({"type": "object"}, {"type": "object", "additionalProperties": False},
                                    target) is None
    removed = strict_schema_difference({"type": "object", "additionalProperties": False}, {"type": "object"}, target)
    assert removed is not None and removed.path == "$.additionalProperties"
    closed = strict_schema_difference({"type": "object", "additionalProperties": True},
                                      {"type": "object", "additionalProperties": False}, target)
    assert closed is not None and (closed.expected, closed.actual) == (True, False)
    mapped = strict_schema_difference({"type": "object", "additionalProperties": {"type": "string"}},
                                      {"type": "object", "additionalProperties": False}, target)
    assert mapped is not None and mapped.path == "$.additionalProperties"


def test_openai_strict_form_moves_nothing_into_descriptions() -> None:
    moved = {"type": "string", "description": "{minLength: 1}"}
    difference = strict_schema_difference({"type": "string", "minLength": 1}, moved, "openai")
    assert difference is not None and difference.path == "$.description"


def test_refs_are_inlined_before_the_strict_form() -> None:
    front = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
             "$defs": {"A": {"type": "object", "properties": {"n": {"type": "string", "maxLength": 3}}}}}
    sent = {"type": "object", "additionalProperties": False, "properties": {"a": {
        "type": "object", "additionalProperties": False,
        "properties": {"n": {"type": "string", "description": "{maxLength: 3}"}}}}}
    assert strict_schema_difference(front, sent, "anthropic") is None


def test_the_strict_target_of_each_dialect() -> None:
    assert strict_target("anthropic", strict=True) == "anthropic"
    assert strict_target("chat", strict=True) == strict_target("responses", strict=True) == "openai"
    assert strict_target("anthropic", strict=False) is None


# -- through the rules -------------------------------------------------------------------------------------------


def _anthropic_body(scenario_id: str, schema: Any, tools: list[Any] | None = None) -> dict[str, Any]:
    scenario = SCENARIOS[scenario_id]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    body: dict[str, Any] = {"model": "m", "max_tokens": 4096, "stream": True,
                            "messages": [{"role": "user", "content": front["input"][0]["content"][0]["text"]}],
                            "output_config": {"format": {"type": "json_schema", "schema": schema}}}
    if tools is not None:
        body["tools"] = tools
    return body


def _failures(scenario_id: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    scenario = SCENARIOS[scenario_id]
    front = front_request(scenario.id, scenario.request, case="t1", dialect="responses")
    findings = Findings()
    check_translation(findings, "anthropic", front, str(front["input"][0]["content"][0]["text"]), [body])
    check_request_items(findings, "anthropic", "responses", front, body, {})
    return [(r.rule.id, v.message) for r in findings.results() for v in r.violations]


def test_gw_req_010_passes_the_sdk_transform_and_names_a_real_change() -> None:
    scenario = SCENARIOS["structured_output_constrained_schema"]
    schema = scenario.request["text"]["format"]["schema"]
    assert _failures(scenario.id, _anthropic_body(scenario.id, transform_schema(copy.deepcopy(schema)))) == []
    required = _with(transform_schema(copy.deepcopy(schema)), "required", list(schema["properties"]))
    ((rule, message),) = _failures(scenario.id, _anthropic_body(scenario.id, required))
    assert rule == "GW-REQ-010" and message.startswith(
        "the structured output's schema differs from the front's at $.required: "
        '["days", "notes", "pace", "stops", "title"] upstream, expected ["days", "pace", "stops", "title"] (schemas '
        "compared by meaning, under Anthropic's strict normal form: docs/spec/schema-comparison.md §6)")


def test_gw_req_002_compares_a_strict_tool_under_the_strict_form_and_a_plain_one_as_before() -> None:
    scenario = SCENARIOS["structured_output_strict_tool"]
    schema = scenario.request["text"]["format"]["schema"]
    (tool,) = scenario.request["tools"]
    parameters = {**tool["parameters"], "properties": {"city": {"type": "string", "minLength": 1}}}
    moved = transform_schema(copy.deepcopy(parameters))
    front_tool = {**tool, "parameters": parameters}
    request = {**scenario.request, "tools": [front_tool]}
    front = front_request(scenario.id, request, case="t1", dialect="responses")
    for strict, failed in ((True, []), (False, ["GW-REQ-002", "GW-REQ-011"])):
        body = _anthropic_body(scenario.id, transform_schema(copy.deepcopy(schema)), [
            {"name": tool["name"], "description": tool["description"], "input_schema": moved, "strict": strict}])
        findings = Findings()
        check_translation(findings, "anthropic", front, str(front["input"][0]["content"][0]["text"]), [body])
        check_request_items(findings, "anthropic", "responses", front, body, {})
        assert sorted(r.rule.id for r in findings.results() if r.outcome == "failed") == failed

