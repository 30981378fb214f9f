"""The `match` block (schemas/scenario.schema.json#/$defs/match): compiled once at load, with load errors that
name the file and the JSON path; the facts it reads from a request of each dialect."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness._types import Dialect
from callproof.harness.scenario import ScenarioError, parse_scenario_file, request_facts
from callproof.harness.scenario._match import compile_match, last_user_text, parse_path, tool_names


def _file(*matches: dict[str, Any]) -> str:
    scenarios = [
        {"id": f"s{i}", "description": f"scenario {i}", "output": [{"type": "text", "text": "hi"}],
        "request": {"input": [{"role": "user", "text": "hi"}]}, "expect": {"status": "completed", "text": "hi"},
        "match": match}
        for i, match in enumerate(matches)
    ]
    return json.dumps({"feature": "x", "description": "matches", "scenarios": scenarios})


def test_a_bad_regex_names_the_file_and_the_json_path() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_file(_file({"model": "m"}, {"model": "m"}, {"user_text": {"regex": "ab[c"}}), "scenarios/x.json")
    assert str(caught.value) == (
        "scenarios/x.json: $.scenarios[2].match.user_text.regex: bad regex (unterminated character set at position 2)")


def test_a_bad_json_path_names_the_predicate() -> None:
    with pytest.raises(ScenarioError, match=r"x\.json: \$\.scenarios\[0\]\.match\.json\[1\]\.path: bad path"):
        parse_scenario_file(_file({"json": [{"path": "$.a", "exists": True}, {"path": "$.a..b", "equals": 1}]}),
                            "x.json")


@pytest.mark.parametrize("match", [{}, {"colour": "red"}, {"json": [{"path": "$.a"}]},
                                   {"json": [{"path": "$.a", "equals": 1, "exists": True}]},
                                   {"user_text": {"equals": "a", "contains": "b"}}, {"dialect": "gemini"}])
def test_the_schema_refuses_malformed_blocks(match: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError, match=r"\$\.scenarios\[0\]"):
        parse_scenario_file(_file(match), "x.json")


def test_the_block_is_compiled_at_load() -> None:
    (scenario,) = parse_scenario_file(_file({"user_text": {"regex": "^weather in (Paris|Rome)"},
                                             "tools": ["b", "a"], "json": [{"path": "$.tools[0]['name']",
                                                                            "equals": "a"}]}), "x.json")
    assert scenario.match is not None
    assert scenario.match.user_text is not None and scenario.match.user_text.pattern is not None
    assert scenario.match.tools == frozenset({"a", "b"})
    assert scenario.match.keys == ("user_text.regex", "tools", "json $.tools[0]['name']")


def test_json_paths() -> None:
    assert parse_path("$") == ()
    assert parse_path("$.tools[0].name") == ("tools", 0, "name")
    assert parse_path("$['a b'][\"c\"].d_e") == ("a b", "c", "d_e")
    for bad in ("tools", "$.", "$[x]", "$.a[-1]"):
        with pytest.raises(ValueError, match="path"):
            parse_path(bad)


def _body(dialect: Dialect) -> dict[str, Any]:
    marker = " [callproof:scenario=one_call] [callproof:case=abc]"
    if dialect == "responses":
        return {"model": "m", "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather" + marker}]},
            {"type": "function_call_output", "call_id": "c", "output": "sunny"}],
            "tools": [{"type": "function", "name": "get_weather", "parameters": {}}], "temperature": 0}
    if dialect == "chat":
        return {"model": "m", "messages": [{"role": "system", "content": "be brief"},
                                           {"role": "user", "content": [{"type": "text", "text": "Weather" + marker}]},
                                           {"role": "assistant", "content": "ok"}],
                "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]}
    return {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "Weather" + marker},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "get_weather", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "sunny"}]}],
        "tools": [{"name": "get_weather", "input_schema": {}}]}


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_the_last_user_text_and_tools_in_every_dialect(dialect: Dialect) -> None:
    body = _body(dialect)
    assert last_user_text(dialect, body) == "Weather"
    assert tool_names(body) == {"get_weather"}
    match = compile_match({"user_text": {"equals": "Weather"}, "tools": ["get_weather"], "model": "m"})
    assert match.holds(request_facts(dialect, body))
    other = compile_match({"user_text": {"contains": "Rain"}, "dialect": "chat", "model": "m"})
    failed = other.failures(request_facts(dialect, body))
    assert failed == (("user_text.contains",) if dialect == "chat" else ("user_text.contains", "dialect"))


def test_a_bare_string_input_is_the_user_text() -> None:
    assert last_user_text("responses", {"input": "hello [callproof:case=1]"}) == "hello"
    assert last_user_text("chat", {"messages": []}) == ""


@pytest.mark.parametrize(("predicate", "holds"), [
    ({"path": "$.temperature", "equals": 0}, True),
    ({"path": "$.temperature", "equals": 0.0}, True),
    ({"path": "$.temperature", "equals": False}, False),
    ({"path": "$.stream", "equals": True}, True),
    ({"path": "$.stream", "equals": 1}, False),
    ({"path": "$.tools[0].name", "exists": True}, True),
    ({"path": "$.tools[1]", "exists": True}, False),
    ({"path": "$.top_p", "exists": False}, True),
    ({"path": "$.top_p", "equals": None}, False),
    ({"path": "$.meta", "equals": {"a": [1, 2]}}, True),
])
def test_json_predicates(predicate: dict[str, Any], holds: bool) -> None:
    body = {"temperature": 0, "stream": True, "tools": [{"name": "t"}], "meta": {"a": [1, 2]}}
    assert compile_match({"json": [predicate]}).holds(request_facts("responses", body)) is holds
