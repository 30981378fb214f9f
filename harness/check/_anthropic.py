"""The Anthropic Messages front: message lifecycle, content-block indexes and tool input (ANT-*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence, Profile

from ._front import EventMeta, Sink, as_int, as_str, parse_json_object, short, shown, validate
from ._relay_caveat import relay_caveat
from ._schemas import FrontSchemas

__all__ = ["BODY_RULES", "AnthropicChecker"]

#: The rules a non-stream Message body is checked for.
BODY_RULES = frozenset(("ANT-SCHEMA-003", "ANT-TOOL-001"))

#: Which delta types fit which block types.
_DELTAS_FOR_BLOCK = {
    "text": frozenset(("text_delta", "citations_delta")),
    "tool_use": frozenset(("input_json_delta",)),
    "server_tool_use": frozenset(("input_json_delta",)),
    "thinking": frozenset(("thinking_delta", "signature_delta")),
}


def _schema_rule(path: str) -> str | None:
    if path in ("$.content_block.id", "$.content_block.name"):
        return "ANT-TOOL-001"
    return None


@dataclass(slots=True)
class _Block:
    index: int
    type: str | None
    start: EventMeta
    partial_json: list[str] = field(default_factory=list)
    stopped: bool = False


class AnthropicChecker:
    """Fed one decoded event at a time; reports to the sink."""

    def __init__(self, sink: Sink, schemas: FrontSchemas, profile: Profile) -> None:
        self._sink = sink
        self._schemas = schemas
        self._profile = profile
        self._events = 0
        self._started = False
        self._end: EventMeta | None = None
        self._after_end_reported = False
        self._blocks: dict[int, _Block] = {}
        self._tool_ids: set[str] = set()
        self._stop_reason: str | None = None
        self._message_delta = False

    def event(self, meta: EventMeta, payload: JSONValue) -> None:
        index = self._events
        self._events += 1
        sink = self._sink
        if not isinstance(payload, dict):
            sink.add("ANT-SCHEMA-001", f"the event is a JSON {short(payload, 40)}, not an object", meta.evidence("$"))
            return
        etype = meta.type
        if index == 0 and etype != "message_start":
            sink.add("ANT-LIFE-001", f"the first event is {shown(etype)}, not 'message_start'",
                     meta.evidence("$.type", "message_start", etype))
        elif etype == "message_start" and self._started:
            sink.add("ANT-LIFE-001", "'message_start' occurs a second time", meta.evidence("$.type"))
        if self._end is not None:
            if not self._after_end_reported:
                self._after_end_reported = True
                sink.add("ANT-LIFE-002", f"{shown(etype)} follows {shown(self._end.type)} (event #{self._end.index})",
                         meta.evidence("$.type"))
            return
        validator = self._schemas.events.get(etype or "")
        if validator is None:
            sink.add("ANT-SCHEMA-002", f"unknown event type {shown(etype)}", meta.evidence("$.type", actual=etype))
            return
        validate(sink, meta, validator, payload, "ANT-SCHEMA-001", _schema_rule)
        if etype == "message_start":
            self._started = True
        elif etype == "content_block_start":
            self._block_start(meta, payload)
        elif etype in ("content_block_delta", "content_block_stop"):
            self._block_event(meta, etype, payload)
        elif etype == "message_delta":
            self._message_delta_event(meta, payload)
        elif etype in ("message_stop", "error"):
            if etype == "message_stop" and self._stop_reason is None:
                sink.add("ANT-LIFE-003", "message_stop without a message_delta carrying stop_reason",
                         meta.evidence("$.type"))
            self._end = meta

    def _block_start(self, meta: EventMeta, payload: dict[str, Any]) -> None:
        index = as_int(payload.get("index"))
        block = payload.get("content_block")
        if index is None or not isinstance(block, dict):
            return
        expected = len(self._blocks)
        if index != expected:
            self._sink.add("ANT-BLOCK-001", f"content block {index} starts; expected index {expected}",
                           meta.evidence("$.index", expected, index))
            if index in self._blocks:
                return
        btype = as_str(block.get("type"))
        self._blocks[index] = _Block(index, btype, meta)
        if btype == "tool_use":
            tool_id = as_str(block.get("id"))
            name = as_str(block.get("name"))
            if tool_id == "" or name == "":
                empty = "id" if tool_id == "" else "name"
                self._sink.add("ANT-TOOL-001", f"tool_use block {index} has an empty {empty}",
                               meta.evidence(f"$.content_block.{empty}", actual=""))
            if tool_id:
                if tool_id in self._tool_ids:
                    self._sink.add("ANT-TOOL-001", f"tool_use id {tool_id!r} is used twice",
                                   meta.evidence("$.content_block.id", actual=tool_id))
                self._tool_ids.add(tool_id)

    def _block_event(self, meta: EventMeta, etype: str, payload: dict[str, Any]) -> None:
        index = as_int(payload.get("index"))
        if index is None:
            return
        block = self._blocks.get(index)
        if block is None or block.stopped:
            state = "never started" if block is None else "already stopped"
            self._sink.add("ANT-BLOCK-002", f"{etype} for content block {index}, {state}",
                           meta.evidence("$.index", actual=index))
            return
        if etype == "content_block_stop":
            block.stopped = True
            return
        delta = payload.get("delta")
        dtype = as_str(delta.get("type")) if isinstance(delta, dict) else None
        allowed = _DELTAS_FOR_BLOCK.get(block.type or "")
        if dtype is not None and allowed is not None and dtype not in allowed:
            self._sink.add("ANT-BLOCK-004", f"a {dtype} for content block {index}, a {block.type!r} block",
                           meta.evidence("$.delta.type", sorted(allowed)[0], dtype))
            return
        if dtype == "input_json_delta" and isinstance(delta, dict):
            fragment = as_str(delta.get("partial_json"))
            if fragment is not None:
                block.partial_json.append(fragment)

    def _message_delta_event(self, meta: EventMeta, payload: dict[str, Any]) -> None:
        self._message_delta = True
        for block in self._blocks.values():
            if not block.stopped:
                self._sink.add("ANT-BLOCK-003", f"content block {block.index} is not stopped before message_delta",
                               meta.evidence("$", actual=block.index))
                block.stopped = True
        delta = payload.get("delta")
        reason = as_str(delta.get("stop_reason")) if isinstance(delta, dict) else None
        if reason is not None:
            self._stop_reason = reason

    def done_sentinel(self, meta: EventMeta) -> None:
        self._sink.add("ANT-FRAME-001", "`data: [DONE]` on the Anthropic front", meta.evidence())

    def finish(self, last: EventMeta | None, aborted: bool = False) -> None:
        evidence = last.evidence() if last is not None else Evidence()
        if self._events == 0:
            self._sink.add("ANT-LIFE-001", "the stream has no events", evidence)
        # an aborted body is an error ending the SDK raises on, not a stream without its end; the half input of a
        # block it left open reaches no caller (docs/spec/verdicts.md §7)
        if self._end is None and not aborted:
            where = f"after event #{last.index} {last.type!r}" if last is not None else "with no events"
            self._sink.add("ANT-LIFE-002", f"the stream ends {where} without message_stop", evidence)
        if self._end is not None and self._end.type == "error":
            return
        tool_blocks = [b for b in self._blocks.values() if b.type == "tool_use"]
        if self._stop_reason != "max_tokens":
            for block in tool_blocks:
                if aborted and not block.stopped:
                    continue
                joined = "".join(block.partial_json)
                problem = parse_json_object(joined) if joined else None
                if problem is not None:
                    self._sink.add("ANT-TOOL-002", f"tool_use block {block.index}: joined partial_json "
                                   f"{short(joined)} is {problem}{relay_caveat(problem)}",
                                   block.start.evidence("$.content_block", actual=joined[:200]))
        if tool_blocks and self._stop_reason == "end_turn":
            self._sink.add("ANT-STOP-001", "the message has tool_use blocks but stop_reason 'end_turn'",
                           evidence)

    def body(self, meta: EventMeta, payload: JSONValue) -> None:
        if isinstance(payload, dict) and payload.get("type") == "error":
            validate(self._sink, meta, self._schemas.error_body, payload, "ANT-SCHEMA-003", lambda _: None)
            return
        validate(self._sink, meta, self._schemas.body, payload, "ANT-SCHEMA-003",
                 lambda p: "ANT-TOOL-001" if p.endswith((".id", ".name")) and p.startswith("$.content[") else None)
        content = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(content, list):
            return
        seen: set[str] = set()
        for position, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tool_id = as_str(block.get("id"))
            if tool_id and tool_id in seen:
                self._sink.add("ANT-TOOL-001", f"tool_use id {tool_id!r} is used twice",
                               meta.evidence(f"$.content[{position}].id", actual=tool_id))
            if tool_id:
                seen.add(tool_id)
