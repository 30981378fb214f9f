"""The Responses events of the output items beyond text and function calls: refusals, reasoning (text, summary
parts, encrypted_content), custom tool calls, MCP calls, shell calls and code interpreter calls, each shaped as
the openai SDK types it (schemas/responses/events/*.json). `_responses` dispatches here on the item's type."""

from __future__ import annotations

from typing import Any, Protocol

from callproof.harness.scenario import (
    Chunked,
    CodeInterpreterCall,
    CustomToolCall,
    McpCall,
    Output,
    ShellCall,
    ShellCallOutput,
)

__all__ = ["Out", "add_item", "close_item", "fragment_item"]


class Out(Protocol):
    """What these functions need of the stream being built."""

    @property
    def encrypted(self) -> bool: ...

    def emit(self, type_: str, fields: dict[str, Any], *, content: str | None = None, delta: bool = False) -> None:
        ...

    def where(self, index: int) -> dict[str, Any]: ...

    def encrypted_content(self, index: int) -> str: ...


def _status(done: dict[str, Any], status: str) -> dict[str, Any]:
    return {**done, "status": status} if "status" in done else done


def added_item(item: Output, item_id: str) -> dict[str, Any]:
    """The item as output_item.added carries it (empty content, status in_progress)."""
    if isinstance(item, CustomToolCall):
        return {"id": item_id, "type": "custom_tool_call", **_call_id(item.call_id), "name": item.name, "input": ""}
    if isinstance(item, McpCall):
        return {"id": item_id, "type": "mcp_call", "server_label": item.server_label, "name": item.name,
                "arguments": "", "status": "in_progress"}
    if isinstance(item, ShellCall):
        return {"id": item_id, "type": "shell_call", **_call_id(item.call_id), "action": {"commands": []},
                "status": "in_progress"}
    if isinstance(item, ShellCallOutput):
        return {"id": item_id, "type": "shell_call_output", "call_id": item.call_id, "status": "in_progress",
                "output": []}
    if isinstance(item, CodeInterpreterCall):
        return {"id": item_id, "type": "code_interpreter_call", "status": "in_progress",
                "container_id": item.container_id, "code": "", "outputs": None}
    assert isinstance(item, Chunked)
    if item.type == "refusal":
        return {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    return {"id": item_id, "type": "reasoning", "summary": []}


def _call_id(call_id: str | None) -> dict[str, Any]:
    """A call without call_id has no call_id key anywhere."""
    return {} if call_id is None else {"call_id": call_id}


def add_item(out: Out, index: int, item: Output, item_id: str) -> None:
    """output_item.added and what opens the item's content."""
    out.emit("response.output_item.added", {"output_index": index, "item": added_item(item, item_id)})
    where = out.where(index)
    if isinstance(item, McpCall):
        out.emit("response.mcp_call.in_progress", where)
    elif isinstance(item, CodeInterpreterCall):
        out.emit("response.code_interpreter_call.in_progress", where)
    elif isinstance(item, Chunked) and item.type == "refusal":
        out.emit("response.content_part.added", {**where, "content_index": 0, "part": _refusal_part("")})
    elif isinstance(item, Chunked) and item.type == "reasoning" and item.text:
        out.emit("response.content_part.added", {**where, "content_index": 0, "part": _reasoning_part("")})


#: The delta event of each kind, and where it says which content it belongs to.
_DELTA = {"custom_tool_call": "response.custom_tool_call_input.delta", "mcp_call": "response.mcp_call_arguments.delta",
          "code_interpreter_call": "response.code_interpreter_call_code.delta", "refusal": "response.refusal.delta",
          "reasoning": "response.reasoning_text.delta"}


def fragment_item(out: Out, index: int, item: Output, fragment: int) -> None:
    """One fragment's delta event (a shell command's added/done around its first/last fragment)."""
    piece = item.fragments[fragment]
    if isinstance(item, ShellCall):
        command = item.command_of[fragment]
        at = {"output_index": index, "command_index": command}
        if fragment == 0 or item.command_of[fragment - 1] != command:
            out.emit("response.shell_call_command.added", {**at, "command": ""})
        out.emit("response.shell_call_command.delta", {**at, "delta": piece}, content=piece, delta=True)
        if fragment == len(item.fragments) - 1 or item.command_of[fragment + 1] != command:
            out.emit("response.shell_call_command.done", {**at, "command": item.commands[command]})
        return
    if isinstance(item, ShellCallOutput):
        _output_piece(out, index, item, fragment)
        return
    fields = out.where(index)
    if isinstance(item, Chunked):
        fields["content_index"] = 0
    out.emit(_DELTA[item.type], {**fields, "delta": piece}, content=piece, delta=True)


def _output_piece(out: Out, index: int, item: ShellCallOutput, fragment: int) -> None:
    """A stdout or stderr piece of a hosted shell's output; each command's done follows its last piece (a command
    that printed nothing gets its done where its pieces would have been)."""
    command, stream = item.piece_of[fragment]
    before = item.piece_of[fragment - 1][0] if fragment else -1
    _outputs_done(out, index, item, range(before + 1, command))
    piece = item.fragments[fragment]
    out.emit("response.shell_call_output_content.delta",
             {**out.where(index), "command_index": command, "delta": {stream: piece}}, content=piece, delta=True)
    if fragment == len(item.fragments) - 1 or item.piece_of[fragment + 1][0] != command:
        _outputs_done(out, index, item, range(command, command + 1))


def _outputs_done(out: Out, index: int, item: ShellCallOutput, commands: range) -> None:
    for command in commands:
        out.emit("response.shell_call_output_content.done",
                 {**out.where(index), "command_index": command, "output": [_shell_output(item, command)]})


def _shell_output(item: ShellCallOutput, command: int) -> dict[str, Any]:
    output = item.outputs[command]
    return {"stdout": output.stdout, "stderr": output.stderr,
            "outcome": {"type": "exit", "exit_code": output.exit_code}}


def close_item(out: Out, index: int, item: Output, item_id: str, status: str) -> dict[str, Any]:
    """The done events of the item, output_item.done, and the done item (as the terminal response holds it)."""
    where = out.where(index)
    done: dict[str, Any]
    if isinstance(item, CustomToolCall):
        out.emit("response.custom_tool_call_input.done", {**where, "input": item.input})
        done = {**added_item(item, item_id), "input": item.input}
    elif isinstance(item, McpCall):
        out.emit("response.mcp_call_arguments.done", {**where, "arguments": item.arguments})
        if status == "completed":
            out.emit("response.mcp_call.completed", where)
        done = _status({**added_item(item, item_id), "arguments": item.arguments, "output": item.output}, status)
    elif isinstance(item, ShellCall):
        done = _status({**added_item(item, item_id), "action": {"commands": list(item.commands)}}, status)
    elif isinstance(item, ShellCallOutput):
        last = item.piece_of[-1][0] if item.piece_of else -1
        _outputs_done(out, index, item, range(last + 1, len(item.outputs)))
        done = _status({**added_item(item, item_id), "output": [_shell_output(item, k)
                                                                for k in range(len(item.outputs))]}, status)
    elif isinstance(item, CodeInterpreterCall):
        out.emit("response.code_interpreter_call_code.done", {**where, "code": item.code})
        if status == "completed":
            out.emit("response.code_interpreter_call.interpreting", where)
            out.emit("response.code_interpreter_call.completed", where)
        done = _status({**added_item(item, item_id), "code": item.code}, status)
    else:
        assert isinstance(item, Chunked)
        done = _close_chunked(out, index, item, item_id, status)
    out.emit("response.output_item.done", {"output_index": index, "item": done})
    return done


def _close_chunked(out: Out, index: int, item: Chunked, item_id: str, status: str) -> dict[str, Any]:
    where = out.where(index)
    if item.type == "refusal":
        out.emit("response.refusal.done", {**where, "content_index": 0, "refusal": item.text})
        out.emit("response.content_part.done", {**where, "content_index": 0, "part": _refusal_part(item.text)})
        return {"id": item_id, "type": "message", "status": status, "content": [_refusal_part(item.text)],
                "role": "assistant"}
    done: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    if item.text:
        out.emit("response.reasoning_text.done", {**where, "content_index": 0, "text": item.text})
        out.emit("response.content_part.done", {**where, "content_index": 0, "part": _reasoning_part(item.text)})
    for number, (part, pieces) in enumerate(zip(item.summary, item.summary_fragments, strict=True)):
        at = {**where, "summary_index": number}
        out.emit("response.reasoning_summary_part.added", {**at, "part": _summary_part("")})
        for piece in pieces:
            out.emit("response.reasoning_summary_text.delta", {**at, "delta": piece}, content=piece, delta=True)
        out.emit("response.reasoning_summary_text.done", {**at, "text": part})
        out.emit("response.reasoning_summary_part.done", {**at, "part": _summary_part(part)})
        done["summary"].append(_summary_part(part))
    if item.text:
        done["content"] = [_reasoning_part(item.text)]
    if out.encrypted:
        done["encrypted_content"] = item.encrypted_content or out.encrypted_content(index)
    if status == "incomplete":
        done["status"] = status
    return done


def _refusal_part(text: str) -> dict[str, Any]:
    return {"type": "refusal", "refusal": text}


def _reasoning_part(text: str) -> dict[str, Any]:
    return {"type": "reasoning_text", "text": text}


def _summary_part(text: str) -> dict[str, Any]:
    return {"type": "summary_text", "text": text}
