"""The output items one side of a gateway sent, read from its wire (docs/spec/items.md §3): the upstream's bytes
as the mock wrote them, or the front's answer, streamed or not, in any dialect. The GW-ITEM rules compare the two.

`ItemView` holds what those rules need: Responses output items (the terminal response's `output`, else each
`output_item.done` item), Chat refusal and content text, Anthropic content blocks (text, thinking with its
signature) and the stop reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.check import SSEEvent, SSEParser, event_objects

__all__ = ["ITEM_READERS", "ItemView", "front_view", "upstream_view"]

_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


@dataclass(slots=True)
class ItemView:
    """What one side sent: `items` (Responses output items), `text` (answer text: Chat content, Anthropic text
    blocks, Responses output_text parts), `refusal` (Chat delta.refusal, Responses refusal parts), `blocks`
    (Anthropic content blocks, reassembled: type, text, thinking, signature), `ending` (Responses status and
    incomplete reason, Chat finish_reason, Anthropic stop_reason; "" when none came)."""

    items: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    refusal: str = ""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    ending: str = ""


def _parts(items: list[dict[str, Any]], kind: str, key: str) -> str:
    return "".join(str(p.get(key, "")) for i in items if i.get("type") == "message"
                   for p in i.get("content") or () if isinstance(p, Mapping) and p.get("type") == kind)


def _responses(view: ItemView, output: list[Any], status: str, reason: str) -> ItemView:
    view.items = [dict(i) for i in output if isinstance(i, Mapping)]
    view.text, view.refusal = _parts(view.items, "output_text", "text"), _parts(view.items, "refusal", "refusal")
    view.ending = f"{status}/{reason}" if reason else status
    return view


def _responses_stream(objects: list[dict[str, Any]]) -> ItemView:
    done = [o["item"] for o in objects if o.get("type") == "response.output_item.done" and isinstance(
        o.get("item"), Mapping)]
    for obj in objects:
        response = obj.get("response")
        if obj.get("type") in _TERMINAL and isinstance(response, Mapping) and response.get("output"):
            done = list(response["output"])
    ending: Mapping[str, Any] = next((o["response"] for o in reversed(objects) if o.get("type") in _TERMINAL
                                      and isinstance(o.get("response"), Mapping)), {})
    details = ending.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, Mapping) else None
    return _responses(ItemView(), done, str(ending.get("status", "")), str(reason or ""))


def _chat(objects: list[dict[str, Any]]) -> ItemView:
    view = ItemView()
    for obj in objects:
        for choice in obj.get("choices") or ():
            part = (choice.get("delta") or choice.get("message") or {}) if isinstance(choice, Mapping) else {}
            view.text += str(part.get("content") or "")
            view.refusal += str(part.get("refusal") or "")
            if isinstance(choice, Mapping) and choice.get("finish_reason"):
                view.ending = str(choice["finish_reason"])
    return view


def _anthropic_stream(objects: list[dict[str, Any]]) -> ItemView:
    view = ItemView()
    blocks: dict[int, dict[str, Any]] = {}
    for obj in objects:
        kind, index = obj.get("type"), obj.get("index")
        if kind == "content_block_start" and isinstance(index, int) and isinstance(obj.get("content_block"), dict):
            blocks[index] = dict(obj["content_block"])
        elif kind == "content_block_delta" and index in blocks and isinstance(obj.get("delta"), Mapping):
            delta, block = obj["delta"], blocks[index]
            for key, name in (("text_delta", "text"), ("thinking_delta", "thinking"), ("signature_delta", "signature")):
                if delta.get("type") == key:
                    block[name] = str(block.get(name) or "") + str(delta.get(name) or "")
        elif kind == "message_delta" and isinstance(obj.get("delta"), Mapping):
            view.ending = str(obj["delta"].get("stop_reason") or view.ending)
    return _anthropic(view, [blocks[i] for i in sorted(blocks)])


def _anthropic(view: ItemView, blocks: list[Any]) -> ItemView:
    view.blocks = [dict(b) for b in blocks if isinstance(b, Mapping)]
    view.text = "".join(str(b.get("text", "")) for b in view.blocks if b.get("type") == "text")
    return view


def _list(value: JSONValue) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _responses_body(body: Mapping[str, Any]) -> ItemView:
    details = body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, Mapping) else None
    return _responses(ItemView(), _list(body.get("output")), str(body.get("status", "")), str(reason or ""))


def _anthropic_body(body: Mapping[str, Any]) -> ItemView:
    return _anthropic(ItemView(ending=str(body.get("stop_reason") or "")), _list(body.get("content")))


#: How each dialect's answer reads as an `ItemView`: (a non-stream body, the decoded events of a stream). One row
#: per row of the dialect table (tests/harness/dialects/test_tables.py binds them).
ITEM_READERS: dict[str, tuple[Callable[[Mapping[str, Any]], ItemView], Callable[[list[Any]], ItemView]]] = {
    "responses": (_responses_body, _responses_stream),
    "chat": (lambda body: _chat([dict(body)]), _chat),
    "anthropic": (_anthropic_body, _anthropic_stream),
}


def _body(dialect: str, body: JSONValue) -> ItemView:
    if not isinstance(body, Mapping):
        return ItemView()
    return ITEM_READERS[dialect][0](body)


def _read(dialect: str, events: list[SSEEvent], body: JSONValue) -> ItemView:
    if not events:
        return _body(dialect, body)
    return ITEM_READERS[dialect][1](event_objects(events))


def upstream_view(dialect: str, data: bytes) -> ItemView:
    """What the upstream sent, from the bytes the mock wrote for the case's first request (SSE or a JSON body)."""
    if data.lstrip().startswith(b"{"):
        try:
            return _body(dialect, json.loads(data))
        except ValueError:
            return ItemView()
    parser = SSEParser()
    events = parser.feed(data)
    parser.close()
    return _read(dialect, events, None)


def front_view(dialect: str, events: tuple[SSEEvent, ...], body: JSONValue) -> ItemView:
    """What the front answered: its SSE events, or its JSON body when it did not stream."""
    return _read(dialect, list(events), body)
