"""The `framing` fault (mock_server/_framing.py): every style frames the very events of the plain stream another way
SSE allows, in every dialect, so a conformant parser (the harness's) reads the same events and the same result,
while the bytes differ as the style says (docs/spec/sse.md §5.1, §5.2)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from typing import Any, get_args

import pytest

from callproof.harness import Dialect
from callproof.harness.check import parse_sse
from callproof.harness.outcome import result_of_events
from callproof.mock_server import bundled_scenarios, make_plan
from callproof.mock_server._framing import FRAMING_STYLES, reframe
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
STYLES = sorted(FRAMING_STYLES)


def _wire(scenario_id: str, dialect: Dialect, plain: bool = False) -> bytes:
    scenario = SCENARIOS[scenario_id]
    if plain:
        scenario = replace(scenario, faults=())
    plan = make_plan(scenario, RENDERERS[dialect], RenderContext(), stream=True, rng=random.Random(0))
    return plan.wire


def _events(data: bytes) -> list[tuple[str, Any]]:
    """(type, JSON value) of each event: multi-line data joins with LF, JSON whitespace between tokens."""
    events, _ = parse_sse(data)
    return [(e.type, e.data if e.data == "[DONE]" else json.loads(e.data)) for e in events]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("style", STYLES)
def test_every_style_carries_the_same_events(style: str, dialect: Dialect) -> None:
    scenario_id = f"framing_{style}"
    framed, plain = _wire(scenario_id, dialect), _wire(scenario_id, dialect, plain=True)
    assert framed != plain
    assert _events(framed) == _events(plain)
    result = result_of_events(parse_sse(framed)[0], dialect)
    assert result.status == "completed" and len(result.calls) == 2 and result.text == "Checking both, \"quickly\"."


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_style_changes_the_bytes_as_it_says(dialect: Dialect) -> None:
    assert not re.search(rb"(?m)^(data|event): ", _wire("framing_no_space", dialect))
    assert b"\n" not in _wire("framing_cr_only", dialect)
    multi = _wire("framing_multiline_data", dialect)
    assert re.search(rb'data: [^\n]*,\ndata: ', multi)  # an event over several data lines, cut after a comma
    fields = _wire("framing_comments_and_fields", dialect)
    assert b"\n: callproof comment\n" in b"\n" + fields and b"\nid: evt_1\n" in fields and b"\nretry: 3000\n" in fields


def test_multiline_data_splits_only_outside_strings() -> None:
    line = b'data: {"a":"x, \\"y, z\\"","b":[1,2]}\n\n'
    (framed,) = reframe([line], "multiline_data")
    assert framed == b'data: {"a":"x, \\"y, z\\"",\ndata: "b":[1,\ndata: 2]}\n\n'
    assert parse_sse(framed)[0][0].data == '{"a":"x, \\"y, z\\"",\n"b":[1,\n2]}'
    assert _events(framed) == [("message", {"a": 'x, "y, z"', "b": [1, 2]})]


def test_comments_and_fields_leave_keepalive_comments_alone_and_number_the_events() -> None:
    frames = [b"event: a\ndata: 1\n\n", b": keep-alive\n\n", b"event: b\ndata: 2\n\nevent: c\ndata: 3\n\n"]
    out = reframe(frames, "comments_and_fields")
    assert out[1] == frames[1]
    assert b"id: evt_3\nretry: 3000\ndata: 3" in out[2]
    assert _events(b"".join(out)) == _events(b"".join(frames))


def test_an_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown framing style 'tabs'"):
        reframe([b"data: 1\n\n"], "tabs")
