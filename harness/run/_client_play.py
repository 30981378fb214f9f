"""Client mode's reading of the wire and its isolation case: what the mock streamed to the client for one case tag
(from its journal), read in the client's dialect, and nine adapter runs at once against one mock (CLI-012).

Over WebSocket (`--client-transport websocket`) the wire of a case is the mock's last WebSocket turn under its case
tag: the server messages it sent (the journal's body of the turn, one JSON message a line), read as the events of
a Responses stream. A scenario whose point is SSE framing, or that replays raw SSE bytes, has nothing to play over
WebSocket and is not planned (`websocket_playable`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.check import SSEEvent, parse_sse
from callproof.harness.dialects import DIALECTS
from callproof.harness.judge import (
    AdapterRun,
    CaseResult,
    CaseSpec,
    Findings,
    WebSocketTurn,
    adapter_problem,
    check_client_isolation,
    responses_call_item_ids,
)
from callproof.harness.outcome import Result, result_of_adapter, result_of_body, result_of_events
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import Scenario, is_framing
from callproof.mock_server import Journal, JournalRequest, MockServer

from ._client import ClientAdapter
from ._overlap import hold_seconds, in_flight, not_overlapping
from ._verdict import summary

__all__ = [
    "Wire", "judge_client_isolation", "read_sent", "read_wire", "websocket_events", "websocket_playable",
    "websocket_turns",
]

#: (wire result, Responses item ids of its calls, number of requests the client made for the case, the fault kinds
#: the mock applied to the last answer).
Wire = tuple[Result, tuple[str | None, ...], int, tuple[str, ...]]


def websocket_playable(scenario: Scenario) -> bool:
    """Whether a scenario means something over WebSocket: not raw SSE bytes, no SSE framing fault (the messages of a
    WebSocket turn are whole JSON texts: framing, keep-alive comments and fragmented writes do not exist there)."""
    return not scenario.raw and not any(is_framing(fault.kind) for fault in scenario.faults)


def websocket_events(body: bytes) -> list[SSEEvent]:
    """The server messages of a WebSocket turn (JSONL, one message a line, as the journal keeps them) as the events
    of a Responses stream: each message is one event, its type the message's `type`."""
    events: list[SSEEvent] = []
    offset = 0
    for line in body.split(b"\n"):
        end = offset + len(line) + 1
        text = line.decode("utf-8", "replace").strip()
        if text:
            payload = _payload(text)
            kind = payload.get("type") if payload is not None else None
            events.append(SSEEvent(kind if isinstance(kind, str) and kind else "message", text, None, None, offset,
                                   end, 0.0, isinstance(kind, str) and bool(kind)))
        offset = end
    return events


def websocket_turns(journal: Journal, case: str) -> tuple[WebSocketTurn, ...]:
    """The case's WebSocket turns in the journal: each `response.create` the mock answered, with its connection,
    turn, arrival, the client's message and the server messages with the time each left (CLI-016, CLI-017)."""
    turns: list[WebSocketTurn] = []
    for request in journal.requests(case=case):
        connection, turn = getattr(request, "connection", None), getattr(request, "turn", None)
        if _transport(request) != "websocket" or not isinstance(connection, int) or not isinstance(turn, int):
            continue
        messages: list[tuple[float, dict[str, Any]]] = []
        for write in journal.writes(request.id):
            for line in write.data.split(b"\n"):
                payload = _payload(line.decode("utf-8", "replace")) if line.strip() else None
                if payload is not None:
                    messages.append((write.time, payload))
        turns.append(WebSocketTurn(connection, turn, request.time, request.body, tuple(messages)))
    return tuple(turns)


def _refused_in_flight(body: bytes) -> bool:
    """Whether a WebSocket turn's messages are only the mock's `response_already_in_flight` error event."""
    payloads = [_payload(e.data) for e in websocket_events(body)]
    if len(payloads) != 1 or payloads[0] is None or payloads[0].get("type") != "error":
        return False
    error = payloads[0].get("error")
    return isinstance(error, dict) and error.get("code") == "response_already_in_flight"


def _transport(request: object) -> str:
    value = getattr(request, "transport", None)
    return value if isinstance(value, str) else "http"


def read_wire(journal: Journal, case: str, dialect: Dialect, transport: str = "http") -> Wire:
    """What the mock answered the case's last request, read in the dialect of the endpoint the client called; in a
    WebSocket run (`transport`), its last WebSocket turn."""
    requests = journal.requests(case=case)
    if not requests:
        return Result("error", "", (), "no request", error="the adapter never called the mock"), (), 0, ()
    if transport == "websocket":
        turns = [r for r in requests if _transport(r) == "websocket"]
        if not turns:
            return (Result("error", "", (), "no websocket turn", error=(
                f"the adapter called the mock over HTTP ({len(requests)} request(s)), not over WebSocket: in a "
                "--client-transport websocket run it must connect to $CALLPROOF_WS_URL/responses and send "
                "response.create")), (), len(requests), ())
        # a response.create refused because another was in flight answered nothing of the case (CLI-016 judges it)
        answered = [t for t in turns if not _refused_in_flight(journal.body_of(t.id))] or turns
        turn = answered[-1]
        events = websocket_events(journal.body_of(turn.id))
        sent = [p for p in (_payload(e.data) for e in events) if p is not None]
        return (result_of_events(events, "responses"), tuple(responses_call_item_ids(sent)), len(requests),
                tuple(turn.faults))
    last = requests[-1]
    result, ids = read_sent(journal, last, dialect)
    return result, ids, len(requests), tuple(last.faults)


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
            payloads = [_payload(e.data) for e in events]
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


def _payload(data: str) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _at_once(scenarios: Sequence[Scenario], tags: Sequence[str], adapter: ClientAdapter, base_url: str,
             timeout: float, request: Callable[[Scenario, str], dict[str, Any]]) -> list[AdapterRun | None]:
    """The adapter run for every scenario at once, each with its case tag, started together (a barrier): each run,
    or None where it did not happen."""
    runs: list[AdapterRun | None] = [None] * len(scenarios)
    barrier = threading.Barrier(len(scenarios))

    def one(index: int) -> None:
        body = request(scenarios[index], tags[index])
        barrier.wait(timeout=timeout)
        runs[index] = adapter.run(body, base_url, timeout)

    threads = [threading.Thread(target=one, args=(i,), name=f"callproof-client-iso-{i}") for i in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return runs


def judge_client_isolation(
    spec: CaseSpec, scenarios: Sequence[Scenario], adapter: ClientAdapter, mock: MockServer, dialect: Dialect,
    timeout: float, request: Callable[[Scenario, str], dict[str, Any]],
    alone: Callable[[str], tuple[Result | None, str | None]], transport: str = "http",
) -> CaseResult:
    """CLI-012: the client's result for every scenario alone first (`alone`: the scenario's own run, played one
    after another, cached by the harness: its result, or None and why there is none to compare with), then the
    adapter for every scenario at once (each with its own case tag); each concurrent run must report what the
    client reports for its scenario alone, and none of the others' output. A scenario without a result alone, a run
    without a judgeable result, or without a request under its case tag, makes the case an error unless a leak was
    found anyway (without a result alone: always an error)."""
    start = time.monotonic()
    solo = [(s, *alone(s.id)) for s in scenarios]
    missing = [f"{s.id} alone: {why or 'no result'}" for s, result, why in solo if result is None]
    if missing:  # no verdict without evidence: the result alone is what a concurrent run is compared with
        return CaseResult(spec, "error", (), "\n".join([
            "the isolation case compares each concurrent run with the client's result for the same scenario alone, "
            "and has nothing to compare with (the scenario's own cases judge that run):", *missing]),
            time.monotonic() - start, {"scenarios": [s.id for s in scenarios]})
    tags = [new_case_tag() for _ in scenarios]
    held = hold_seconds(timeout)
    mock.hold(tags, held)  # the streams overlap at the mock, however slowly the adapter processes start
    runs = _at_once(scenarios, tags, adapter, str(mock.url), timeout, request)
    judged: list[tuple[Scenario, Result, Result, Result]] = []
    problems: list[str] = []
    for (scenario, result_alone, _), tag, run in zip(solo, tags, runs, strict=True):
        if run is None or run.result is None:
            problems.append(f"{scenario.id}: {adapter_problem(run) if run else 'the adapter run did not happen'}")
            continue
        wire, _, count, _ = read_wire(mock.journal, tag, dialect, transport)
        if not count:
            problems.append(f"{scenario.id}: the adapter never called the mock with its case's request (the markers "
                            "of the first user message must travel as they came)")
        assert result_alone is not None  # checked above
        judged.append((scenario, result_of_adapter(run.result), wire, result_alone))
    overlapped = in_flight(mock.journal, tags)
    details = {"scenarios": [s.id for s in scenarios], "concurrent": len(scenarios), "overlapped": overlapped}
    apart = None if problems else not_overlapping(len(scenarios), overlapped, held, "the client")
    problems += [apart] if apart else []
    findings = Findings()
    if judged:
        check_client_isolation(findings, judged)
    results = tuple(r for r in findings.results() if r.rule.id.startswith("CLI-"))
    failed = [r for r in results if r.outcome == "failed"]
    seconds = time.monotonic() - start
    if problems and not failed:  # no verdict without evidence: every concurrent run must be judgeable
        return CaseResult(spec, "error", (), "\n".join(problems), seconds, details)
    message = "\n".join([summary(failed), *problems]) if failed else ""
    return CaseResult(spec, "failed" if failed else "passed", results, message, seconds, details)
