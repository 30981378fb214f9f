"""The Chat Completions front: chunk identity, tool-call first-chunk rules and finish_reason (CHAT-*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import JSONData, JSONValue
from callproof.harness.catalogue import Evidence, Profile

from ._front import EventMeta, Sink, as_int, as_str, parse_json_object, short, validate
from ._relay_caveat import relay_caveat
from ._schemas import FrontSchemas

__all__ = ["BODY_RULES", "ChatChecker"]

#: The rules a non-stream chat.completion body is checked for.
BODY_RULES = frozenset(("CHAT-SCHEMA-002", "CHAT-TC-004", "CHAT-TC-006"))


@dataclass(slots=True)
class _Call:
    index: int
    id: str | None
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Choice:
    calls: dict[int, _Call] = field(default_factory=dict)
    finish: str | None = None
    finished_at: int | None = None
    after_finish_reported: bool = False


class ChatChecker:
    """Fed one decoded chunk at a time; reports to the sink."""

    def __init__(self, sink: Sink, schemas: FrontSchemas, profile: Profile) -> None:
        self._sink = sink
        self._schemas = schemas
        self._profile = profile
        self._chunks = 0
        self._id: str | None = None
        self._choices: dict[int, _Choice] = {}
        self._call_ids: dict[str, tuple[int, int]] = {}
        self._done: EventMeta | None = None
        #: The first choice that had a finish_reason but no `index` (its chunk, JSON path and finish_reason).
        self._unindexed_finish: tuple[EventMeta, str, str] | None = None
        self._error = False
        self._after_done_reported = False

    def event(self, meta: EventMeta, payload: JSONValue) -> None:
        self._chunks += 1
        sink = self._sink
        if self._done is not None and not self._after_done_reported:
            self._after_done_reported = True
            sink.add("CHAT-FRAME-001", f"a chunk follows `data: [DONE]` (event #{self._done.index})",
                     meta.evidence())
        if isinstance(payload, dict) and "error" in payload and "object" not in payload:
            self._error = True
            validate(sink, meta, self._schemas.error_body, payload, "CHAT-SCHEMA-001", lambda _: None)
            return
        validator = self._schemas.events["chat.completion.chunk"]
        validate(sink, meta, validator, payload, "CHAT-SCHEMA-001", lambda _: None)
        if not isinstance(payload, dict):
            return
        chunk_id = as_str(payload.get("id"))
        if chunk_id is not None:
            if self._id is None:
                self._id = chunk_id
            elif chunk_id != self._id:
                sink.add("CHAT-ID-001", f"chunk id {chunk_id!r}; the first chunk had {self._id!r}",
                         meta.evidence("$.id", self._id, chunk_id))
        choices = payload.get("choices")
        if not isinstance(choices, list):
            return
        for position, choice in enumerate(choices):
            if isinstance(choice, dict):
                self._choice(meta, position, choice)

    def _choice(self, meta: EventMeta, position: int, raw: dict[str, Any]) -> None:
        index = as_int(raw.get("index"))
        path = f"$.choices[{position}]"
        if index is None:  # CHAT-SCHEMA-001 reports the missing field; CHAT-FIN-001 names a finish_reason it hid
            finish_reason = as_str(raw.get("finish_reason"))
            if finish_reason is not None and self._unindexed_finish is None:
                self._unindexed_finish = (meta, path, finish_reason)
            return
        choice = self._choices.setdefault(index, _Choice())
        delta = raw.get("delta")
        finish = as_str(raw.get("finish_reason"))
        if choice.finish is not None and (finish is not None or (isinstance(delta, dict) and _has_content(delta))):
            if not choice.after_finish_reported:
                choice.after_finish_reported = True
                self._sink.add("CHAT-FIN-001", f"choice {index} continues after finish_reason {choice.finish!r}",
                               meta.evidence(path))
            return
        if isinstance(delta, dict) and isinstance(delta.get("tool_calls"), list):
            for tc_position, call in enumerate(delta["tool_calls"]):
                if isinstance(call, dict):
                    self._tool_call(meta, choice, call, f"{path}.delta.tool_calls[{tc_position}]")
        if finish is not None:
            choice.finish = finish
            choice.finished_at = meta.index
            self._finished(meta, index, choice, path)

    def _tool_call(self, meta: EventMeta, choice: _Choice, raw: dict[str, Any], path: str) -> None:
        sink = self._sink
        index = as_int(raw.get("index"))
        if index is None:
            return
        function = raw.get("function")
        if not isinstance(function, dict):
            function = {}
        call_id = as_str(raw.get("id"))
        name = as_str(function.get("name"))
        call = choice.calls.get(index)
        if call is None:
            expected = len(choice.calls)
            if index != expected:
                sink.add("CHAT-TC-005", f"tool call index {index} starts; expected {expected}",
                         meta.evidence(f"{path}.index", expected, index))
            call = choice.calls[index] = _Call(index, call_id or None)
            if not call_id:
                sink.add("CHAT-TC-001", f"the first delta of tool call {index} has no id",
                         meta.evidence(f"{path}.id", actual=call_id))
            else:
                owner = self._call_ids.setdefault(call_id, (id(choice), index))
                if owner != (id(choice), index):
                    sink.add("CHAT-TC-004", f"tool call id {call_id!r} is used by another call",
                             meta.evidence(f"{path}.id", actual=call_id))
            if not name:
                sink.add("CHAT-TC-002", f"the first delta of tool call {index} has no function.name",
                         meta.evidence(f"{path}.function.name", actual=name))
        else:
            if call_id:
                sink.add("CHAT-TC-003", f"tool call {index} repeats id {call_id!r} on a later delta "
                         "(clients concatenate it)", meta.evidence(f"{path}.id", None, call_id))
            if name:
                sink.add("CHAT-TC-003", f"tool call {index} sends function.name {name!r} on a later delta "
                         "(clients concatenate it)", meta.evidence(f"{path}.function.name", None, name))
        arguments = as_str(function.get("arguments"))
        if arguments:
            call.arguments.append(arguments)

    def _finished(self, meta: EventMeta, index: int, choice: _Choice, path: str) -> None:
        if choice.calls and choice.finish == "stop":
            self._sink.add("CHAT-FIN-002", f"choice {index} streamed tool calls but finished with 'stop'",
                           meta.evidence(f"{path}.finish_reason", "tool_calls", "stop"))
        if choice.finish in ("length", "content_filter"):
            return
        for call in choice.calls.values():
            self._check_arguments(meta, "".join(call.arguments), f"tool call {call.index}", path)

    def _check_arguments(self, meta: EventMeta, arguments: str, label: str, path: str) -> None:
        if arguments == "":
            if self._profile != "lenient":
                self._sink.add("CHAT-TC-006", f"{label} has empty arguments (send '{{}}')",
                               meta.evidence(path, "{}", ""))
            return
        problem = parse_json_object(arguments)
        if problem is not None:
            self._sink.add("CHAT-TC-006", f"{label} arguments {short(arguments)} are {problem}{relay_caveat(problem)}",
                           meta.evidence(path, actual=arguments[:200]))

    def done_sentinel(self, meta: EventMeta) -> None:
        if self._done is not None:
            self._sink.add("CHAT-FRAME-001", "a second `data: [DONE]`", meta.evidence())
        self._done = meta

    def finish(self, last: EventMeta | None, aborted: bool = False) -> None:
        evidence = last.evidence() if last is not None else Evidence()
        if aborted and self._done is None:  # an error ending the SDK raises on (docs/spec/verdicts.md §7)
            if self._chunks == 0:
                self._sink.add("CHAT-SCHEMA-001", "the stream has no chunks", evidence)
            return
        if self._done is None and not self._error:
            self._sink.add("CHAT-FRAME-001", "the stream ends without `data: [DONE]`", evidence)
        if self._chunks == 0:
            self._sink.add("CHAT-SCHEMA-001", "the stream has no chunks", evidence)
        if self._error:
            return
        for index, choice in sorted(self._choices.items()):
            if choice.finish is None and self._unindexed_finish is not None:
                meta, path, finish_reason = self._unindexed_finish
                self._sink.add("CHAT-FIN-001", f"choice {index} gets no finish_reason of its own: chunk "
                               f"#{meta.index} has finish_reason {finish_reason!r} at {path} but no `index`, so it "
                               "belongs to no choice (CHAT-SCHEMA-001 reports the missing field): send `index` on "
                               "every choice", meta.evidence(f"{path}.index", expected=index, actual=None))
            elif choice.finish is None:
                self._sink.add("CHAT-FIN-001", f"choice {index} never gets a finish_reason", evidence)

    def body(self, meta: EventMeta, payload: JSONData) -> None:
        if isinstance(payload, dict) and "error" in payload and "object" not in payload:
            validate(self._sink, meta, self._schemas.error_body, payload, "CHAT-SCHEMA-002", lambda _: None)
            return
        validate(self._sink, meta, self._schemas.body, payload, "CHAT-SCHEMA-002", lambda _: None)
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list):
            return
        seen: set[str] = set()
        for position, choice in enumerate(choices):
            message = choice.get("message") if isinstance(choice, dict) else None
            calls = message.get("tool_calls") if isinstance(message, dict) else None
            if not isinstance(calls, list):
                continue
            truncated = choice.get("finish_reason") in ("length", "content_filter")
            for tc_position, call in enumerate(calls):
                if not isinstance(call, dict):
                    continue
                path = f"$.choices[{position}].message.tool_calls[{tc_position}]"
                call_id = as_str(call.get("id"))
                if call_id:
                    if call_id in seen:
                        self._sink.add("CHAT-TC-004", f"tool call id {call_id!r} is used twice",
                                       meta.evidence(f"{path}.id", actual=call_id))
                    seen.add(call_id)
                function = call.get("function")
                arguments = as_str(function.get("arguments")) if isinstance(function, dict) else None
                if arguments is not None and not truncated:
                    self._check_arguments(meta, arguments, f"tool call {call_id!r}", f"{path}.function.arguments")


def _has_content(delta: dict[str, Any]) -> bool:
    return any(delta.get(key) for key in ("content", "refusal", "tool_calls", "function_call"))
