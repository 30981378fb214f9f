"""Stateful scenarios in a gateway run (scenarios tagged `stateful`, docs/spec/stateful.md §5): planning them on a
Responses front, the two-turn exchange of a scenario with a `continuation` (turn 1 its request; turn 2 the
continuation's input alone with `previous_response_id` naming turn 1's response), and the judge of their
`stateful` case (GW-STATE-001..003, `callproof.harness.judge`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import Dialect, JSONData, JSONValue
from callproof.harness.check import event_objects
from callproof.harness.dialects import DIALECTS
from callproof.harness.judge import (
    STATEFUL_TAG,
    EarlierTurn,
    Findings,
    FrontAnswer,
    Refusal,
    check_continuation,
    check_encrypted_reasoning,
    check_store,
    responses_output,
)
from callproof.harness.request import front_request
from callproof.harness.scenario import Scenario

__all__ = ["StatefulPlay", "TurnPlay", "is_stateful", "judge_stateful", "play_stateful", "stateful_groups",
           "turn_bodies", "two_turn", "upstream_response_id"]

Send = Callable[[Mapping[str, Any]], tuple[FrontAnswer | None, str | None]]
#: The upstream requests of a case that arrived at or after a time: (body, the upstream's response id or None).
Upstream = Callable[[float], list[tuple[JSONData, str | None]]]


def is_stateful(scenario: Scenario) -> bool:
    return STATEFUL_TAG in scenario.tags


def two_turn(scenario: Scenario) -> bool:
    """A stateful scenario played as two turns (it has a `continuation`)."""
    return is_stateful(scenario) and "continuation" in scenario.request


def stateful_groups(scenario: Scenario, mode: str, front: Dialect) -> list[str] | None:
    """The groups of a scenario tagged `stateful`: its `stateful` case on a Responses front in gateway mode (the
    fields exist nowhere else; a refusal is a valid answer there, which the one-turn groups could not judge), none
    elsewhere; None for any other scenario (planned as usual)."""
    if not is_stateful(scenario):
        return None
    return ["stateful"] if mode == "gateway" and DIALECTS[front].previous_response_id else []


@dataclass(frozen=True, slots=True)
class TurnPlay:
    """One turn: the front request, the front's answer (None: no answer, `problem` says why), the upstream
    request it led to (None: the gateway did not call its upstream) and the id the upstream gave its response."""

    request: Mapping[str, Any]
    answer: FrontAnswer | None
    upstream: JSONData = None
    upstream_id: str | None = None
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class StatefulPlay:
    """A stateful scenario as played: its first turn and, for a two-turn one, its continuation."""

    first: TurnPlay
    second: TurnPlay | None = None


def _answered(answer: FrontAnswer) -> tuple[str | None, tuple[Mapping[str, Any], ...]]:
    """The response id and output items the client got (a stream's events, or a non-stream body)."""
    if answer.events:
        return responses_output(event_objects(answer.events))
    body = answer.exchange.json()
    return responses_output(body=body) if isinstance(body, Mapping) else (None, ())


def _turn(send: Send, upstream: Upstream, request: Mapping[str, Any], since: float) -> TurnPlay:
    answer, problem = send(request)
    bodies = upstream(since)
    body, upstream_id = bodies[0] if bodies else (None, None)
    return TurnPlay(request, answer, body, upstream_id, problem)


def play_stateful(scenario: Scenario, case: str, request: Mapping[str, Any], send: Send, upstream: Upstream,
                  now: Callable[[], float], *, model: str) -> tuple[StatefulPlay, str | None]:
    """Turn 1 (`request`), then, for a scenario with a `continuation` and with the id of turn 1's response, turn 2:
    the continuation's input alone with `previous_response_id`. The play, and why it could not be judged (None:
    it can)."""
    first = _turn(send, upstream, request, now())
    if first.answer is None:
        return StatefulPlay(first), first.problem or "the IUT did not answer turn 1"
    if not two_turn(scenario):
        return StatefulPlay(first), None
    response_id, _ = _answered(first.answer)
    if response_id is None or (first.answer.exchange.status or 0) >= 400:
        return StatefulPlay(first), (f"turn 1 got HTTP {first.answer.exchange.status} without a response id: "
                                     "there is nothing to continue (the expected and stream rules of a one-turn "
                                     "scenario judge such an answer)")
    follow = {**{k: v for k, v in scenario.request.items() if k not in ("continuation", "store", "include")},
              "input": scenario.request["continuation"]["input"]}
    second_request = {**front_request(scenario.id, follow, case=case, model=model, dialect="responses"),
                      "previous_response_id": response_id}
    second = _turn(send, upstream, second_request, now())
    if second.answer is None:
        return StatefulPlay(first, second), second.problem or "the IUT did not answer turn 2"
    return StatefulPlay(first, second), None


def _refusal(turn: TurnPlay) -> Refusal | None:
    """The front's answer to a turn that did not reach the upstream, as a refusal to judge."""
    if turn.upstream is not None or turn.answer is None:
        return None
    body: JSONValue = turn.answer.exchange.json() if turn.answer.exchange.status else None
    return Refusal(turn.answer.exchange.status, body)


def judge_stateful(findings: Findings, play: StatefulPlay, scenario: Scenario, *, upstream_dialect: str,
                   policy: str) -> None:
    """GW-STATE-001..003 on a played stateful scenario."""
    first, second = play.first, play.second
    if second is not None:
        assert first.answer is not None
        front_id, output = _answered(first.answer)
        continued = second.upstream if isinstance(second.upstream, Mapping) else None
        if first.request.get("store") is False:
            check_store(findings, request=first.request,
                        first_upstream=first.upstream if isinstance(first.upstream, Mapping) else None,
                        upstream_dialect=upstream_dialect, continued=continued, refusal=_refusal(second))
        else:
            check_continuation(findings, earlier=(EarlierTurn(first.request, output, front_id, first.upstream_id),),
                               request=second.request, upstream=continued, upstream_dialect=upstream_dialect,
                               refusal=_refusal(second), policy=policy)
    check_encrypted_reasoning(findings, request=first.request,
                              upstream=first.upstream if isinstance(first.upstream, Mapping) else None,
                              upstream_dialect=upstream_dialect, refusal=_refusal(first), policy=policy)


def upstream_response_id(dialect: str | None, data: bytes) -> str | None:
    """The id of the response a Responses upstream streamed (its first event naming one), else None."""
    if dialect is None or not DIALECTS[dialect].previous_response_id:
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            payload = json.loads(line[5:])
        except ValueError:
            continue
        response = payload.get("response") if isinstance(payload, dict) else None
        rid = response.get("id") if isinstance(response, dict) else None
        if isinstance(rid, str):
            return rid
    return None


def turn_bodies(records: Sequence[Any], body_of: Callable[[int], bytes],
                since: float) -> list[tuple[JSONData, str | None]]:
    """The journal's requests at or after `since` (body, the upstream response id)."""
    return [(r.body, upstream_response_id(r.dialect, body_of(r.id))) for r in records if r.time >= since]
