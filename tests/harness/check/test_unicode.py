"""Decoding event data (harness/check/_unicode.py): orjson first where it can, json.loads' values and messages
everywhere else, lone surrogates kept as escapes."""

from __future__ import annotations

import json

import pytest

from callproof.harness.check import loads_json


@pytest.mark.parametrize("text", [
    '{"type": "response.created", "n": 1, "f": 1.5, "s": "caf\\u00e9", "l": [true, null]}',
    '{"big": 18446744073709551615, "small": -9223372036854775808}',  # the 64-bit extremes stay ints
    '{"x": NaN, "y": -Infinity}',  # not JSON, but json.loads reads it (the checker's long-standing behaviour)
    '{"a": 1, "a": 2}',  # duplicate keys: the last wins in both
    '"\\ud83d\\ude00"',  # a surrogate pair: one code point
])
def test_the_values_are_json_loads_values(text: str) -> None:
    assert repr(loads_json(text)) == repr(json.loads(text))
    assert repr(loads_json(text.encode())) == repr(json.loads(text))


def test_an_integer_beyond_64_bits_is_a_float_as_in_javascript() -> None:
    assert loads_json('{"n": 123456789012345678901234567890}') == {"n": 1.2345678901234568e29}


def test_a_lone_surrogate_is_kept_as_its_escape() -> None:
    assert loads_json('{"t": "x\\ud83dy"}') == {"t": "x\\ud83dy"}


@pytest.mark.parametrize("text", ['{"a": ', "[1, 2,]", "", "{'a': 1}"])
def test_a_syntax_error_has_json_loads_message(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as ours:
        loads_json(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert str(ours.value) == str(theirs.value)
