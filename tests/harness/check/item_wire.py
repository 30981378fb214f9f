"""Responses streams of the item fields beyond function calls and message text (docs/spec/responses.md §2.6): one
correct stream per field, and one broken stream per rule RSP-ITEM-001..009. The bundled captures
(examples/captures/responses/openai/{ok,broken}/items-*.sse, RSP-ITEM-*.sse) are written from these:

    .venv/bin/python -m tests.harness.check.item_wire

and tests/harness/check/test_item_fields.py checks the files still equal what this module builds."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Event = dict[str, Any]
ROOT = Path(__file__).resolve().parents[3]
OPENAI = ROOT / "examples" / "captures" / "responses" / "openai"
_RESP = "resp_5e1d0c0a9b7f4c3d8e2a1b6c7d8e9f00"

_RESPONSE: dict[str, Any] = {
    "id": _RESP, "object": "response", "created_at": 1767225600, "status": "in_progress", "background": False,
    "completed_at": None, "error": None, "incomplete_details": None, "instructions": None, "max_output_tokens": None,
    "max_tool_calls": None, "model": "gpt-5-2025-08-07", "output": [], "parallel_tool_calls": True,
    "presence_penalty": 0.0, "frequency_penalty": 0.0, "previous_response_id": None, "prompt_cache_key": None,
    "reasoning": {"effort": "medium", "summary": "auto"}, "safety_identifier": None, "service_tier": "default",
    "store": True, "temperature": 1.0, "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": "auto", "tools": [], "top_logprobs": 0, "top_p": 1.0, "truncation": "disabled", "usage": None,
    "user": None, "metadata": {},
}
_USAGE = {"input_tokens": 120, "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
          "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 12}, "total_tokens": 160}


class Stream:
    """Events with sequence numbers from 0: response.created, in_progress, the items, response.completed."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.done_items: list[dict[str, Any]] = []
        self.emit("response.created", response=_response("in_progress", []))
        self.emit("response.in_progress", response=_response("in_progress", []))

    def emit(self, etype: str, **fields: Any) -> Event:
        event = {"type": etype, "sequence_number": len(self.events), **fields}
        self.events.append(event)
        return event

    def at(self, index: int, **fields: Any) -> dict[str, Any]:
        """item_id and output_index of the item at output index `index`."""
        return {"item_id": _ids(index), "output_index": index, **fields}

    def added(self, item: dict[str, Any]) -> None:
        self.emit("response.output_item.added", output_index=len(self.done_items), item=item)

    def done(self, item: dict[str, Any]) -> None:
        self.emit("response.output_item.done", output_index=len(self.done_items), item=item)
        self.done_items.append(item)

    def completed(self, output: list[dict[str, Any]] | None = None) -> list[Event]:
        final = self.done_items if output is None else output
        self.emit("response.completed", response=_response("completed", copy.deepcopy(final), _USAGE))
        return self.events

    @property
    def index(self) -> int:
        return len(self.done_items)


def _response(status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> dict[str, Any]:
    response = {**copy.deepcopy(_RESPONSE), "status": status, "output": output, "usage": usage}
    if status == "completed":
        response["completed_at"] = 1767225602
    return response


def _ids(index: int) -> str:
    return f"item_{index:02d}_7c1e9a4b2d"


def sse(events: list[Event]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False, separators=(',', ':'))}\n\n"
                   for e in events).encode()


# -- one item of each kind: (stream, its pieces) -> the done item --------------------------------------------------
def custom_call(s: Stream, deltas: list[str], done: str | None = None, item_input: str | None = None,
                call_id: str = "call_patch_1") -> None:
    whole = "".join(deltas)
    at = s.index
    item = {"type": "custom_tool_call", "id": _ids(at), "call_id": call_id, "name": "apply_patch", "input": ""}
    s.added(item)
    for d in deltas:
        s.emit("response.custom_tool_call_input.delta", **s.at(at), delta=d)
    s.emit("response.custom_tool_call_input.done", **s.at(at), input=whole if done is None else done)
    s.done({**item, "input": whole if item_input is None else item_input})


def mcp_call(s: Stream, deltas: list[str], done: str | None = None) -> None:
    whole, at = "".join(deltas), s.index
    item = {"type": "mcp_call", "id": _ids(at), "server_label": "docs", "name": "search_docs", "arguments": "",
            "output": None, "error": None, "status": "in_progress"}
    s.added(item)
    s.emit("response.mcp_call.in_progress", **s.at(at))
    for d in deltas:
        s.emit("response.mcp_call_arguments.delta", **s.at(at), delta=d)
    s.emit("response.mcp_call_arguments.done", **s.at(at), arguments=whole if done is None else done)
    s.emit("response.mcp_call.completed", **s.at(at))
    s.done({**item, "arguments": whole, "output": "3 pages found", "status": "completed"})


def shell_call(s: Stream, commands: list[list[str]], done: dict[int, str] | None = None) -> None:
    at = s.index
    whole = ["".join(c) for c in commands]
    item = {"type": "shell_call", "id": _ids(at), "call_id": "call_shell_1", "status": "in_progress",
            "action": {"commands": []}}
    s.added(item)
    for i, pieces in enumerate(commands):
        s.emit("response.shell_call_command.added", output_index=at, command_index=i, command="")
        for d in pieces:
            s.emit("response.shell_call_command.delta", output_index=at, command_index=i, delta=d)
        s.emit("response.shell_call_command.done", output_index=at, command_index=i,
               command=(done or {}).get(i, whole[i]))
    s.done({**item, "status": "completed", "action": {"commands": whole}})


def shell_output(s: Stream, stdout: list[list[str]], item_stdout: dict[int, str] | None = None) -> None:
    at = s.index
    outputs = [{"stdout": "".join(c), "stderr": "", "outcome": {"type": "exit", "exit_code": 0}} for c in stdout]
    item = {"type": "shell_call_output", "id": _ids(at), "call_id": "call_shell_1", "status": "in_progress",
            "output": []}
    s.added(item)
    for i, pieces in enumerate(stdout):
        for d in pieces:
            s.emit("response.shell_call_output_content.delta", **s.at(at), command_index=i, delta={"stdout": d})
        s.emit("response.shell_call_output_content.done", **s.at(at), command_index=i, output=[outputs[i]])
    final = [{**o, "stdout": (item_stdout or {}).get(i, o["stdout"])} for i, o in enumerate(outputs)]
    s.done({**item, "status": "completed", "output": final})


def reasoning(s: Stream, summary: list[list[str]], text: list[str] | None = None,
              summary_done: dict[int, str] | None = None, text_done: str | None = None) -> None:
    at = s.index
    parts = ["".join(p) for p in summary]
    item: dict[str, Any] = {"type": "reasoning", "id": _ids(at), "summary": []}
    s.added(item)
    content = None
    if text is not None:
        whole = "".join(text)
        s.emit("response.content_part.added", **s.at(at), content_index=0, part={"type": "reasoning_text", "text": ""})
        for d in text:
            s.emit("response.reasoning_text.delta", **s.at(at), content_index=0, delta=d)
        s.emit("response.reasoning_text.done", **s.at(at), content_index=0,
               text=whole if text_done is None else text_done)
        s.emit("response.content_part.done", **s.at(at), content_index=0,
               part={"type": "reasoning_text", "text": whole if text_done is None else text_done})
        content = [{"type": "reasoning_text", "text": whole}]
    for i, pieces in enumerate(summary):
        s.emit("response.reasoning_summary_part.added", **s.at(at), summary_index=i,
               part={"type": "summary_text", "text": ""})
        for d in pieces:
            s.emit("response.reasoning_summary_text.delta", **s.at(at), summary_index=i, delta=d)
        said = (summary_done or {}).get(i, parts[i])
        s.emit("response.reasoning_summary_text.done", **s.at(at), summary_index=i, text=said)
        s.emit("response.reasoning_summary_part.done", **s.at(at), summary_index=i,
               part={"type": "summary_text", "text": said})
    final: dict[str, Any] = {**item, "summary": [{"type": "summary_text", "text": p} for p in parts],
                             "encrypted_content": "gAAAAABpZ2VuY3J5cHRlZA=="}
    if content is not None:
        final["content"] = content
    s.done(final)


def code_call(s: Stream, deltas: list[str], done: str | None = None) -> None:
    whole, at = "".join(deltas), s.index
    item = {"type": "code_interpreter_call", "id": _ids(at), "status": "in_progress", "container_id": "cntr_1",
            "code": "", "outputs": None}
    s.added(item)
    s.emit("response.code_interpreter_call.in_progress", **s.at(at))
    for d in deltas:
        s.emit("response.code_interpreter_call_code.delta", **s.at(at), delta=d)
    s.emit("response.code_interpreter_call_code.done", **s.at(at), code=whole if done is None else done)
    s.emit("response.code_interpreter_call.interpreting", **s.at(at))
    s.emit("response.code_interpreter_call.completed", **s.at(at))
    s.done({**item, "status": "completed", "code": whole, "outputs": [{"type": "logs", "logs": "1\n"}]})


def cited_text(s: Stream, deltas: list[str], annotations: list[dict[str, Any]],
               indexes: list[int] | None = None) -> None:
    whole, at = "".join(deltas), s.index
    item = {"type": "message", "id": _ids(at), "status": "in_progress", "content": [], "role": "assistant"}
    s.added(item)
    s.emit("response.content_part.added", **s.at(at), content_index=0,
           part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""})
    for d in deltas:
        s.emit("response.output_text.delta", **s.at(at), content_index=0, delta=d, logprobs=[])
    for n, annotation in enumerate(annotations):
        s.emit("response.output_text.annotation.added", **s.at(at), content_index=0,
               annotation_index=n if indexes is None else indexes[n], annotation=annotation)
    s.emit("response.output_text.done", **s.at(at), content_index=0, text=whole, logprobs=[])
    part = {"type": "output_text", "annotations": annotations, "logprobs": [], "text": whole}
    s.emit("response.content_part.done", **s.at(at), content_index=0, part=part)
    s.done({**item, "status": "completed", "content": [part]})


PATCH = ["*** Begin Patch\n*** Update File: src/app.py\n@@ def greet", "(name):\n-    print(\"hi \\\"", "",
         "friend\\\"\")\n+    print(f\"hello {name}\\n\")\n*** End Patch"]
CITATIONS = [
    {"type": "url_citation", "url": "https://example.com/a", "title": "A", "start_index": 0, "end_index": 5},
    {"type": "url_citation", "url": "https://example.com/b", "title": "B", "start_index": 10, "end_index": 16},
]


def _build(*steps: Callable[[Stream], None], output: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
           | None = None) -> list[Event]:
    s = Stream()
    for step in steps:
        step(s)
    return s.completed(None if output is None else output(copy.deepcopy(s.done_items)))


def _issue_stream() -> list[Event]:
    """The stream of the issue: input deltas "echo" + " hello", done input "rm -rf /", the item "echo bye"."""
    return _build(lambda s: custom_call(s, ["echo", " hello"], done="rm -rf /", item_input="echo bye"))


def _after_done(s: Stream) -> None:
    custom_call(s, ["ls", " -la"])
    s.events.insert(-1, {**s.events[-2], "type": "response.custom_tool_call_input.delta", "delta": " /tmp"})
    s.events[-2].pop("input")
    for n, event in enumerate(s.events):
        event["sequence_number"] = n


#: name -> the events of a correct stream (written to ok/items-<name>.sse).
OK: dict[str, Callable[[], list[Event]]] = {
    "custom-tool-call": lambda: _build(lambda s: custom_call(s, PATCH)),
    "mcp-call": lambda: _build(lambda s: mcp_call(s, ['{"query": ', '"streaming ', 'tool calls"}'])),
    "shell-call": lambda: _build(lambda s: shell_call(s, [["ls", " -la"], ["cat ", "a.txt"]]),
                                 lambda s: shell_output(s, [["total 8\n", "a.txt\n"], ["hello\n"]])),
    "reasoning": lambda: _build(lambda s: reasoning(s, [["First ", "I look."], ["Then ", "I answer."]],
                                                    text=["Let me ", "think."])),
    "code-interpreter": lambda: _build(lambda s: code_call(s, ["print(", "1)"])),
    "annotations": lambda: _build(lambda s: cited_text(s, ["Alpha says ", "beta agrees."], CITATIONS)),
}

#: file stem -> (the events, the rules it fails): written to broken/<stem>.sse.
BROKEN: dict[str, tuple[Callable[[], list[Event]], tuple[str, ...]]] = {
    "RSP-ITEM-001--custom-input-done-differs": (_issue_stream, ("RSP-ITEM-001",)),
    "RSP-ITEM-002--mcp-arguments-lost-delta": (
        lambda: _build(lambda s: mcp_call(s, ['{"query": ', 'tool calls"}'], done='{"query": "streaming tool calls"}')),
        ("RSP-ITEM-002",)),
    "RSP-ITEM-003--shell-command-done-differs": (
        lambda: _build(lambda s: shell_call(s, [["ls", " -la"], ["cat ", "a.txt"]], done={1: "cat b.txt"})),
        ("RSP-ITEM-003",)),
    "RSP-ITEM-004--shell-output-item-differs": (
        lambda: _build(lambda s: shell_output(s, [["total 8\n", "a.txt\n"]], item_stdout={0: "total 8\n"})),
        ("RSP-ITEM-004",)),
    "RSP-ITEM-005--reasoning-text-done-differs": (
        lambda: _build(lambda s: reasoning(s, [["Short."]], text=["Let me ", "think."], text_done="Let me think!")),
        ("RSP-ITEM-005",)),
    "RSP-ITEM-006--summary-text-differs": (
        lambda: _build(lambda s: reasoning(s, [["First ", "I look."], ["Then ", "I answer."]],
                                           summary_done={1: "Then I refuse."})),
        ("RSP-ITEM-006",)),
    "RSP-ITEM-007--code-done-differs": (
        lambda: _build(lambda s: code_call(s, ["print(", "1)"], done="print(2)")), ("RSP-ITEM-007",)),
    "RSP-ITEM-008--annotation-index-skipped": (
        lambda: _build(lambda s: cited_text(s, ["Alpha says ", "beta agrees."], CITATIONS, indexes=[0, 2])),
        ("RSP-ITEM-008",)),
    "RSP-ITEM-009--delta-after-done": (lambda: _build(_after_done), ("RSP-ITEM-009",)),
}


def main() -> None:
    for name, build in OK.items():
        (OPENAI / "ok" / f"items-{name}.sse").write_bytes(sse(build()))
    for stem, (build, _) in BROKEN.items():
        (OPENAI / "broken" / f"{stem}.sse").write_bytes(sse(build()))


if __name__ == "__main__":
    main()
