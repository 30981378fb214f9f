"""schemas/responses/websocket/ against openai-python's own types (docs/spec/websocket.md §7.2, §7.3): the same event
types, and the same verdict on the cases of responses-websocket.json and on every message of the WebSocket
captures, through a pydantic TypeAdapter of `ResponsesServerEvent` / `ResponsesClientEvent`. A new SDK that adds or
drops an event type, or starts rejecting what the schema accepts, fails here."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest

# openai>=1.99 (the dev extra) predates the WebSocket types; the pinned interop extra (openai 3.54.0) has them.
pytest.importorskip("openai.types.responses.responses_server_event", reason="openai-python without WebSocket types")
from openai.types.responses.responses_client_event import ResponsesClientEvent
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter, ValidationError

from callproof.harness.check import schema_store

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((Path(__file__).resolve().parent / "responses-websocket.json").read_text(encoding="utf-8"))
SERVER = "responses/websocket/server_event.json"
CLIENT = "responses/websocket/client_event.json"
ADAPTERS: dict[str, TypeAdapter[Any]] = {
    SERVER: TypeAdapter(ResponsesServerEvent),
    CLIENT: TypeAdapter(ResponsesClientEvent),
}
TRANSCRIPTS = sorted((ROOT / "examples" / "captures" / "responses" / "openai" / "ok").glob("websocket-*.jsonl"))


def _sdk_types(alias: Any) -> set[str]:
    """The `type` literal of every member of an SDK discriminated union."""
    union = typing.get_args(alias)[0]
    return {typing.get_args(member.model_fields["type"].annotation)[0] for member in typing.get_args(union)}


def _schema_types(ref: str) -> set[str]:
    doc: Any = schema_store().documents["https://callproof.dev/schemas/" + ref]
    return set(doc["properties"]["type"]["enum"])


def _sdk_accepts(ref: str, data: Any) -> bool:
    try:
        ADAPTERS[ref].validate_python(data)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(("ref", "alias"), [(SERVER, ResponsesServerEvent), (CLIENT, ResponsesClientEvent)])
def test_the_schema_knows_exactly_the_sdk_event_types(ref: str, alias: Any) -> None:
    sdk, schema = _sdk_types(alias), _schema_types(ref)
    assert sdk - schema == set(), f"the SDK has event types {ref} lacks"
    assert schema - sdk == set(), f"{ref} has event types the SDK no longer has"


@pytest.mark.parametrize("case", [c for c in CASES if c["schema_ref"] in ADAPTERS], ids=lambda c: c["description"])
def test_the_sdk_agrees_with_the_schema_case(case: dict[str, Any]) -> None:
    assert _sdk_accepts(case["schema_ref"], case["data"]) is case["valid"]


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_every_message_of_the_websocket_captures_is_valid_for_both(path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        message = json.loads(line)
        if set(message) == {"direction", "message"}:
            message = message["message"]
        ref = CLIENT if message["type"] in ("response.create", "response.steer") else SERVER
        assert schema_store().validator(ref).is_valid(message), (path.name, number)
        assert _sdk_accepts(ref, message), (path.name, number)


def test_the_flat_sse_error_event_is_not_a_websocket_server_event() -> None:
    """docs/spec/websocket.md §7.6: the SDK's ResponsesServerEvent has only the nested error event."""
    flat = {"type": "error", "code": "server_error", "message": "m", "param": None, "sequence_number": 0}
    assert not _sdk_accepts(SERVER, flat)
    assert not schema_store().validator(SERVER).is_valid(flat)
