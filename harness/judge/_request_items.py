"""Structured outputs and tool flags in request translation (docs/spec/items.md §1, §2): GW-REQ-010 (`text.format`
json_schema reaches the upstream's equivalent), GW-REQ-011 (`strict` on a function tool survives), GW-REQ-012 (a
custom tool reaches the upstream as a custom tool, or, under `--policy custom-tools=either` (the default) or
`convert`, as a function tool with one required string parameter; never dropped, never another function tool) and
GW-REQ-013 (a tool without a name is never dropped or given a name on the way: forwarded as it is, the upstream
refuses it and the front passes that on, `check_nameless_relay` in `_rejection.py`). Each reads the front request in
Responses form and the first body the upstream received; a gateway's refusal of the request is judged by the
rejection path (`_rejection.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS

from ._custom_tools import check_custom_tools, upstream_tools
from ._findings import Findings
from ._strict_schema import compared_by, strict_schema_difference, strict_target

__all__ = [
    "check_request_items", "nameless_tools", "text_format", "upstream_format", "upstream_nameless",
]

def text_format(front: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The front request's `text.format`, when it asks for a json_schema structured output."""
    text = front.get("text")
    fmt = text.get("format") if isinstance(text, Mapping) else None
    return fmt if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" else None


def nameless_tools(front: Mapping[str, Any]) -> list[int]:
    """The indexes of the front request's tools that have no name (or an empty one) and need one (function and
    custom tools)."""
    return [i for i, t in enumerate(front.get("tools") or ()) if isinstance(t, Mapping)
            and t.get("type", "function") in ("function", "custom") and not t.get("name")]


def upstream_nameless(dialect: str, body: Mapping[str, Any]) -> tuple[int, list[str]]:
    """How many of the upstream body's function and custom tools have no name (missing or empty), and the names of
    the others, in order."""
    tools = [t for kind, t, _ in upstream_tools(dialect, body) if kind in ("function", "custom")]
    return (sum(1 for t in tools if not t.get("name")),
            [str(t["name"]) for t in tools if t.get("name")])


def upstream_format(dialect: str, body: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str]:
    """The upstream body's structured output as (fields, JSON path): Responses `text.format`, Chat
    `response_format.json_schema` (its `type` beside), Anthropic `output_config.format`."""
    return DIALECTS[dialect].structured_format(body)


def _structured(findings: Findings, dialect: str, front_dialect: str, front: Mapping[str, Any],
                body: Mapping[str, Any]) -> None:
    """GW-REQ-010: the json_schema structured output reaches the upstream's equivalent, the same schema; the name
    where the front gave one and the upstream has one (Anthropic has none), strict where both have it."""
    wanted = text_format(front)
    if wanted is None:
        return
    findings.check("GW-REQ-010")
    fmt, path = upstream_format(dialect, body)
    field = DIALECTS[dialect].format_field
    if fmt is None:
        findings.fail("GW-REQ-010", f"the front asked for a json_schema structured output, but the upstream "
                      f"request has no json_schema {field} (got {short(body.get(path.split('.')[1]))}); forward it "
                      "as the upstream's equivalent or refuse the request with a 4xx naming the format",
                      Evidence(path=f"upstream request {path}", expected=dict(wanted)))
        return
    named = DIALECTS[dialect].format_named and DIALECTS[front_dialect].format_named
    checks = [("name", named), ("strict", named and "strict" in wanted)]
    # Anthropic's structured outputs are always strict; a Chat or Responses format when it says `strict: true`
    target = strict_target(dialect, strict=DIALECTS[dialect].always_strict or fmt.get("strict") is True)
    difference = strict_schema_difference(wanted.get("schema"), fmt.get("schema"), target)
    if difference is not None:
        findings.fail("GW-REQ-010", f"the structured output's schema differs from the front's at "
                      f"{difference.says()} {compared_by(target)}; forward the schema unchanged"
                      f"{' or in that form' if target else ''}",
                      difference.evidence(f"upstream request {path}.schema"))
    for key, applies in checks:
        if applies and fmt.get(key) != wanted.get(key):
            findings.fail("GW-REQ-010", f"the structured output's {key} is {short(fmt.get(key))} upstream, "
                          f"expected {short(wanted.get(key))} as the front sent it",
                          Evidence(path=f"upstream request {path}.{key}", expected=wanted.get(key),
                                   actual=fmt.get(key)))


def _upstream_function(dialect: str, body: Mapping[str, Any], name: str) -> tuple[Mapping[str, Any], str] | None:
    """The upstream's function tool of this name, flattened, and its JSON path."""
    return next(((t, p) for k, t, p in upstream_tools(dialect, body) if k == "function" and t.get("name") == name),
                None)


def _strict(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    """GW-REQ-011: each front function tool's `strict` is the same upstream (every dialect has the field)."""
    flagged = [t for t in front.get("tools") or () if isinstance(t, Mapping) and t.get("type", "function") ==
               "function" and "strict" in t and t.get("name")]
    if not flagged:
        return
    findings.check("GW-REQ-011")
    for tool in flagged:
        found = _upstream_function(dialect, body, str(tool["name"]))
        if found is None:
            continue  # a missing tool is GW-REQ-002's
        upstream, path = found
        if upstream.get("strict") != tool["strict"]:
            findings.fail("GW-REQ-011", f"function tool {tool['name']!r} has strict {short(upstream.get('strict'))} "
                          f"upstream, expected {short(tool['strict'])}: a strict tool's arguments are guaranteed to "
                          "match its schema, and the client relies on it", Evidence(
                              path=f"upstream request {path}.strict", expected=tool["strict"],
                              actual=upstream.get("strict")))


def _nameless(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    """GW-REQ-013 on the request side: a tool without a name that reached the upstream dropped, or with a name the
    gateway made up, fails (the caller never learns its definition is broken, and a call to a made-up name cannot
    be routed back). Forwarded without a name, the upstream refuses it: `check_nameless_relay` judges the front's
    answer (docs/spec/verdicts.md §16)."""
    indexes = nameless_tools(front)
    if not indexes:
        return
    nameless, names = upstream_nameless(dialect, body)
    if nameless >= len(indexes):
        return  # forwarded as it is: the upstream's refusal, passed on, is judged with the front's answer
    findings.check("GW-REQ-013")
    front_names = {t.get("name") for t in front.get("tools") or () if isinstance(t, Mapping)}
    made_up = [name for name in names if name not in front_names]
    how = (f"given the made-up name{'s' if len(made_up) > 1 else ''} {short(made_up)}" if made_up else
           "dropped from the upstream request")
    findings.fail("GW-REQ-013", f"the front request's tools{indexes} have no name and were {how}: the caller never "
                  "learns its tool definition is broken; refuse the request with a 4xx in the front's error shape "
                  "whose message says which tool has no name, or forward it as it is and pass the upstream's 4xx on",
                  Evidence(path="upstream request $.tools", expected=f"{len(indexes)} tool(s) without a name, or "
                           "no upstream request", actual=short(made_up) if made_up else f"{nameless} without a name"))


def check_request_items(findings: Findings, dialect: str, front_dialect: str, front: Mapping[str, Any],
                        body: JSONValue, policies: Mapping[str, str]) -> None:
    """GW-REQ-010..013 on the first upstream body of a case (`front` in Responses form, `dialect` the upstream's,
    `front_dialect` the front's)."""
    if not isinstance(body, Mapping):
        return  # GW-REQ-001 says so
    _structured(findings, dialect, front_dialect, front, body)
    _strict(findings, dialect, front, body)
    check_custom_tools(findings, dialect, front_dialect, front, body, policies)
    _nameless(findings, dialect, front, body)
