"""Gateways that rewrite schemas on the way upstream (docs/spec/schema-comparison.md): the reference Responses
front with one rewrite each (tool schemas: GW-REQ-002), or its Anthropic upstream (a structured output's and a
strict tool's schema: GW-REQ-010, GW-REQ-002). Those that change nothing a model or validator sees, or only bring the
schema into what the upstream's strict mode takes (§6), must pass; the others must fail naming the difference.
`tests/fakes/gateways.py` lists them in its `DEFECTS`.
"""

from __future__ import annotations

import json
from dataclasses import replace

from examples.gateway import Json, Request, ResponsesFront
from examples.gateway.model import OutputFormat, Result, Tool
from examples.gateway.upstreams.anthropic import AnthropicUpstream

__all__ = ["SCHEMA_DEFECTS"]


class AddsEmptySchemaKeywords(ResponsesFront):
    """adds_empty_schema_keywords (correct, not a defect): every tool schema reaches the upstream with `"$defs": {}`
    and `"required": []` added where absent, as some real gateways do; the schema means the same (GW-REQ-002
    passes)."""

    def parse_tool(self, tool: Json) -> Tool:
        parsed = super().parse_tool(tool)
        if not isinstance(parsed.parameters, dict):
            return parsed
        return replace(parsed, parameters={"$defs": {}, "required": [], **parsed.parameters})


class DropsTitleProperty(ResponsesFront):
    """drops_title_property: a tool property named `title` is taken for the annotation keyword and removed, with its
    `required` entry, before the schema goes upstream (GW-REQ-002, at $.properties.title)."""

    def parse_tool(self, tool: Json) -> Tool:
        parsed = super().parse_tool(tool)
        schema = parsed.parameters
        if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
            return parsed
        properties = {k: v for k, v in schema["properties"].items() if k != "title"}
        required = [r for r in schema.get("required", []) if r != "title"]
        return replace(parsed, parameters={**schema, "properties": properties, "required": required})


def _dereferenced(schema: Json) -> Json:
    """`schema` with each `#/$defs/X` / `#/definitions/X` `$ref` replaced by its definition (siblings kept over
    it) and the root's definitions dropped, as llm-rosetta does; a property named `$ref` (a schema, not a string)
    is left alone."""
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}

    def walk(node: object) -> object:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.split("/")[-1] in defs and ref.startswith(("#/$defs/", "#/definitions/")):
            return walk({**defs[ref.split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}})
        return {k: walk(v) for k, v in node.items()}

    inlined = walk({k: v for k, v in schema.items() if k not in ("$defs", "definitions")})
    assert isinstance(inlined, dict)
    return inlined


def _reserialised(output: str) -> str:
    """A JSON tool output parsed and written again with spaces (`{"a":1}` becomes `{"a": 1}`); other text kept."""
    try:
        return json.dumps(json.loads(output))
    except ValueError:
        return output


class RewritesByMeaning(ResponsesFront):
    """rewrites_by_meaning (correct, not a defect): what real gateways do on the way without changing what the
    upstream's model sees (docs/spec/schema-comparison.md §2.1, §3, §5): every local `$ref` inlined and `$defs`
    dropped, each JSON tool output re-serialised, and a built-in `web_search` sent as `web_search_preview` (a
    Responses upstream; the others get no built-in tools from this front)."""

    def parse_request(self, body: Json) -> Request:
        request = super().parse_request(body)
        return replace(
            request,
            tools=[replace(t, parameters=_dereferenced(t.parameters)) if isinstance(t.parameters, dict) else t
                   for t in request.tools],
            builtin_tools=[{**t, "type": "web_search_preview"} if t.get("type") == "web_search" else t
                           for t in request.builtin_tools],
            history=[replace(p, output=_reserialised(p.output)) if isinstance(p, Result) else p
                     for p in request.history])


def transform_schema(schema: Json) -> Json:
    """The anthropic SDK's own transform, imported when first used: the SDK takes 1.5 s of CPU to import, and
    every fake gateway process (tests.fakes.gateways, ~200 starts a suite) would pay it for this one fake."""
    from anthropic import transform_schema as transform

    return dict(transform(schema))


class AnthropicStrictTransform(AnthropicUpstream):
    """anthropic_strict_transform (correct, not a defect; an Anthropic upstream): the structured output's schema and
    each strict tool's input_schema go through the anthropic SDK's own `transform_schema` (lib/_parse/_transform.py),
    as that SDK does before it sends a schema: every object closed with `additionalProperties: false`, minLength,
    maximum, pattern, minItems above 1 and the like moved into the description, `type` dropped beside an `enum`.
    The meaning for Anthropic's strict mode is unchanged (docs/spec/schema-comparison.md §6): GW-REQ-010 and
    GW-REQ-002 pass."""

    def translate_output_format(self, output: OutputFormat) -> Json:
        translated = super().translate_output_format(output)
        return {**translated, "schema": transform_schema(translated["schema"])}

    def translate_tool(self, tool: Tool) -> Json:
        translated = super().translate_tool(tool)
        if tool.strict:
            translated["input_schema"] = transform_schema(translated["input_schema"])
        return translated


def _every_property_required(schema: object) -> object:
    """`schema` with every object closed and every property listed in `required` (gproxy's
    enforce_anthropic_strict_schema does both toward Anthropic)."""
    if isinstance(schema, list):
        return [_every_property_required(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _every_property_required(v) for k, v in schema.items()}
    if out.get("type") == "object":
        properties = out.get("properties")
        out["additionalProperties"] = False
        out["required"] = list(properties) if isinstance(properties, dict) else []
    return out


class StrictFormRequiresAll(AnthropicUpstream):
    """strict_form_requires_all (an Anthropic upstream): toward Anthropic's strict mode the structured output's schema
    gets `additionalProperties: false` on every object, and every property is made required, optional ones included,
    as some gateways do for OpenAI's strict mode; the model must then invent a value the caller left optional
    (GW-REQ-010, at $.required of `structured_output_constrained_schema`)."""

    def translate_output_format(self, output: OutputFormat) -> Json:
        translated = super().translate_output_format(output)
        return {**translated, "schema": _every_property_required(translated["schema"])}


def _unsupported_dropped(schema: object) -> object:
    """`schema` without the keywords Anthropic's strict mode does not take (and each object closed), dropped
    rather than moved into the description."""
    dropped = {"minLength", "maxLength", "minimum", "maximum", "pattern", "minItems", "maxItems", "uniqueItems"}
    if isinstance(schema, list):
        return [_unsupported_dropped(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _unsupported_dropped(v) for k, v in schema.items() if k not in dropped}
    if out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


class DropsUnsupportedKeywords(AnthropicUpstream):
    """drops_unsupported_keywords (an Anthropic upstream): the structured output's minLength, maximum, pattern,
    minItems and the like, which Anthropic's strict mode does not take, are deleted instead of moved into the
    description as the anthropic SDK does: the model is no longer told the bounds (GW-REQ-010, at
    $.properties.days.maximum of `structured_output_constrained_schema`)."""

    def translate_output_format(self, output: OutputFormat) -> Json:
        translated = super().translate_output_format(output)
        return {**translated, "schema": _unsupported_dropped(translated["schema"])}


SCHEMA_DEFECTS: dict[str, type[ResponsesFront] | type[AnthropicUpstream]] = {
    "rewrites_by_meaning": RewritesByMeaning,
    "adds_empty_schema_keywords": AddsEmptySchemaKeywords,
    "drops_title_property": DropsTitleProperty,
    "anthropic_strict_transform": AnthropicStrictTransform,
    "strict_form_requires_all": StrictFormRequiresAll,
    "drops_unsupported_keywords": DropsUnsupportedKeywords,
}
