"""GW-ID-002: the ids a gateway issues (its response ids, output item ids and call ids, in whatever front) are unique
across the responses of one run (docs/spec/contracts.md §7.8), judged on the isolation case's answers.

Two things keep a correct gateway from failing it on the mock's ids. An id that holds a string the gateway was given
for the case (the upstream's answer, the request; 5 characters or more) is passed through or derived from it, not
issued: the mock scripts the same call ids (`call_1`) in many scenarios. And only answers to different scenarios are
compared: the mock answers a scenario with the same bytes every time (its ids derive from the scenario), so a
gateway that derives its ids from the upstream's (an encoding, a prefix) rightly gives two plays of one scenario the
same ones."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness.catalogue import Evidence
from callproof.harness.check import SSEEvent

from ._findings import Findings

__all__ = ["MIN_GIVEN", "IssuedId", "check_unique_ids", "given_strings", "issued_ids"]

#: The keys whose string values are ids a front issues: `id` (a Responses response or item, a Chat chunk or tool
#: call, an Anthropic message or tool_use block) and `call_id` (a Responses call).
_ID_KEYS = ("id", "call_id")


@dataclass(frozen=True, slots=True)
class IssuedId:
    """Where an answer first carried an id: the event (index, type) and the JSON path in its data."""

    event_index: int
    event_type: str
    path: str


def issued_ids(events: Sequence[SSEEvent], given: Sequence[bytes]) -> dict[str, IssuedId]:
    """The ids the answer's events carry that hold no string of `given` (the upstream's answer for the case, the
    request the gateway got): the ones the gateway made up, each with where it first appeared."""
    strings = given_strings(given)
    found: dict[str, IssuedId] = {}
    for index, event in enumerate(events):
        try:
            payload = json.loads(event.data)
        except ValueError:
            continue
        for value, path in _ids(payload, "$"):
            if value not in found and not any(s in value for s in strings):
                found[value] = IssuedId(index, event.type, path)
    return found


#: A JSON string literal in raw bytes (an SSE stream, a JSON body, JSON lines).
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
#: The shortest string of the given inputs an id counts as derived from.
MIN_GIVEN = 5


def given_strings(given: Sequence[bytes]) -> frozenset[str]:
    """Every JSON string (a value or a key) of 5 characters or more in `given`, decoded."""
    found: set[str] = set()
    for data in given:
        for literal in _STRING.findall(data):
            try:
                value = json.loads(literal)
            except ValueError:
                continue
            if isinstance(value, str) and len(value) >= MIN_GIVEN:
                found.add(value)
    return frozenset(found)


def _ids(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}"
            if key in _ID_KEYS and isinstance(inner, str) and inner:
                yield inner, where
            else:
                yield from _ids(inner, where)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _ids(inner, f"{path}[{index}]")


def check_unique_ids(findings: Findings, answers: Sequence[tuple[str, str, Mapping[str, IssuedId]]]) -> None:
    """GW-ID-002 on the answers of one run, each (its scenario, its name such as `one_call alone`, the ids it
    issued): an id issued in answers to two or more scenarios fails, once per id, naming every answer that carried
    it."""
    findings.check("GW-ID-002")
    carriers: dict[str, list[tuple[str, str, IssuedId]]] = {}
    for scenario, name, ids in answers:
        for value, where in ids.items():
            carriers.setdefault(value, []).append((scenario, name, where))
    for value, seen in carriers.items():
        if len({scenario for scenario, _, _ in seen}) < 2:
            continue
        first = seen[0][2]
        named = "; ".join(f"{name} (event #{w.event_index} {w.event_type!r}, {w.path})" for _, name, w in seen)
        findings.fail("GW-ID-002", f"the id {value!r} was issued in {len(seen)} responses of this run: {named}; "
                      "an id made from the clock or a per-process counter repeats", Evidence(
                          event_index=first.event_index, event_type=first.event_type, path=first.path,
                          expected="an id no response to another scenario carries", actual=value))
