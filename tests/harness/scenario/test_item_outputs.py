"""The output types beyond text and function calls: loaded into their dataclasses, fragments checked, and the
`expect` fields for custom calls and refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from callproof.harness.scenario import (
    Chunked,
    CodeInterpreterCall,
    CustomToolCall,
    McpCall,
    ScenarioError,
    ShellCall,
    ShellCallOutput,
    ShellOutput,
    parse_scenario_file,
)
from callproof.mock_server.dialects import RENDERERS, RenderContext


def _load(output: list[dict[str, Any]], expect: dict[str, Any] | None = None) -> Any:
    doc = {"feature": "items", "description": "d", "scenarios": [{
        "id": "s", "description": "d", "request": {"input": "hi"}, "output": output,
        "expect": expect or {"status": "completed"}}]}
    return parse_scenario_file(json.dumps(doc), "items.json")[0]


def test_every_item_type_loads_into_its_dataclass() -> None:
    patch = '*** Begin Patch\n*** Update File: a.py\n-x = "a\\\\b"\n+x = 1\n*** End Patch'
    scenario = _load([
        {"type": "reasoning", "text": "", "summary": ["first part", "second"], "encrypted_content": "gAAA",
         "chunk": {"size": 6}},
        {"type": "refusal", "text": "I can't help with that."},
        {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "chunk": {"size": 10}},
        {"type": "mcp_call", "server_label": "docs", "name": "search_docs", "arguments": '{"q":"x"}', "output": "ok"},
        {"type": "shell_call", "commands": ["ls -la", "cat a.txt"],
         "chunk": {"fragments": ["ls", " -la", "cat a.txt"]}},
        {"type": "code_interpreter_call", "code": "print(1)"},
        {"type": "text", "text": "See docs.", "annotations": [{"type": "url_citation", "url": "https://x",
                                                               "title": "x", "start_index": 4, "end_index": 8}]},
    ])
    reasoning, refusal, custom, mcp, shell, code, text = scenario.output
    assert isinstance(reasoning, Chunked) and reasoning.fragments == ()
    assert reasoning.summary == ("first part", "second")
    assert reasoning.summary_fragments == (("first ", "part"), ("second",)) and reasoning.encrypted_content == "gAAA"
    assert isinstance(refusal, Chunked) and refusal.type == "refusal"
    assert isinstance(custom, CustomToolCall) and "".join(custom.fragments) == patch and custom.call_id == "call_s_2"
    assert isinstance(mcp, McpCall) and mcp.server_label == "docs" and mcp.output == "ok"
    assert isinstance(shell, ShellCall) and shell.command_of == (0, 0, 1) and shell.commands == ("ls -la", "cat a.txt")
    assert isinstance(code, CodeInterpreterCall) and code.fragments == ("print(1)",)
    assert isinstance(text, Chunked) and text.annotations[0]["type"] == "url_citation"
    assert scenario.custom_calls == (custom,) and scenario.calls == ()


def test_a_hosted_shell_output_splits_each_stdout_then_stderr_and_renders_every_command_done() -> None:
    scenario = _load([
        {"type": "shell_call", "call_id": "c1", "commands": ["true", "ls", "cat x"]},
        {"type": "shell_call_output", "call_id": "c1", "chunk": {"size": 3},
         "outputs": [{}, {"stdout": "a.txt\n"}, {"stdout": "", "stderr": "no x\n", "exit_code": 1}]}])
    output = scenario.output[1]
    assert isinstance(output, ShellCallOutput) and output.outputs[0] == ShellOutput("", "", 0)
    assert output.fragments == ("a.t", "xt\n", "no ", "x\n")
    assert output.piece_of == ((1, "stdout"), (1, "stdout"), (2, "stderr"), (2, "stderr"))
    body = RENDERERS["responses"].stream(scenario, RenderContext(request={})).body.decode()
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
    dones = [e for e in events if e["type"] == "response.shell_call_output_content.done"]
    assert [d["command_index"] for d in dones] == [0, 1, 2]  # a command that printed nothing has its done too
    assert dones[2]["output"] == [{"stdout": "", "stderr": "no x\n", "outcome": {"type": "exit", "exit_code": 1}}]


def test_a_shell_fragment_across_two_commands_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"output\[0\]\.chunk: fragment 'lac' straddles two commands"):
        _load([{"type": "shell_call", "commands": ["ls -la", "cat"], "chunk": {"fragments": ["ls -", "lac", "at"]}}])


def test_expect_takes_custom_calls_and_a_refusal() -> None:
    expect = {"status": "completed", "refusal": "No.", "tool_calls": [
        {"type": "custom", "name": "apply_patch", "input": "raw\ntext"}, {"name": "f", "arguments": {}}]}
    scenario = _load([{"type": "refusal", "text": "No."}], expect)
    assert scenario.expect.refusal == "No."
    assert scenario.expect.tool_calls[0] == {"type": "custom", "name": "apply_patch", "input": "raw\ntext"}


@pytest.mark.parametrize("call", [
    {"type": "custom", "name": "apply_patch", "arguments": {}},
    {"name": "f", "input": "x"},
])
def test_an_expected_call_mixing_the_kinds_is_refused(call: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError, match=r"expect\.tool_calls\[0\]"):
        _load([{"type": "text", "text": "x"}], {"status": "completed", "tool_calls": [call]})
