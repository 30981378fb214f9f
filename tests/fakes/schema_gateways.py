"""Gateways that rewrite tool schemas on the way upstream (docs/spec/schema-comparison.md): the reference Responses
front with one rewrite each. One changes nothing a model or validator sees and must pass; the other drops a
property and must fail GW-REQ-002 naming it. `tests/fakes/gateways.py` lists them in its `DEFECTS`.
"""

from __future__ import annotations

from dataclasses import replace

from examples.gateway import Json, ResponsesFront
from examples.gateway.model import Tool

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


SCHEMA_DEFECTS: dict[str, type[ResponsesFront]] = {
    "adds_empty_schema_keywords": AddsEmptySchemaKeywords,
    "drops_title_property": DropsTitleProperty,
}
