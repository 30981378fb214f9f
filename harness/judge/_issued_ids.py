"""GW-ID-002: the ids a gateway issues (its response ids, output item ids and call ids, in whatever front) are unique
across the responses of one run (docs/spec/contracts.md §7.8), judged on the isolation case's answers.

The mock is not a real upstream: it scripts the same call ids (`call_1`) in many scenarios, and answers a scenario
with the same ids every time (they derive from the scenario). So an id two answers share is not held against the
gateway when it holds (as a substring: passed through, or derived like `fc_<call_id>`) an id the upstream played, or
the request carried, in both of those answers: the repeat is the script's. And only answers to different scenarios
are compared: a gateway that encodes the upstream's ids (base64, a hash) rightly gives two plays of one scenario the
same ones. An id made from the clock or a per-process counter still repeats across scenarios."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from callproof.harness._types import JSONData
from callproof.harness.catalogue import Evidence
from callproof.harness.check import SSEEvent

from ._findings import Findings

__all__ = ["MIN_ID", "IdsOfAnswer", "IssuedId", "answer_ids", "check_unique_ids", "given_ids"]

#: The keys whose string values are ids a front issues: `id` (a Responses response or item, a Chat chunk or tool
#: call, an Anthropic message or tool_use block) and `call_id` (a Responses call).
_ID_KEYS = ("id", "call_id")
#: The shortest id of the upstream's or the request's that an issued id counts as derived from (shorter ones, if a
#: scenario scripted them, would be found inside any id).
MIN_ID = 4


@dataclass(frozen=True, slots=True)
class IssuedId:
    """Where an answer first carried an id: the event (index, type) and the JSON path in its data."""

    event_index: int
    event_type: str
    path: str


@dataclass(frozen=True, slots=True)
class IdsOfAnswer:
    """One answer of the run as GW-ID-002 sees it: its scenario, its name in messages (`one_call alone`), the ids
    its events carry (each with where it first appeared) and the ids it was given (`given_ids`)."""

    scenario: str
    name: str
    ids: Mapping[str, IssuedId]
    given: frozenset[str]

    def issues(self, value: str) -> bool:
        """Whether the answer issued `value` itself: it carries it, and it is not an id it was given."""
        return value in self.ids and value not in self.given


def answer_ids(events: Sequence[SSEEvent]) -> dict[str, IssuedId]:
    """Every id (`id`, `call_id`) the answer's events carry, with where it first appeared."""
    found: dict[str, IssuedId] = {}
    for index, event in enumerate(events):
        payload = _json(event.data)
        for value, path in _ids(payload, "$", _ID_KEYS):
            found.setdefault(value, IssuedId(index, event.type, path))
    return found


def given_ids(given: Sequence[bytes]) -> frozenset[str]:
    """The ids in what the gateway was given for one answer (the upstream's answers, as SSE, JSON lines or a JSON
    body; the request): the string values of every `id` or `..._id` key, of `MIN_ID` characters or more."""
    found: set[str] = set()
    for data in given:
        text = data.decode("utf-8", "replace")
        whole = _json(text)
        lines = [whole] if whole is not None else [_json(line.removeprefix("data:")) for line in text.splitlines()]
        for payload in lines:
            found.update(value for value, _ in _ids(payload, "$", None) if len(value) >= MIN_ID)
    return frozenset(found)


def _json(text: str) -> JSONData:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _ids(value: JSONData, path: str, keys: tuple[str, ...] | None) -> Iterator[tuple[str, str]]:
    """(id, JSON path) of each string under one of `keys` (None: `id` or a key ending in `_id`)."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}"
            named = key in keys if keys is not None else isinstance(key, str) and (key == "id" or key.endswith("_id"))
            if named and isinstance(inner, str) and inner:
                yield inner, where
            else:
                yield from _ids(inner, where, keys)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _ids(inner, f"{path}[{index}]", keys)


def _inherited(value: str, one: IdsOfAnswer, other: IdsOfAnswer) -> bool:
    """Whether `value` holds an id both answers were given: a repeat the script made."""
    return any(given in value for given in one.given & other.given)


def check_unique_ids(findings: Findings, answers: Sequence[IdsOfAnswer]) -> None:
    """GW-ID-002 on the answers of one run: an id two answers to different scenarios issued, not inherited from an
    id both were given, fails, once per id, naming every answer that issued it."""
    findings.check("GW-ID-002")
    values = list(dict.fromkeys(v for answer in answers for v in answer.ids))
    for value in values:
        carriers = [a for a in answers if a.issues(value)]
        clash = [a for a in carriers if any(b.scenario != a.scenario and not _inherited(value, a, b)
                                            for b in carriers)]
        if len(clash) < 2:
            continue
        first = clash[0].ids[value]
        named = "; ".join(f"{a.name} (event #{a.ids[value].event_index} {a.ids[value].event_type!r}, "
                          f"{a.ids[value].path})" for a in clash)
        findings.fail("GW-ID-002", f"the id {value!r} was issued in {len(clash)} responses of this run: {named}; "
                      "an id made from the clock or a per-process counter repeats", Evidence(
                          event_index=first.event_index, event_type=first.event_type, path=first.path,
                          expected="an id no response to another scenario carries", actual=value))
