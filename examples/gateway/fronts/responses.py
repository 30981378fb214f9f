"""The OpenAI Responses front (`POST /v1/responses`).

Output items: text goes to a message item, closed when another item is added (later text starts a new message);
a refusal is a refusal part of the message, an annotation goes with its output_text part; a call (function or
custom) is added when it starts upstream (its name is whole by then) and stays open until the finish, because the
argument deltas of parallel calls may interleave; a reasoning item carries its summary parts, reasoning text and
(from a Responses upstream) encrypted_content; items the model does not translate (MCP, shell, code interpreter)
go on as the upstream sent them (docs/spec/items.md §6). The ending: response.completed, response.incomplete (length:
max_output_tokens, content_filter; the items still being written when the upstream stopped end incomplete) or
response.failed (upstream error or cut; items still open stay open). Every event carries a sequence_number;
the non-stream body is the terminal event's Response. Requests are read by responses_request.py; what one response
accumulates is responses_turn.py's Turn.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import JSONResponse, Response

from ..model import FinishReason, Json, OpaqueEvent, Request, Usage
from ..state import ResponseStore
from ..wire import encode_sse, new_id
from .responses_request import ResponsesRequests, input_items
from .responses_turn import ContentPart, Item, Turn, part_json, where

__all__ = ["TERMINAL", "ContentPart", "Item", "ResponsesFront", "Turn", "input_items"]

TERMINAL = {"completed": "response.completed", "incomplete": "response.incomplete", "failed": "response.failed"}
#: The neutral finish reason -> (Responses status, incomplete_details.reason).
STATUS: dict[str, tuple[str, str | None]] = {
    "stop": ("completed", None), "length": ("incomplete", "max_output_tokens"),
    "content_filter": ("incomplete", "content_filter"),
}


class ResponsesFront(ResponsesRequests):
    dialect = "responses"
    path = "/v1/responses"

    def __init__(self) -> None:
        #: The responses this front answered, kept for `previous_response_id` (docs/spec/stateful.md §2).
        self.responses = ResponseStore()

    def remember(self, turn: Turn) -> None:
        """Keep an ended response's conversation (its input, then its output) for a later continuation, unless
        the client said `store: false` or the response failed."""
        result = turn.result
        if result is None or turn.front.get("store") is False or result.get("status") not in ("completed",
                                                                                              "incomplete"):
            return
        self.responses.put(turn.id, [*input_items(turn.front), *(o for o in result["output"] if isinstance(o, dict))])

    # -- the stream -------------------------------------------------------------------------------------------

    def new_turn(self, request: Request) -> Turn:
        return Turn(request, new_id("resp"), str(request.model or ""))

    def start(self, turn: Turn) -> None:
        turn.emit("response.created", response=self.response_object(turn, "in_progress"))
        turn.emit("response.in_progress", response=self.response_object(turn, "in_progress"))

    def on_text(self, turn: Turn, text: str) -> None:
        message, part = self.open_part(turn, "output_text")
        part.text += text
        self.touch(turn, message)
        turn.emit("response.output_text.delta", **where(message), content_index=len(message.parts) - 1, delta=text,
                  logprobs=[])

    def on_refusal(self, turn: Turn, text: str) -> None:
        """A refusal part of the message (a new part when text came before it)."""
        message, part = self.open_part(turn, "refusal")
        part.text += text
        self.touch(turn, message)
        turn.emit("response.refusal.delta", **where(message), content_index=len(message.parts) - 1, delta=text)

    def on_annotation(self, turn: Turn, annotation: Json) -> None:
        message, part = self.open_part(turn, "output_text")
        part.annotations.append(annotation)
        turn.emit("response.output_text.annotation.added", **where(message), content_index=len(message.parts) - 1,
                  annotation_index=len(part.annotations) - 1, annotation=annotation)

    def open_message(self, turn: Turn) -> Item:
        """The message item text goes to, added at the front if there is none open."""
        if turn.message is None:
            message = turn.message = Item("message", new_id("msg"))
            self.touch(turn, message, start=True)
            self.add(turn, message, {"type": "message", "status": "in_progress", "content": [], "role": "assistant"})
        return turn.message

    def open_part(self, turn: Turn, kind: str) -> tuple[Item, ContentPart]:
        """The open message's last part if it is of `kind`, else a new part of `kind` (the last one done)."""
        message = self.open_message(turn)
        last = message.parts[-1] if message.parts else None
        if last is not None and last.type == kind and not last.done:
            return message, last
        if last is not None:
            self.close_part(turn, message, len(message.parts) - 1)
        message.parts.append(ContentPart(kind))
        turn.emit("response.content_part.added", **where(message), content_index=len(message.parts) - 1,
                  part=part_json(ContentPart(kind)))
        return message, message.parts[-1]

    def close_part(self, turn: Turn, message: Item, index: int) -> None:
        part = message.parts[index]
        if part.done:
            return
        part.done = True
        if part.type == "refusal":
            turn.emit("response.refusal.done", **where(message), content_index=index, refusal=part.text)
        else:
            turn.emit("response.output_text.done", **where(message), content_index=index, text=part.text,
                      logprobs=[])
        turn.emit("response.content_part.done", **where(message), content_index=index, part=part_json(part))

    def end_message(self, turn: Turn) -> None:
        """Text before another item is its own message; later text starts a new one."""
        if turn.message is not None:
            self.close(turn, turn.message, "completed")
            turn.message = None

    def on_call_start(self, turn: Turn, key: int, upstream_id: str | None, name: str) -> None:
        self.start_call(turn, key, upstream_id, name, custom=False)

    def on_custom_call_start(self, turn: Turn, key: int, upstream_id: str | None, name: str) -> None:
        self.start_call(turn, key, upstream_id, name, custom=True)

    def start_call(self, turn: Turn, key: int, upstream_id: str | None, name: str, *, custom: bool) -> None:
        self.end_message(turn)
        call = turn.calls[key] = Item("custom_tool_call" if custom else "function_call",
                                      new_id("ctc" if custom else "fc"), name=name)
        self.touch(turn, call, start=True)
        call.call_id = self.call_id(turn, upstream_id)
        fields: Json = {"type": "custom_tool_call", "call_id": call.call_id, "name": call.name, "input": ""} \
            if custom else {"type": "function_call", "status": "in_progress", "arguments": "", "call_id": call.call_id,
                            "name": call.name}
        self.add(turn, call, fields)

    def on_arguments(self, turn: Turn, key: int, fragment: str) -> None:
        call = turn.calls[key]
        call.text += fragment
        self.touch(turn, call)
        kind = "custom_tool_call_input" if call.type == "custom_tool_call" else "function_call_arguments"
        turn.emit(f"response.{kind}.delta", **where(call), delta=fragment)

    def on_usage(self, turn: Turn, usage: Usage) -> None:
        turn.usage = self.translate_usage(usage)

    # -- reasoning and opaque items ---------------------------------------------------------------------------

    def on_reasoning_start(self, turn: Turn, key: int, issuer: str, upstream_id: str | None = None) -> None:
        """A reasoning item; from a Responses upstream it keeps the upstream's id (a client sends the item back to
        continue, and the upstream knows it by that id), unless this response already has an item of that id."""
        self.end_message(turn)
        kept = issuer == self.dialect and upstream_id and all(i.id != upstream_id for i in turn.items)
        item = turn.reasoning[key] = Item("reasoning", upstream_id if kept and upstream_id else new_id("rs"))
        self.touch(turn, item, start=True)
        self.add(turn, item, {"type": "reasoning", "summary": []})

    def on_reasoning(self, turn: Turn, key: int, fragment: str, summary_index: int | None) -> None:
        """Summary part `summary_index` (numbered 0, 1, 2 here in order of appearance) or the reasoning text."""
        item = turn.reasoning.get(key)
        if item is None:
            return
        self.touch(turn, item)
        if summary_index is None:
            if item.content is None:
                item.content = ContentPart("reasoning_text")
                turn.emit("response.content_part.added", **where(item), content_index=0,
                          part=part_json(ContentPart("reasoning_text")))
            item.content.text += fragment
            if fragment:
                turn.emit("response.reasoning_text.delta", **where(item), content_index=0, delta=fragment)
            return
        if summary_index not in item.summary_keys:
            self.close_summary(turn, item)
            item.summary_keys[summary_index] = len(item.parts)
            item.parts.append(ContentPart("summary_text"))
            turn.emit("response.reasoning_summary_part.added", **where(item), summary_index=len(item.parts) - 1,
                      part=part_json(ContentPart("summary_text")))
        ours = item.summary_keys[summary_index]
        item.parts[ours].text += fragment
        if fragment:
            turn.emit("response.reasoning_summary_text.delta", **where(item), summary_index=ours, delta=fragment)

    def close_summary(self, turn: Turn, item: Item) -> None:
        for index, part in enumerate(item.parts):
            if not part.done:
                part.done = True
                turn.emit("response.reasoning_summary_text.done", **where(item), summary_index=index, text=part.text)
                turn.emit("response.reasoning_summary_part.done", **where(item), summary_index=index,
                          part=part_json(part))

    def on_reasoning_done(self, turn: Turn, key: int, sealed: str | None) -> None:
        item = turn.reasoning.pop(key, None)
        if item is not None:
            item.sealed = sealed
            self.close(turn, item, "completed")

    def on_opaque(self, turn: Turn, event: OpaqueEvent) -> None:
        """An item the model does not translate, carried on: its events as the upstream sent them, with this
        response's output_index and sequence_number (its item id kept)."""
        upstream = event.event
        kind = str(upstream.get("type"))
        if kind == "response.output_item.added":
            self.end_message(turn)
            added = dict(upstream.get("item") or {})
            item = turn.opaque[event.key] = Item(event.item_type, str(added.pop("id", None) or new_id("item")),
                                                 added=added)
            self.touch(turn, item, start=True)
            self.add(turn, item, added)
            return
        found = turn.opaque.get(event.key)
        if found is None or found.done is not None:
            return
        item = found
        self.touch(turn, item)
        if kind == "response.output_item.done":
            item.done = {**dict(upstream.get("item") or {}), "id": item.id}
            turn.emit(kind, output_index=item.output_index, item=item.done)
            return
        fields = {k: v for k, v in upstream.items() if k not in ("type", "sequence_number", "output_index")}
        turn.emit(kind, **fields, output_index=item.output_index)

    def add(self, turn: Turn, item: Item, fields: Json) -> None:
        item.output_index = len(turn.items)
        turn.items.append(item)
        turn.emit("response.output_item.added", output_index=item.output_index, item={"id": item.id, **fields})

    def touch(self, turn: Turn, item: Item, *, start: bool = False) -> None:
        turn.clock += 1
        item.touched = turn.clock
        if start:
            turn.last_start = turn.clock

    def close(self, turn: Turn, item: Item, status: str) -> None:
        if item.type == "message":
            for index in range(len(item.parts)):
                self.close_part(turn, item, index)
            item.done = {"id": item.id, "type": "message", "status": status,
                         "content": [part_json(part) for part in item.parts], "role": "assistant"}
        elif item.type == "function_call":
            arguments = self.final_arguments(item.text)
            if arguments and not item.text:
                turn.emit("response.function_call_arguments.delta", **where(item), delta=arguments)
            turn.emit("response.function_call_arguments.done", **where(item), name=item.name, arguments=arguments)
            item.done = {"id": item.id, "type": "function_call", "status": status, "arguments": arguments,
                         "call_id": item.call_id, "name": item.name}
        elif item.type == "custom_tool_call":  # the raw input, byte for byte ('' stays '')
            turn.emit("response.custom_tool_call_input.done", **where(item), input=item.text)
            item.done = {"id": item.id, "type": "custom_tool_call", "call_id": item.call_id, "name": item.name,
                         "input": item.text}
        elif item.type == "reasoning":
            item.done = self.close_reasoning(turn, item)
        else:  # an opaque item the upstream never finished: as it was added
            item.done = {"id": item.id, **item.added, **({"status": status} if "status" in item.added else {})}
        turn.emit("response.output_item.done", output_index=item.output_index, item=item.done)

    def close_reasoning(self, turn: Turn, item: Item) -> Json:
        self.close_summary(turn, item)
        done: Json = {"id": item.id, "type": "reasoning", "summary": [part_json(part) for part in item.parts]}
        if item.content is not None:
            turn.emit("response.reasoning_text.done", **where(item), content_index=0, text=item.content.text)
            turn.emit("response.content_part.done", **where(item), content_index=0, part=part_json(item.content))
            done["content"] = [part_json(item.content)]
        if item.sealed is not None:
            done["encrypted_content"] = item.sealed
        return done

    def final_arguments(self, arguments: str) -> str:
        """A call without arguments gets '{}': clients json-decode the arguments."""
        return arguments or "{}"

    # -- endings ----------------------------------------------------------------------------------------------

    def finish(self, turn: Turn, reason: FinishReason) -> None:
        """The upstream ended properly: close every open item and send the terminal event."""
        status, detail = self.status_for(reason)

        def cut(item: Item) -> bool:  # still being written when the upstream stopped: no item started since
            return status == "incomplete" and item.touched >= turn.last_start

        for item in sorted((i for i in turn.items if i.done is None), key=lambda i: (cut(i), i.output_index)):
            self.close(turn, item, "incomplete" if cut(item) else "completed")
        self.terminate(turn, status, incomplete_details={"reason": detail} if detail else None)

    def status_for(self, reason: FinishReason) -> tuple[str, str | None]:
        return STATUS[reason]

    def fail(self, turn: Turn, code: str, message: str) -> None:
        """response.failed; items still open stay open (their content is cut)."""
        self.terminate(turn, "failed", error={"code": code, "message": message})

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        turn.result = self.response_object(turn, status, **fields)
        turn.emit(TERMINAL[status], response=turn.result)
        turn.closed = True
        self.remember(turn)

    def ended(self, turn: Turn) -> bool:
        return turn.result is not None

    # -- the front's shapes -----------------------------------------------------------------------------------

    def response_object(self, turn: Turn, status: str, *, error: Json | None = None,
                        incomplete_details: Json | None = None) -> Json:
        front = turn.front
        return {
            "id": turn.id, "object": "response", "created_at": turn.created_at, "status": status,
            "completed_at": int(time.time()) if status == "completed" else None,
            "error": error, "incomplete_details": incomplete_details,
            "instructions": front.get("instructions"), "max_output_tokens": front.get("max_output_tokens"),
            "model": turn.model, "output": [item.done for item in turn.items if item.done is not None],
            "parallel_tool_calls": front.get("parallel_tool_calls", True),
            "tool_choice": front.get("tool_choice", "auto"), "tools": front.get("tools") or [],
            "usage": turn.usage if status in ("completed", "incomplete") else None, "metadata": {},
            "previous_response_id": front.get("previous_response_id"),
            **({"text": front["text"]} if isinstance(front.get("text"), dict) else {}),
        }

    def translate_usage(self, usage: Usage) -> Json:
        return {"input_tokens": usage.input_tokens,
                "input_tokens_details": {"cache_write_tokens": usage.cache_write_tokens,
                                         "cached_tokens": usage.cached_tokens},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
                "total_tokens": usage.total_tokens}

    def flush(self, turn: Turn) -> bytes:
        return b"".join(self.encode_event(event) for event in turn.take())

    def encode_event(self, event: Json) -> bytes:
        return encode_sse(event, event=event["type"])

    def body(self, turn: Turn) -> Response:
        """The terminal Response, status 200 even when it failed (as the Responses API answers)."""
        assert turn.result is not None
        return JSONResponse(turn.result)

    def call_id(self, turn: Turn, upstream_id: str | None) -> str:
        """The upstream's call id, or a new one when it has none or repeats one already used."""
        call_id = upstream_id if upstream_id and upstream_id not in turn.call_ids else new_id("call")
        turn.call_ids.add(call_id)
        return call_id
