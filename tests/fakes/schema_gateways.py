"""Gateways that rewrite tool schemas on the way upstream (docs/spec/schema-comparison.md): the reference Responses
front with one rewrite each. Two change nothing a model or validator sees and must pass; the other drops a
property and must fail GW-REQ-002 naming it. `tests/fakes/gateways.py` lists them in its `DEFECTS`.
"""

from __future__ import annotations

import json
from dataclasses import replace

from examples.gateway import Json, Request, ResponsesFront
from examples.gateway.model import Result, Tool

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


SCHEMA_DEFECTS: dict[str, type[ResponsesFront]] = {
    "rewrites_by_meaning": RewritesByMeaning,
    "adds_empty_schema_keywords": AddsEmptySchemaKeywords,
    "drops_title_property": DropsTitleProperty,
}
