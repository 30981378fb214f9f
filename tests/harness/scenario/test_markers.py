"""The `[callproof:...]` markers (harness/scenario/_markers.py): what the harness writes reads back, in a request's
text and in its raw JSON body, and each reader keeps the syntax its caller has always accepted (a scenario id up to
`]` or whitespace, a case tag of `[A-Za-z0-9_.:-]`, stripping any lower-case key with the whitespace before it)."""

from __future__ import annotations

import json

import pytest

from callproof.harness._types import Dialect
from callproof.harness.request import front_request
from callproof.harness.scenario import bundled_scenarios, case_marker, markers, scenario_marker, strip_markers


def test_what_is_written_reads_back() -> None:
    text = f"What is the weather? {markers('one_call', '0b6f1c9e3d2a4e8f')}"
    assert text == "What is the weather? [callproof:scenario=one_call] [callproof:case=0b6f1c9e3d2a4e8f]"
    assert scenario_marker(text) == "one_call"
    assert case_marker(text) == "0b6f1c9e3d2a4e8f"
    assert strip_markers(text) == "What is the weather?"


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_every_bundled_request_carries_markers_the_mock_reads_from_its_body(dialect: Dialect) -> None:
    for scenario in bundled_scenarios().values():
        body = front_request(scenario.id, scenario.request, case="c-1.x:y_z", dialect=dialect)
        raw = json.dumps(body)
        assert scenario_marker(raw) == scenario.id, scenario.id
        assert case_marker(raw) == "c-1.x:y_z", scenario.id


@pytest.mark.parametrize(("text", "scenario", "case"), [
    ("no marker", None, None),
    ("[callproof:scenario=] [callproof:case=]", None, None),  # empty values select nothing
    ("[callproof:scenario=a b] [callproof:case=a b]", None, None),  # whitespace ends a value before its `]`
    ("[callproof:scenario=first] [callproof:scenario=second]", "first", None),  # the first one counts
    ("[callproof:case=one] [callproof:case=two]", None, "one"),
    ("[callproof:scenario=a/b+c] [callproof:case=a/b+c]", "a/b+c", None),  # a case tag is [A-Za-z0-9_.:-] only
    ('{"text": "hi [callproof:case=0b6f1c9e-3d2a-4e8f] there"}', None, "0b6f1c9e-3d2a-4e8f"),
    ("[CALLPROOF:scenario=x] [callproof:Scenario=x]", None, None),  # the prefix and the key are lower-case
])
def test_the_readers_keep_their_syntax(text: str, scenario: str | None, case: str | None) -> None:
    assert scenario_marker(text) == scenario
    assert case_marker(text) == case


@pytest.mark.parametrize(("text", "stripped"), [
    ("hello [callproof:scenario=s] [callproof:case=c]", "hello"),
    ("[callproof:scenario=s]  hello  [callproof:case=c] world ", "hello world"),
    ("a\n[callproof:case=]b", "ab"),  # an empty value and the whitespace before the marker go too
    ("[callproof:other=x] kept [callproof:Case=x]", "kept [callproof:Case=x]"),  # any lower-case key, only that
    ("[callproof:scenario=a b]", "[callproof:scenario=a b]"),  # not a marker: whitespace in the value
    ("", ""),
])
def test_strip_markers_removes_every_marker_and_trims(text: str, stripped: str) -> None:
    assert strip_markers(text) == stripped
