"""What the mock streamed to a client, read from its journal: the wire of a case over HTTP (`HTTPWire`: the answer
to the case's last request, read in the dialect of the endpoint called), and the shape every transport's client side
has (`ClientWire`); the table of them is `_client_wires.CLIENT_WIRES`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from callproof.harness._types import Dialect
from callproof.harness.check import parse_sse
from callproof.harness.dialects import DIALECTS
from callproof.harness.judge import Findings, WebSocketTurn, responses_call_item_ids
from callproof.harness.outcome import Result, result_of_body, result_of_events
from callproof.harness.scenario import Scenario
from callproof.mock_server import Journal, JournalRequest

__all__ = ["ClientWire", "HTTPWire", "Wire", "json_payload", "read_sent"]

#: (wire result, Responses item ids of its calls, number of requests the client made for the case, the fault kinds
#: the mock applied to the last answer).
Wire = tuple[Result, tuple[str | None, ...], int, tuple[str, ...]]


#: Why an answer the mock aborted did not end (its journal's end says `aborted`).
_MOCK_ABORTED = "the mock dropped the connection before the body's end (a scripted disconnect)"


def read_sent(journal: Journal, request: JournalRequest, dialect: Dialect) -> tuple[Result, tuple[str | None, ...]]:
    """What the mock answered one HTTP `request`, read in the dialect of the endpoint called (else `dialect`) as its
    reader holds it, an answer the mock aborted as an abort (`result_of_events`); and in Responses the item ids of
    its calls."""
    body = journal.body_of(request.id)
    spoken = request.dialect or dialect
    if request.stream and request.status < 400:
        events = parse_sse(body)[0]
        ids: tuple[str | None, ...] = ()
        if DIALECTS[spoken].call_item_ids:
            payloads = [json_payload(e.data) for e in events]
            ids = tuple(responses_call_item_ids([p for p in payloads if p is not None]))
        end = journal.end(request.id)
        aborted = _MOCK_ABORTED if end is not None and end.outcome == "aborted" else None
        return result_of_events(events, spoken, aborted=aborted), ids
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    ids = ()
    if DIALECTS[spoken].call_item_ids and isinstance(parsed, Mapping):
        ids = tuple(responses_call_item_ids([{"type": "response.completed", "response": parsed}]))
    return result_of_body(parsed, request.status, spoken), ids


def json_payload(data: str) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None




class ClientWire(Protocol):
    """A client's transport, as the harness reads what the mock streamed to the client over it."""

    def playable(self, scenario: Scenario) -> bool:
        """Whether a scenario means something over this transport (planned in a client run over it)."""
        ...

    def read(self, journal: Journal, requests: Sequence[JournalRequest], dialect: Dialect) -> Wire:
        """The wire of a case from its journaled requests (at least one)."""
        ...

    def turns(self, journal: Journal, case: str) -> tuple[WebSocketTurn, ...]:
        """The case's turns over this transport (its client rules' evidence), () where it has none."""
        ...

    def judge(self, findings: Findings, turns: Sequence[WebSocketTurn]) -> None:
        """This transport's own client rules on the case's turns."""
        ...


class HTTPWire:
    """A client over HTTP: the wire is the answer to the case's last request."""

    def playable(self, scenario: Scenario) -> bool:
        return True

    def read(self, journal: Journal, requests: Sequence[JournalRequest], dialect: Dialect) -> Wire:
        last = requests[-1]
        result, ids = read_sent(journal, last, dialect)
        return result, ids, len(requests), tuple(last.faults)

    def turns(self, journal: Journal, case: str) -> tuple[WebSocketTurn, ...]:
        return ()

    def judge(self, findings: Findings, turns: Sequence[WebSocketTurn]) -> None:
        """No rules of its own."""
