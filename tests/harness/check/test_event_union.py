"""Generated from the openai SDK's `ResponseStreamEvent` union: every event type that streams content (a delta, a
done, an added or an annotation event) has a reassembly row in the checker, and the only exemptions are event types
whose SDK model carries no content (docs/spec/responses.md §2.6)."""

from __future__ import annotations

import typing
from typing import Any

import pydantic
import pytest
from openai.types.responses import ResponseStreamEvent

from callproof.harness.check import REASSEMBLED_EVENTS, schema_store

#: The events of the union whose type is not a `.delta`, `.done`, `.added` or annotation event are status events;
#: these content-bearing ones are reassembled elsewhere than the item table.
ELSEWHERE = {
    "response.output_item.added": "harness/check/_responses_items.py: the item itself (RSP-ID-*, RSP-LIFE-004/005)",
    "response.output_item.done": "harness/check/_responses_items.py: the done item every field is compared with",
}
#: Event types exempt from reassembly: no field but their identity and status (checked below on the SDK model).
EXEMPT: set[str] = set()
#: Fields that identify or order an event, or report a status: no content to reassemble.
NO_CONTENT = frozenset(("type", "sequence_number", "item_id", "output_index", "status"))


def _union() -> dict[str, type[pydantic.BaseModel]]:
    """Event type -> SDK model, from the union itself (Annotated[Union[...], discriminator])."""
    union = typing.get_args(ResponseStreamEvent)[0]
    models: dict[str, type[pydantic.BaseModel]] = {}
    for model in typing.get_args(union):
        (etype,) = typing.get_args(model.model_fields["type"].annotation)
        models[etype] = model
    return models


UNION = _union()
STREAMING = sorted(t for t in UNION if t.endswith((".delta", ".done", ".added")) or ".annotation." in t)


def test_the_union_is_walked() -> None:
    assert len(UNION) >= 59
    assert "response.custom_tool_call_input.delta" in STREAMING and "response.output_text.annotation.added" in STREAMING
    assert len(STREAMING) >= 30


@pytest.mark.parametrize("etype", STREAMING)
def test_every_streaming_event_type_has_a_reassembly_row(etype: str) -> None:
    assert etype in REASSEMBLED_EVENTS or etype in ELSEWHERE or etype in EXEMPT, (
        f"{etype} ({UNION[etype].__name__}) has no row in harness/check/_responses_item_fields.py ITEM_EVENTS: add "
        "its field (FieldSpec) and a rule, or exempt it here only if its SDK model carries no content"
    )


def _content(etype: str) -> set[str]:
    """The fields of an event type's SDK model that carry content."""
    return set(UNION[etype].model_fields) - NO_CONTENT


def test_every_exempt_event_type_carries_no_content() -> None:
    """Today no streaming type is exempt (even `response.audio.done`, which carries nothing, has a lifecycle row);
    an exemption added later must name a type whose SDK model has no content field."""
    carrying = {etype: sorted(_content(etype)) for etype in EXEMPT if _content(etype)}
    assert carrying == {}, "these need a reassembly row, not an exemption"


def test_the_content_test_tells_status_events_from_content_events() -> None:
    assert _content("response.mcp_call_arguments.delta") == {"delta"}
    assert _content("response.web_search_call.searching") == set()
    assert _content("response.audio.done") == set()
    assert _content("response.reasoning_summary_part.done") == {"summary_index", "part"}


def test_the_status_events_outside_the_walk_carry_no_content() -> None:
    """The union's event types that are not delta/done/added/annotation events, the response snapshots, `error`
    and the partial image aside, carry no content: no reassembly is missing for them either."""
    others = set(UNION) - set(STREAMING) - {"error", "response.image_generation_call.partial_image"}
    snapshots = {t for t in others if "response" in UNION[t].model_fields}
    assert {t: sorted(_content(t)) for t in others - snapshots if _content(t)} == {}


#: Rows for events outside the SDK union: the Open Responses names of reasoning_text.* (open-responses.md §1.2).
OPEN_RESPONSES_ONLY = {"response.reasoning.delta", "response.reasoning.done"}


def test_no_row_names_an_event_outside_the_union_or_the_schemas() -> None:
    events: Any = schema_store().front("responses", "openai").events
    stray = sorted(t for t in REASSEMBLED_EVENTS - OPEN_RESPONSES_ONLY if t not in UNION or t not in events)
    assert stray == []
    assert set(schema_store().front("responses", "open-responses").events) >= OPEN_RESPONSES_ONLY
    assert not OPEN_RESPONSES_ONLY & set(UNION)
