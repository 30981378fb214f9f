"""Family 8, request translation (GW-REQ-*): the upstream request carries what the front request asked for, in
the upstream dialect's shape (docs/spec/open-responses.md §1.5, docs/spec/responses.md §2.2, §2.3,
docs/spec/chat.md §3.3).

Each check reads the scenario's request in Responses form (the front request the harness sent, whatever the front's
dialect: the same markers, history and call ids) and the body the mock received, and fails its rule with the JSON
path in the upstream body where the translation went wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import strings_in

from ._findings import Findings
from ._request_shapes import (
    check_builtin_tools,
    check_messages,
    function_tools,
    same_output,
    system_prompts,
    upstream_system,
)
from ._schema_meaning import json_difference
from ._strict_schema import compared_by, strict_schema_difference, strict_target

__all__ = ["HISTORY_CHECKS", "check_translation"]


#: A GW-REQ-006 problem: its message, and the upstream JSON path (or the evidence, when it names both values).
_Problem = tuple[str, str | Evidence]


def _where(path: str) -> Evidence:
    return Evidence(path=f"upstream request {path}")


def _json_equal(text: JSONValue, value: JSONValue) -> bool:
    """Whether `text` (a JSON text, or an already parsed value) is the JSON value `value` (by meaning: key order
    ignored, numbers by value, `true` never `1`)."""
    if isinstance(text, str):
        try:
            return json_difference(value, json.loads(text)) is None
        except ValueError:
            return False
    return json_difference(value, text) is None


def _upstream_tools(dialect: str, body: Mapping[str, Any]) -> dict[str, tuple[Any, Any, str, Any]] | None:
    """name -> (description, parameters, JSON path, strict) of the tools in the upstream body."""
    if not isinstance(body.get("tools"), list):
        return None
    return DIALECTS[dialect].function_tools(body)


def _tools(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    if not function_tools(front):
        return
    findings.check("GW-REQ-002")
    spec = DIALECTS[dialect]
    if spec.no_tools_means_none and front.get("tool_choice") == "none" and "tools" not in body:
        return  # Anthropic: leaving the tools out is one way to say tool_choice none
    found = _upstream_tools(dialect, body)
    if found is None:
        findings.fail("GW-REQ-002", "the upstream request has no `tools` list", _where("$.tools"))
        return
    schema_field = spec.schema_field
    for tool in function_tools(front):
        if not tool.get("name"):
            continue  # a tool without a name: GW-REQ-013 judges it
        name = tool["name"]
        if name not in found:
            findings.fail("GW-REQ-002", f"tool {name!r} is missing upstream (it has {sorted(found)})",
                          _where("$.tools"))
            continue
        description, parameters, path, strict = found[name]
        if "description" in tool and description != tool["description"]:
            findings.fail("GW-REQ-002", f"tool {name!r} has description {short(description)} upstream, expected "
                          f"{short(tool['description'])}", Evidence(path=f"upstream request {path}.description",
                                                                    expected=tool["description"], actual=description))
        target = strict_target(dialect, strict=strict is True)  # a strict tool: the upstream's strict mode
        difference = strict_schema_difference(tool["parameters"], parameters, target)
        if difference is not None:
            findings.fail("GW-REQ-002", f"tool {name!r} has {schema_field} that differ from the front's at "
                          f"{difference.says()} {compared_by(target)}; forward the schema unchanged"
                          f"{' or in that form' if target else ''}",
                          difference.evidence(f"upstream request {path}.{schema_field}"))


def _choice_ok(dialect: str, choice: JSONValue, body: Mapping[str, Any]) -> tuple[bool, Any]:
    """Whether the upstream tool_choice means `choice`, and what was expected (for the evidence)."""
    return DIALECTS[dialect].tool_choice_ok(choice, body)


def _tool_choice(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    if "tool_choice" not in front:
        return
    findings.check("GW-REQ-003")
    ok, expected = _choice_ok(dialect, front["tool_choice"], body)
    if not ok:
        findings.fail("GW-REQ-003", f"tool_choice {short(front['tool_choice'])} became "
                      f"{short(body.get('tool_choice'))} upstream, expected {short(expected)}",
                      Evidence(path="upstream request $.tool_choice", expected=expected,
                               actual=body.get("tool_choice")))


def _parallel(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    if front.get("parallel_tool_calls") is not False:
        return
    findings.check("GW-REQ-004")
    field, wanted = DIALECTS[dialect].parallel_off
    actual: JSONData = body
    for key in field.split("."):
        actual = actual.get(key) if isinstance(actual, Mapping) else None
    if actual is wanted:
        return
    if wanted is True:
        findings.fail("GW-REQ-004", f"parallel_tool_calls false did not become {field} true upstream",
                      Evidence(path=f"upstream request $.{field}", expected=True, actual=actual))
    else:
        findings.fail("GW-REQ-004", f"{field} is {short(actual)} upstream, expected false",
                      Evidence(path=f"upstream request $.{field}", expected=False, actual=actual))


def _instructions(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    sources = system_prompts(front)
    if not sources:
        return
    findings.check("GW-REQ-005")
    system = upstream_system(dialect, body)
    path = DIALECTS[dialect].system_path
    for what, wanted in sources:
        if wanted and not any(wanted in text for text in system):
            findings.fail("GW-REQ-005", f"{what} {short(wanted)} is not in the upstream's system prompt "
                          f"(it has {short(system)})", Evidence(path=f"upstream request {path}", expected=wanted))


def _output_problem(what: str, item: Mapping[str, Any], got: JSONValue, path: str) -> _Problem:
    """A tool output that does not reach the upstream as given: both values and the JSON path, in every dialect."""
    wanted = item["output"]
    return (f"the {what} for {item['call_id']!r} at {path} is {short(got)}, expected {short(wanted)}"
            f"{'' if isinstance(wanted, str) else ' (the texts of its parts)'} (a JSON output is compared by "
            "meaning, any other byte for byte: docs/spec/schema-comparison.md §3)",
            Evidence(path=f"upstream request {path}", expected=wanted, actual=got))


def _chat_history(front_items: list[Mapping[str, Any]], body: Mapping[str, Any]) -> list[_Problem]:
    messages = [m for m in body.get("messages") or () if isinstance(m, Mapping)]
    problems: list[_Problem] = []
    for item in front_items:
        if item["type"] == "function_call":
            hits = [
                (i, c) for i, m in enumerate(messages) if m.get("role") == "assistant"
                for c in m.get("tool_calls") or () if isinstance(c, Mapping) and c.get("id") == item["call_id"]
            ]
            fn = hits[0][1].get("function") if hits else None
            if not hits or not isinstance(fn, Mapping):
                problems.append((f"no assistant tool_calls entry with id {item['call_id']!r}", "$.messages"))
            elif fn.get("name") != item["name"] or not _json_equal(fn.get("arguments"), json.loads(item["arguments"])):
                problems.append((f"tool call {item['call_id']!r} is {short(fn)} upstream, expected name "
                                 f"{item['name']!r} and arguments {item['arguments']}",
                                 f"$.messages[{hits[0][0]}].tool_calls"))
        else:
            tools = [(i, m) for i, m in enumerate(messages)
                     if m.get("role") == "tool" and m.get("tool_call_id") == item["call_id"]]
            if not tools:
                problems.append((f"no tool message with tool_call_id {item['call_id']!r}", "$.messages"))
            elif not same_output(item["output"], tools[0][1].get("content")):
                problems.append(_output_problem("tool result", item, tools[0][1].get("content"),
                                                f"$.messages[{tools[0][0]}].content"))
    return problems


def _anthropic_history(front_items: list[Mapping[str, Any]], body: Mapping[str, Any]) -> list[_Problem]:
    blocks: list[tuple[int, Mapping[str, Any]]] = []
    places: dict[int, str] = {}  # id(block) -> its JSON path
    for index, message in enumerate(body.get("messages") or ()):
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for at, block in enumerate(content):
                if isinstance(block, Mapping):
                    blocks.append((index, block))
                    places[id(block)] = f"$.messages[{index}].content[{at}]"
    problems: list[_Problem] = []
    for item in front_items:
        if item["type"] == "function_call":
            uses = [(i, b) for i, b in blocks if b.get("type") == "tool_use" and b.get("id") == item["call_id"]]
            if not uses:
                problems.append((f"no tool_use block with id {item['call_id']!r}", "$.messages"))
            elif uses[0][1].get("name") != item["name"] or json_difference(
                    json.loads(item["arguments"]), uses[0][1].get("input")) is not None:
                problems.append((f"tool_use {item['call_id']!r} is {short(uses[0][1])} upstream",
                                 f"$.messages[{uses[0][0]}].content"))
        else:
            results = [(i, b) for i, b in blocks
                       if b.get("type") == "tool_result" and b.get("tool_use_id") == item["call_id"]]
            if not results:
                problems.append((f"no tool_result block with tool_use_id {item['call_id']!r}", "$.messages"))
            elif not same_output(item["output"], results[0][1].get("content")):
                problems.append(_output_problem("tool_result", item, results[0][1].get("content"),
                                                f"{places[id(results[0][1])]}.content"))
    return problems


def _responses_history(front_items: list[Mapping[str, Any]], body: Mapping[str, Any]) -> list[_Problem]:
    items = [i for i in body.get("input") or () if isinstance(i, Mapping)]
    problems: list[_Problem] = []
    for item in front_items:
        same = [i for i in items if i.get("type") == item["type"] and i.get("call_id") == item["call_id"]]
        if not same:
            problems.append((f"no {item['type']} item with call_id {item['call_id']!r}", "$.input"))
        elif item["type"] == "function_call_output" and not same_output(item["output"], same[0].get("output")):
            problems.append(_output_problem("output", item, same[0].get("output"),
                                            f"$.input[{next(n for n, i in enumerate(items) if i is same[0])}].output"))
        elif item["type"] == "function_call" and (
            same[0].get("name") != item["name"] or not _json_equal(same[0].get("arguments"),
                                                                   json.loads(item["arguments"]))):
            problems.append((f"function_call {item['call_id']!r} is {short(same[0])} upstream", "$.input"))
    return problems


#: How each dialect's upstream request must carry the front's calls and tool results (GW-REQ-006): one per row of
#: the dialect table (tests/harness/dialects/test_tables.py binds them).
HISTORY_CHECKS: dict[str, Callable[[list[Any], Mapping[str, Any]], list[_Problem]]] = {
    "responses": _responses_history, "chat": _chat_history, "anthropic": _anthropic_history,
}


def _history(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    items = [i for i in front["input"] if i.get("type") in ("function_call", "function_call_output")] \
        if isinstance(front["input"], list) else []
    if not items:
        return
    findings.check("GW-REQ-006")
    check = HISTORY_CHECKS[dialect]
    for message, where in check(items, body):
        findings.fail("GW-REQ-006", message, where if isinstance(where, Evidence) else _where(where))


def _max_tokens(findings: Findings, dialect: str, front: Mapping[str, Any], body: Mapping[str, Any]) -> None:
    if "max_output_tokens" not in front:
        return
    findings.check("GW-REQ-007")
    wanted = front["max_output_tokens"]
    fields = DIALECTS[dialect].max_tokens_fields
    if not any(body.get(f) == wanted for f in fields):
        findings.fail("GW-REQ-007", f"max_output_tokens {wanted} is not forwarded as {' or '.join(fields)} "
                      f"(got {short({f: body.get(f) for f in fields})})",
                      Evidence(path=f"upstream request $.{fields[0]}", expected=wanted, actual=body.get(fields[0])))


def check_translation(
    findings: Findings, dialect: str, front: Mapping[str, Any], user_text: str, bodies: list[Any],
) -> None:
    """GW-REQ-001..009 for one case: `bodies` are the upstream request bodies the mock saw for it, in order."""
    findings.check("GW-REQ-001")
    if not bodies:
        findings.fail("GW-REQ-001", "the mock received no upstream request carrying this case's marker "
                      "[callproof:case=...]; the user text was not forwarded, or the IUT called another upstream",
                      _where("$"))
        return
    body = bodies[0]
    if not isinstance(body, Mapping):
        findings.fail("GW-REQ-001", f"the upstream request body is not a JSON object: {short(body)}", _where("$"))
        return
    if not any(user_text in s for s in strings_in(body)):
        findings.fail("GW-REQ-001", f"the user's text {short(user_text)} does not appear intact in the upstream "
                      "request", _where("$"))
    for check in (_tools, _tool_choice, _parallel, _instructions, _history, _max_tokens, check_builtin_tools,
                  check_messages):
        check(findings, dialect, front, body)
