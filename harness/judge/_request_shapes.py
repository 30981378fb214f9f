"""Request shapes a gateway translates (docs/spec/contracts.md §7.12): how the translation rules read message
text, tool outputs given as content parts, system prompts from several sources, built-in tools (GW-REQ-008:
the upstream's tool list holds only the front's function tools and built-in tools in a form the upstream dialect
defines) and every message, whatever its form (GW-REQ-009).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS, text_of
from callproof.harness.scenario import strings_in

from ._findings import Findings
from ._schema_meaning import json_difference

__all__ = [
    "BUILTIN_EQUIVALENTS", "builtin_tools", "check_builtin_tools", "check_messages", "function_tools", "same_output",
    "system_prompts", "upstream_system",
]


def _texts(content: JSONData) -> list[str] | None:
    """The texts of a tool output: a string, or text parts / blocks (None: another shape, e.g. a JSON object)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list) and all(isinstance(p, Mapping) and isinstance(p.get("text"), str) for p in content):
        return [p["text"] for p in content]
    return None


def _parsed(text: str) -> tuple[bool, JSONData]:
    """(True, the value) for a JSON text (NaN and Infinity are not JSON), else (False, None)."""
    def refuse(name: str) -> NoReturn:
        raise ValueError(name)
    try:
        return True, json.loads(text, parse_constant=refuse)
    except ValueError:
        return False, None


def same_output(wanted: JSONValue, content: JSONValue) -> bool:
    """Whether an upstream tool result carries the front's output: a string output the same string (or text parts
    joining to it), or, when both parse as JSON, the same JSON value by meaning (re-serialised: whitespace, key
    order and `1.0` for `1` change nothing, docs/spec/schema-comparison.md §3); an output of text parts the same
    texts in order, as parts or as one string where they are joined by whitespace only (never a serialisation of
    the parts list)."""
    if isinstance(wanted, str):
        got = text_of(content)
        if got == wanted:
            return True
        (one, expected), (other, actual) = _parsed(wanted), _parsed(got)
        return one and other and json_difference(expected, actual) is None
    texts = _texts(content)
    if texts is None:
        return False
    rest = "".join(texts)
    for part in _texts(wanted) or ():
        at = rest.find(part)
        if at < 0 or rest[:at].strip():
            return False
        rest = rest[at + len(part):]
    return not rest.strip()


def system_prompts(front: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(what, text) of each system prompt source of the front request: `instructions`, then each system or
    developer message."""
    found = [("the instructions", front["instructions"])] if isinstance(front.get("instructions"), str) else []
    items = front["input"] if isinstance(front["input"], list) else []
    return found + [(f"the {i['role']} message at $.input[{n}]", text_of(i.get("content"))) for n, i in enumerate(items)
                    if i.get("type", "message") == "message" and i.get("role") in ("system", "developer")]


def upstream_system(dialect: str, body: Mapping[str, Any]) -> list[str]:
    """The upstream's system prompt texts: Anthropic `system`; Chat system and developer messages; Responses
    `instructions` and system and developer input messages."""
    return DIALECTS[dialect].system_texts(body)


#: Built-in tools that are one tool in several dialects: each row a tool (its Anthropic server-tool `name`), with
#: the `type`s each dialect's SDK defines for it, read from the dialect table's `builtin_tools`. A gateway may send
#: the front's tool as any type of its row in the upstream's dialect (docs/spec/schema-comparison.md §5); Chat
#: Completions has no built-in tool types.
BUILTIN_EQUIVALENTS: Mapping[str, Mapping[str, frozenset[str]]] = {
    row: {d.name: d.builtin_tools[row] for d in DIALECTS.values() if row in d.builtin_tools}
    for row in dict.fromkeys(r for d in DIALECTS.values() for r in d.builtin_tools)
}


def _builtin_row(kind: JSONValue) -> str | None:
    """The row of BUILTIN_EQUIVALENTS a built-in tool type is in, in any dialect (None: in none)."""
    return next((row for row, types in BUILTIN_EQUIVALENTS.items() if any(kind in t for t in types.values())), None)


def _options(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A built-in tool's options: every field but its `type`."""
    return {k: v for k, v in tool.items() if k != "type"}


#: What an upstream tool entry is, when its dialect's reading of it settles nothing: (its name, the front's names
#: it must be one of, its kind), or the problem (a string), or None (no problem).
_Read = tuple[JSONValue, set[Any], Any] | str | None


def _chat_tool(tool: Mapping[str, Any], kind: JSONData, builtins: list[Mapping[str, Any]], functions: set[str],
               custom: set[Any]) -> _Read:
    """Chat Completions has no built-in tool types: each tool a function or custom tool, nested under its type."""
    inner = tool.get(kind) if kind in ("function", "custom") else None
    if not isinstance(inner, Mapping):
        return (f"Chat Completions has no {kind!r} tool" if kind not in ("function", "custom")
                else f"no `{kind}` object")
    return inner.get("name"), functions if kind == "function" else custom, kind


def _anthropic_tool(tool: Mapping[str, Any], kind: JSONData, builtins: list[Mapping[str, Any]], functions: set[str],
                    custom: set[Any]) -> _Read:
    """An Anthropic server tool of a row the front asked for, named by its row; else a custom tool with a schema."""
    kinds = {t.get("type") for t in builtins}
    row = _builtin_row(kind)
    if row is not None and kind in BUILTIN_EQUIVALENTS[row].get("anthropic", ()):
        return None if any(_builtin_row(k) == row for k in kinds) and tool.get("name") == row else (
            f"a {row} server tool the front did not ask for, or not named `{row}`")
    if kind != "custom":
        return f"{kind!r} is not a tool type the front's built-in tools can become in Anthropic Messages"
    if not isinstance(tool.get("input_schema"), Mapping):
        return "no `input_schema` object"
    return tool.get("name"), functions, "function"


def _responses_tool(tool: Mapping[str, Any], kind: JSONData, builtins: list[Mapping[str, Any]], functions: set[str],
                    custom: set[Any]) -> _Read:
    """A built-in tool as the front gave it, or as an equivalent type with the same options; else a function."""
    kinds = {t.get("type") for t in builtins}
    if kind in kinds and kind != "function":
        same = any(json_difference(t, tool) is None for t in builtins)  # by meaning: 1 is 1.0, never true
        return None if same else "a built-in tool changed on the way"
    row = _builtin_row(kind)
    peers = [t for t in builtins if row is not None and _builtin_row(t.get("type")) == row]
    if peers and kind in BUILTIN_EQUIVALENTS[str(row)].get("responses", ()):
        found = [d for t in peers if (d := json_difference(_options(t), _options(tool))) is not None]
        if len(found) < len(peers):
            return None  # the same options as one of the front's tools of its row
        return (f"a built-in tool changed on the way: sent as {kind!r} for the front's "
                f"{peers[0].get('type')!r} (an equivalent type, docs/spec/schema-comparison.md §5), its options "
                f"differ at {found[0].says()}")
    if kind != "function":
        return f"{kind!r} is not one of the front's tools"
    return tool.get("name"), functions, kind


#: How each dialect's upstream tool list may carry the front's built-in tools (GW-REQ-008): one reader per row of
#: the dialect table (tests/harness/dialects/test_tables.py binds them).
BUILTIN_TOOL_READERS: dict[str, Callable[[Mapping[str, Any], Any, list[Mapping[str, Any]], set[str], set[Any]],
                                         _Read]] = {
    "responses": _responses_tool, "chat": _chat_tool, "anthropic": _anthropic_tool,
}


def _tool_problem(dialect: str, tool: JSONValue, functions: set[str], builtins: list[Mapping[str, Any]]) -> str | None:
    """What is wrong with one upstream tool entry where the front request had built-in tools, or None: each entry
    is one of the front's function tools in the upstream's shape, or a built-in tool in a form the upstream dialect
    defines (docs/spec/contracts.md §7.12)."""
    if not isinstance(tool, Mapping):
        return "not a JSON object"
    kind = tool.get("type", DIALECTS[dialect].default_tool_type)
    kinds = {t.get("type") for t in builtins}
    custom = {t.get("name") for t in builtins if t.get("type") == "custom"}
    read = BUILTIN_TOOL_READERS[dialect](tool, kind, builtins, functions, custom)
    if not isinstance(read, tuple):
        return read
    name, table, kind = read
    if not isinstance(name, str) or not name:
        return f"its name is {short(name)}, not a name"
    if name not in table:
        made = " (a built-in tool made into a function tool)" if name in kinds | custom else ""
        return f"{kind} tool {name!r} is not one of the front's {kind} tools{made}"
    return None


def _tool_name(tool: JSONValue) -> JSONValue:
    """An upstream tool entry's name (Chat's inside its `function` / `custom` object)."""
    if not isinstance(tool, Mapping):
        return None
    inner = tool.get(str(tool.get("type")))
    return inner.get("name") if isinstance(inner, Mapping) else tool.get("name")


def function_tools(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A Responses request's function tools (a tool without `type` is one)."""
    return [t for t in request.get("tools") or () if t.get("type", "function") == "function"]


def builtin_tools(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A Responses request's built-in tools: every tool that is not a function tool (web_search, file_search, ...)."""
    return [t for t in request.get("tools") or () if t.get("type", "function") != "function"]


def check_builtin_tools(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    builtins = builtin_tools(front)
    if not builtins:
        return
    findings.check("GW-REQ-008")
    tools = body.get("tools")
    if tools is None:
        return  # every tool dropped: GW-REQ-002 judges the function tools
    if not isinstance(tools, list):
        findings.fail("GW-REQ-008", f"`tools` is {short(tools)}, not a list", Evidence(path="upstream request $.tools"))
        return
    functions = {str(t["name"]) for t in function_tools(front) if t.get("name")}
    custom = {t.get("name") for t in builtins if t.get("type") == "custom"}
    for index, tool in enumerate(tools):
        if _tool_name(tool) in custom:
            continue  # a custom tool, as a custom or a converted function tool: GW-REQ-012 judges it
        problem = _tool_problem(dialect, tool, functions, builtins)
        if problem is not None:
            findings.fail("GW-REQ-008", f"upstream tool {short(tool)}: {problem}; the front's built-in tools "
                          f"{sorted(str(t.get('type')) for t in builtins)} must be dropped (or sent in a form the "
                          f"{dialect} dialect defines), never forwarded as a malformed entry",
                          Evidence(path=f"upstream request $.tools[{index}]"))


def _front_messages(front: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(role, text, JSON path) of the front request's user and assistant messages, in order, in Responses form (a
    bare string input is one user message)."""
    given = front["input"]
    if isinstance(given, str):
        return [("user", given, "$.input")]
    return [(str(i.get("role")), text_of(i.get("content")), f"$.input[{n}]") for n, i in enumerate(given)
            if i.get("type", "message") == "message" and i.get("role") in ("user", "assistant")]


def _upstream_messages(dialect: str, body: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """(role, text) of the upstream request's user and assistant messages, in order (None: no message list)."""
    spec = DIALECTS[dialect]
    given = body.get(spec.messages_key)
    if isinstance(given, str) and spec.bare_string_input:
        return [("user", given)]
    if not isinstance(given, list):
        return None
    return [(str(m.get("role")), text_of(m.get("content"))) for m in given if isinstance(m, Mapping)
            and m.get("type", "message") == "message" and m.get("role") in ("user", "assistant")]


def check_messages(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    """GW-REQ-009: each front user and assistant message with text is in an upstream message of its role, in order
    (an upstream message may hold several: Anthropic joins consecutive messages of one role)."""
    wanted = [m for m in _front_messages(front) if m[1].strip()]
    if not wanted:
        return
    findings.check("GW-REQ-009")
    upstream = _upstream_messages(dialect, body)
    where = f"$.{DIALECTS[dialect].messages_key}"
    if upstream is None:
        findings.fail("GW-REQ-009", f"the upstream request has no message list at {where}",
                      Evidence(path=f"upstream request {where}"))
        return
    at = 0
    marked = next((m for m in wanted if m[0] == "user"), None)  # it carries the markers
    for role, text, path in wanted:
        found = next((j for j in range(at, len(upstream)) if upstream[j][0] == role and text in upstream[j][1]), None)
        if found is not None:
            at = found
            continue
        if (role, text, path) == marked and not any(text in s for s in strings_in(body)):
            continue  # the marked text lost or rewritten: GW-REQ-001's failure, not reported twice
        elsewhere = any(r == role and text in t for r, t in upstream)
        problem = "arrives out of order" if elsewhere else f"is in no upstream {role} message"
        findings.fail("GW-REQ-009", f"the {role} message at front {path} {short(text)} {problem} (upstream "
                      f"{role} messages: {short([t for r, t in upstream if r == role])})",
                      Evidence(path=f"upstream request {where}", expected=text))
