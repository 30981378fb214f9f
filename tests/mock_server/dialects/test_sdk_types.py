"""Drift detection: every event of every well-formed scenario the mock serves, in all three dialects, validates
against the installed official SDKs' own pydantic types, strictly (`TypeAdapter.validate_python`, never
`construct`); likewise the non-stream bodies. A new SDK release that adds a required field fails here (run
`make drift` to try the newest releases), where the SDKs' lenient stream accumulators would hide it.

Anthropic's `ping` is consumed by the SDK before its event union and is not part of `RawMessageStreamEvent`; an
in-stream error (a Chat chunk with `error`, an Anthropic `error` event) and an error body are what the SDKs raise
on, so they validate as the SDK's error object instead."""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, get_args, get_origin

import anthropic
import openai
import pytest
from anthropic.types import ErrorResponse, Message, RawMessageStreamEvent
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.shared import ErrorObject
from pydantic import TypeAdapter, ValidationError

from callproof.harness import parse_sse
from callproof.harness.scenario import Scenario, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
STREAM_TYPES: dict[str, Any] = {
    "responses": ResponseStreamEvent, "chat": ChatCompletionChunk, "anthropic": RawMessageStreamEvent,
}
BODY_TYPES: dict[str, Any] = {"responses": Response, "chat": ChatCompletion, "anthropic": Message}
#: Well-formed scenarios only: a raw or deliberately broken stream is not meant to satisfy the SDK.
CASES = [
    pytest.param(scenario, dialect, id=f"{scenario.id}::{dialect}")
    for scenario in SCENARIOS.values()
    for dialect in STREAM_TYPES
    if dialect not in scenario.raw and not scenario.breaks.get(dialect)  # type: ignore[call-overload]
]
VERSIONS = f"openai {openai.__version__}, anthropic {anthropic.__version__}"


@cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def _sdk_type(dialect: str, payload: Any, *, body: bool) -> Any:
    """The SDK type `payload` must be: the dialect's event or body type, or its error object for an error."""
    if dialect == "anthropic" and isinstance(payload, dict) and payload.get("type") == "error":
        return ErrorResponse
    if dialect != "anthropic" and isinstance(payload, dict) and set(payload) == {"error"}:
        return ErrorObject
    if body:
        return BODY_TYPES[dialect]
    union = STREAM_TYPES[dialect]
    if dialect == "chat":
        return union
    members = _members(union)
    kind = payload.get("type") if isinstance(payload, dict) else None
    return members.get(kind, union) if isinstance(kind, str) else union


@cache
def _members(union: Any) -> dict[str, Any]:
    """The members of a discriminated union by their `type` literal: a payload is checked against its own member,
    so an error names its fields instead of listing every member it is not."""
    while get_origin(union) is Annotated:
        union = get_args(union)[0]
    members: dict[str, Any] = {}
    for member in get_args(union):
        field = member.model_fields["type"]
        for literal in get_args(field.annotation):
            members[literal] = member
    return members


def _problems(tp: Any, value: Any) -> list[str]:
    if tp is ErrorObject:
        value = value["error"]
    try:
        _adapter(tp).validate_python(value, strict=True)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]]
    return []


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_every_streamed_event_is_an_sdk_event(scenario: Scenario, dialect: Any) -> None:
    rendered = RENDERERS[dialect].stream(scenario, RenderContext())
    failures: list[str] = []
    events, _ = parse_sse(rendered.body)
    for index, event in enumerate(events):
        if event.data == "[DONE]":
            continue
        payload = json.loads(event.data)
        if dialect == "anthropic" and payload.get("type") == "ping":
            continue
        failures += [f"event #{index} {payload.get('type', 'chunk')!r}, {p}"
                     for p in _problems(_sdk_type(dialect, payload, body=False), payload)]
    assert not failures, f"{scenario.id} ({dialect}) against {VERSIONS}:\n" + "\n".join(failures[:10])


@pytest.mark.parametrize(("scenario", "dialect"), CASES)
def test_every_body_is_an_sdk_object(scenario: Scenario, dialect: Any) -> None:
    body = RENDERERS[dialect].body(scenario, RenderContext())
    problems = _problems(_sdk_type(dialect, body, body=True), body)
    assert not problems, f"{scenario.id} ({dialect}) body against {VERSIONS}:\n" + "\n".join(problems)


def test_the_check_is_strict() -> None:
    """A chunk the SDK's accumulator would tolerate (a string where an int belongs) fails here."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": "1", "model": "m", "choices": []}
    assert _problems(ChatCompletionChunk, chunk)
    assert not _problems(ChatCompletionChunk, {**chunk, "created": 1})
