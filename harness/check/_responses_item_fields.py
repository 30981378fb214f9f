"""The table of streamed item fields: for each delta/done/added event of the Responses stream beyond function-call
arguments and message text, the field it builds, where the field's value sits in the event and in the done item,
and the rule that compares them (RSP-ITEM-001..008; RSP-ITEM-009 their lifecycle). A new delta/done pair is one
`FieldSpec` and its rows in `ITEM_EVENTS`; docs/spec/responses.md §2.6 describes each pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["EACH", "FIELDS", "INDEX", "ITEM_EVENTS", "LIFECYCLE_RULE", "FieldSpec", "Path", "Row", "dig", "render"]

#: The rule for the order of a field's events: a delta after its done, a second done, an index never added, a field
#: still open when its item is done.
LIFECYCLE_RULE = "RSP-ITEM-009"

#: In a path: the event's index (command_index, content_index, summary_index).
INDEX = -1
#: In a path: every element of a list, their strings joined.
EACH = -2

Path = tuple[str | int, ...]

Action = Literal["added", "delta", "done", "close", "annotation"]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One streamed field. Paths are keys and list indexes, INDEX standing for the event's `index_key` value."""

    name: str                    #: how messages name it: "custom tool input"
    item_type: str | None        #: the type of the item the events must name; None: a response-level stream (audio)
    rule: str                    #: the rule for a value that differs
    item_path: Path | None       #: the field in the done item; None: the item does not hold it
    index_key: str | None = None  #: the event key of the index: command_index, content_index, summary_index
    delta_path: Path = ("delta",)  #: the text a delta event adds
    done_path: Path | None = None  #: the whole value in the done event; None: the done event carries none
    added_path: Path | None = None  #: the starting text in the added event; None: no added event (the item opens it)
    close_path: Path | None = None  #: the value in the event that closes the part (reasoning_summary_part.done)
    quiet: bool = False          #: a second view of another field's events: values only, no lifecycle reports


@dataclass(frozen=True, slots=True)
class Row:
    """What one event type does to one field."""

    spec: FieldSpec
    action: Action


CUSTOM_INPUT = FieldSpec("custom tool input", "custom_tool_call", "RSP-ITEM-001", ("input",), done_path=("input",))
MCP_ARGUMENTS = FieldSpec("MCP arguments", "mcp_call", "RSP-ITEM-002", ("arguments",), done_path=("arguments",))
SHELL_COMMAND = FieldSpec("shell command", "shell_call", "RSP-ITEM-003", ("action", "commands", INDEX),
                          "command_index", done_path=("command",), added_path=("command",))
SHELL_STDOUT = FieldSpec("shell output stdout", "shell_call_output", "RSP-ITEM-004", ("output", INDEX, "stdout"),
                         "command_index", ("delta", "stdout"), ("output", EACH, "stdout"))
SHELL_STDERR = FieldSpec("shell output stderr", "shell_call_output", "RSP-ITEM-004", ("output", INDEX, "stderr"),
                         "command_index", ("delta", "stderr"), ("output", EACH, "stderr"), quiet=True)
REASONING_TEXT = FieldSpec("reasoning text", "reasoning", "RSP-ITEM-005", ("content", INDEX, "text"),
                           "content_index", done_path=("text",))
SUMMARY_TEXT = FieldSpec("reasoning summary text", "reasoning", "RSP-ITEM-006", ("summary", INDEX, "text"),
                         "summary_index", done_path=("text",), added_path=("part", "text"),
                         close_path=("part", "text"))
CODE = FieldSpec("code interpreter code", "code_interpreter_call", "RSP-ITEM-007", ("code",), done_path=("code",))
ANNOTATIONS = FieldSpec("output_text annotations", "message", "RSP-ITEM-008", ("content", INDEX, "annotations"),
                        "content_index")
AUDIO = FieldSpec("audio", None, LIFECYCLE_RULE, None)
AUDIO_TRANSCRIPT = FieldSpec("audio transcript", None, LIFECYCLE_RULE, None)

#: Every field by name.
FIELDS = {spec.name: spec for spec in (CUSTOM_INPUT, MCP_ARGUMENTS, SHELL_COMMAND, SHELL_STDOUT, SHELL_STDERR,
                                       REASONING_TEXT, SUMMARY_TEXT, CODE, ANNOTATIONS, AUDIO, AUDIO_TRANSCRIPT)}

#: Event type -> what it does, to which field (the shell output events feed stdout and stderr alike).
ITEM_EVENTS: dict[str, tuple[Row, ...]] = {
    "response.custom_tool_call_input.delta": (Row(CUSTOM_INPUT, "delta"),),
    "response.custom_tool_call_input.done": (Row(CUSTOM_INPUT, "done"),),
    "response.mcp_call_arguments.delta": (Row(MCP_ARGUMENTS, "delta"),),
    "response.mcp_call_arguments.done": (Row(MCP_ARGUMENTS, "done"),),
    "response.shell_call_command.added": (Row(SHELL_COMMAND, "added"),),
    "response.shell_call_command.delta": (Row(SHELL_COMMAND, "delta"),),
    "response.shell_call_command.done": (Row(SHELL_COMMAND, "done"),),
    "response.shell_call_output_content.delta": (Row(SHELL_STDOUT, "delta"), Row(SHELL_STDERR, "delta")),
    "response.shell_call_output_content.done": (Row(SHELL_STDOUT, "done"), Row(SHELL_STDERR, "done")),
    "response.reasoning_text.delta": (Row(REASONING_TEXT, "delta"),),
    "response.reasoning_text.done": (Row(REASONING_TEXT, "done"),),
    "response.reasoning.delta": (Row(REASONING_TEXT, "delta"),),  # the Open Responses names of the same events
    "response.reasoning.done": (Row(REASONING_TEXT, "done"),),
    "response.reasoning_summary_part.added": (Row(SUMMARY_TEXT, "added"),),
    "response.reasoning_summary_text.delta": (Row(SUMMARY_TEXT, "delta"),),
    "response.reasoning_summary_text.done": (Row(SUMMARY_TEXT, "done"),),
    "response.reasoning_summary_part.done": (Row(SUMMARY_TEXT, "close"),),
    "response.code_interpreter_call_code.delta": (Row(CODE, "delta"),),
    "response.code_interpreter_call_code.done": (Row(CODE, "done"),),
    "response.output_text.annotation.added": (Row(ANNOTATIONS, "annotation"),),
    "response.audio.delta": (Row(AUDIO, "delta"),),
    "response.audio.done": (Row(AUDIO, "done"),),
    "response.audio.transcript.delta": (Row(AUDIO_TRANSCRIPT, "delta"),),
    "response.audio.transcript.done": (Row(AUDIO_TRANSCRIPT, "done"),),
}


def dig(value: object, path: Path, index: int) -> object:
    """The value at `path` (INDEX read as `index`; EACH joins the strings of a list), None when it is missing."""
    for position, step in enumerate(path):
        if step == EACH:
            if not isinstance(value, list):
                return None
            found = [dig(element, path[position + 1:], index) for element in value]
            return "".join(f for f in found if isinstance(f, str)) if all(isinstance(f, str) for f in found) else None
        key = index if step == INDEX else step
        if isinstance(key, str):
            value = value.get(key) if isinstance(value, dict) else None
        elif isinstance(value, list) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def render(path: Path, index: int) -> str:
    """`path` as a JSON path suffix: ("action", "commands", INDEX) -> `.action.commands[2]`."""
    out = ""
    for step in path:
        if step == EACH:
            out += "[*]"
        elif isinstance(step, int):
            out += f"[{index if step == INDEX else step}]"
        else:
            out += f".{step}"
    return out
