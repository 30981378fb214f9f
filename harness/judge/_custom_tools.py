"""GW-REQ-012, custom tools in request translation (docs/spec/items.md §2): a custom (free-form) tool reaches a
Responses upstream as a custom tool, its name, description and format unchanged. Toward an upstream whose streams
cannot carry a custom call (Chat Completions, Anthropic Messages) the run's `--policy custom-tools` says what the
gateway does: `either` (the default) a clear refusal or a faithful conversion; `refuse` a 4xx before any upstream
request (the rejection path, `_rejection.py`); `convert` a function tool of the same name with one required string
parameter, whose call the gateway turns back into a custom call at the front. A Chat `custom` tool (Chat's request
form) is accepted under each. A function tool of that name with other parameters, under any policy, and any
function tool under `refuse`, is the defect this rule exists for: the model then answers JSON that the client
receives wrapped, or the gateway must unwrap it without saying so; and so is a custom tool dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS

from ._findings import Findings
from ._policy import CUSTOM_TOOLS_POLICY, custom_tool_expectation
from ._schema_meaning import ABSENT, json_difference

__all__ = ["check_custom_tools", "converted_parameter", "custom_tools", "upstream_tools"]


def custom_tools(front: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The front request's custom (free-form) tools that have a name, in order."""
    return [t for t in front.get("tools") or () if isinstance(t, Mapping) and t.get("type") == "custom"
            and t.get("name")]


def upstream_tools(dialect: str, body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], str]]:
    """(kind, tool, JSON path) of each upstream tool, flattened: kind `function` or `custom` (or a built-in type),
    the tool's fields at the top (Chat's nested `function` / `custom` object lifted; Anthropic's `input_schema` also
    as `parameters`: a tool with an input schema is Anthropic's function tool)."""
    return [(read.kind, read.tool, read.path) for read in DIALECTS[dialect].tools(body)]


def converted_parameter(parameters: JSONValue) -> str | None:
    """The one string parameter of a custom tool offered as a function tool (`custom-tools=convert`): parameters
    of type object with exactly one property, of type string, and required; None otherwise."""
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        return None
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping) or len(properties) != 1:
        return None
    (key, schema), = properties.items()
    required = parameters.get("required")
    ok = isinstance(schema, Mapping) and schema.get("type") == "string" and isinstance(required, list) \
        and key in required
    return str(key) if ok else None


def _same_custom(findings: Findings, dialect: str, tool: Mapping[str, Any], upstream: Mapping[str, Any],
                 path: str) -> None:
    """A custom tool carried as a custom tool: its description and format as the front gave them."""
    for key in ("description", "format"):
        if key not in tool:
            continue
        wanted = DIALECTS[dialect].custom_format(tool[key]) if key == "format" else tool[key]
        difference = json_difference(wanted, upstream.get(key) if key in upstream else ABSENT)
        if difference is not None:
            at = "" if difference.path == "$" else f" at {difference.path}"
            findings.fail("GW-REQ-012", f"custom tool {tool['name']!r} has {key} {short(upstream.get(key))} "
                          f"upstream, expected {short(wanted)}{at}", Evidence(
                              path=f"upstream request {path}.{key}{difference.path.removeprefix('$')}",
                              expected=short(wanted), actual=short(upstream.get(key))))


def _as_function(findings: Findings, dialect: str, name: str, upstream: Mapping[str, Any], path: str,
                 expected: str, declared: str) -> None:
    """A custom tool that reached the upstream as a function tool: right only where a conversion is allowed
    (`convert`, or `either`, the default), with one required string parameter. `declared`: the run's policy."""
    flag = f"--policy custom-tools={declared}"
    if expected not in ("convert", "either"):
        why = (f"a {DIALECTS[dialect].short} upstream has custom tools: forward it as one"
               if DIALECTS[dialect].custom_tools_carried else
               "refuse the request with a 4xx naming the tool, or run with --policy custom-tools=convert if the "
               "gateway converts it on purpose")
        findings.fail("GW-REQ-012", f"{flag}: custom tool {name!r} reached the {dialect} upstream as a plain "
                      f"function tool (parameters {short(upstream.get('parameters'))}); {why}",
                      Evidence(path=f"upstream request {path}", expected=f"a custom tool {name!r}",
                               actual=short(upstream)))
    elif converted_parameter(upstream.get("parameters")) is None:
        findings.fail("GW-REQ-012", f"{flag}: custom tool {name!r} became a function tool whose parameters "
                      f"{short(upstream.get('parameters'))} are not one required string parameter; the free-form "
                      "input needs exactly one, e.g. {\"input\": {\"type\": \"string\"}} (or refuse the request "
                      "with a 4xx naming the tool)",
                      Evidence(path=f"upstream request {path}.parameters",
                               expected='{"type": "object", "properties": {"input": {"type": "string"}}, '
                                        '"required": ["input"]}', actual=short(upstream.get("parameters"))))


def check_custom_tools(findings: Findings, dialect: str, front_dialect: str, front: Mapping[str, Any],
                       body: Mapping[str, Any], policies: Mapping[str, str]) -> None:
    """GW-REQ-012 on a forwarded request: each front custom tool is a custom tool upstream (a Chat upstream's custom
    tool counts), or, under `convert`, a function tool with one required string parameter. An Anthropic front has
    no custom tools (the harness sends none there): nothing to judge."""
    tools = custom_tools(front)
    if not tools or not DIALECTS[front_dialect].custom_tools:
        return
    findings.check("GW-REQ-012")
    found = upstream_tools(dialect, body)
    for tool in tools:
        name = str(tool["name"])
        same = [(kind, t, path) for kind, t, path in found if t.get("name") == name]
        custom = next(((t, p) for k, t, p in same if k == "custom" and DIALECTS[dialect].custom_tools), None)
        function = next(((t, p) for k, t, p in same if k == "function"), None)
        if custom is not None:
            _same_custom(findings, dialect, tool, custom[0], custom[1])
        elif function is not None:
            _as_function(findings, dialect, name, function[0], function[1],
                         custom_tool_expectation(dialect, policies), policies.get(CUSTOM_TOOLS_POLICY, "either"))
        else:
            findings.fail("GW-REQ-012", f"custom tool {name!r} is missing from the upstream request (it has "
                          f"{short([t.get('name') for _, t, _ in found])}); a gateway that cannot carry it refuses "
                          "the request with a 4xx naming it or converts it to a function tool with one required "
                          "string parameter (--policy custom-tools), never drops it silently",
                          Evidence(path="upstream request $.tools", expected=f"a tool {name!r}"))
