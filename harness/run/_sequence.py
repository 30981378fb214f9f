"""Sequences in a run (scenarios with `legs`, docs/spec/loops.md): the gateway-mode player, which sends each leg's
request through the front (resending after an HTTP error, and after an answer with calls, the next request with
every earlier call and the deterministic tool's result: `callproof.harness.request.loop_request`), and the reading
of a case's upstream requests from the journal for the loop rules (GW-LOOP-*, CLI-014, CLI-015).

A played sequence is kept in the scenario's run (`ScenarioRun.sequence`); the final front answer (gateway) or the
adapter's result (client) is the run's answer, judged by the one-turn groups that take it (the stream families
and `expected`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness.judge import (
    Findings,
    FrontAnswer,
    LoopCallResult,
    SequenceRequest,
    check_client_loop,
    check_client_retries,
    check_gateway_loop,
)
from callproof.harness.request import LoopCall, loop_request
from callproof.harness.scenario import Scenario, fault_param, http_error_fault

from ._scenario_run import ScenarioRun, SequencePlay

__all__ = ["MAX_WAIT_S", "client_env", "is_retry_sequence", "judge_sequence", "play_gateway_sequence",
           "read_client_sequence"]

#: The longest the harness waits before resending after a front's HTTP error (its Retry-After, capped).
MAX_WAIT_S = 2.0

Send = Callable[[Mapping[str, Any]], tuple[FrontAnswer | None, str | None]]
Unplayed = Callable[[str], list[int]]


def is_retry_sequence(scenario: Scenario) -> bool:
    """A sequence whose earlier legs are HTTP errors (a retry sequence), not an agent loop."""
    return any(http_error_fault(leg.scenario.faults) is not None for leg in scenario.legs)


def _retries(scenario: Scenario) -> int:
    return sum(http_error_fault(leg.scenario.faults) is not None for leg in scenario.legs)


def client_env(scenario: Scenario) -> dict[str, str]:
    """What an adapter is told for a sequence case (docs/adapters.md#loops-and-retries): CALLPROOF_TOOL_LOOP=1 for an
    agent loop, CALLPROOF_MAX_RETRIES=<the retries it needs> for a retry sequence; nothing for a one-turn case."""
    if not scenario.legs:
        return {}
    if is_retry_sequence(scenario):
        return {"CALLPROOF_MAX_RETRIES": str(_retries(scenario))}
    return {"CALLPROOF_TOOL_LOOP": "1", "CALLPROOF_MAX_TURNS": str(len(scenario.legs) + 2)}


def _results(turns: Sequence[Sequence[LoopCall]]) -> tuple[tuple[LoopCallResult, ...], ...]:
    return tuple(tuple(LoopCallResult(c.call_id, c.name, c.result.output, c.result.is_error) for c in turn)
                 for turn in turns)


def _wait(answer: FrontAnswer) -> float:
    """The pause a client owes a front's HTTP error: its retry-after-ms, else retry-after seconds (capped)."""
    headers = answer.exchange.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return min(float(headers[name]) * scale, MAX_WAIT_S)
        except (KeyError, ValueError):
            continue
    return 0.0


def play_gateway_sequence(
    run: ScenarioRun, send: Send, unplayed: Unplayed, *, model: str, front: str,
) -> FrontAnswer | None:
    """Play `run.scenario`'s legs through the front; the last front answer (None when the front gave none: then
    `run.error` says why). At most one front request per leg: a gateway that retries itself uses fewer."""
    scenario = run.scenario
    turns: list[tuple[LoopCall, ...]] = []
    sent: list[tuple[float, tuple[tuple[LoopCall, ...], ...]]] = []
    answer: FrontAnswer | None = None
    for _ in scenario.legs:
        request = loop_request(scenario.id, scenario.request, turns, case=run.case, model=model,
                               dialect=front)  # type: ignore[arg-type]
        sent.append((time.monotonic(), tuple(turns)))
        answer, problem = send(request)
        if answer is None:
            run.error = problem
            break
        if not unplayed(run.case):
            break
        status = answer.exchange.status or 0
        if status >= 400:  # the upstream's retryable error passed on: a client resends after its Retry-After
            time.sleep(_wait(answer))
            continue
        calls = answer.result.calls
        if not calls:
            break
        turns.append(tuple(LoopCall(c.call_id or "", c.name, c.arguments) for c in calls))
    run.sequence = SequencePlay(tuple((at, _results(t)) for at, t in sent), len(scenario.legs))
    return answer


def _retry_after(scenario: Scenario, leg: int | None) -> float | None:
    if leg is None or leg >= len(scenario.legs):
        return None
    fault = http_error_fault(scenario.legs[leg].scenario.faults)
    if fault is None:
        return None
    value = fault_param(fault, "retry_after")
    return float(value) if isinstance(value, int | float) else None


def upstream_requests(run: ScenarioRun, records: Sequence[Any]) -> tuple[SequenceRequest, ...]:
    """The case's upstream requests (journal records, in order) with what each must carry: in gateway mode the
    turns of the front request being served when it arrived; in client mode every call of the legs before it."""
    scenario, play = run.scenario, run.sequence
    out: list[SequenceRequest] = []
    for record in records:
        if play is not None and play.sent:
            current = [turns for at, turns in play.sent if at <= record.time]
            expected = current[-1] if current else ()
        else:
            expected = _client_expected(scenario, record.leg)
        out.append(SequenceRequest(record.leg, record.status, record.time, record.body, expected,
                                   _retry_after(scenario, record.leg)))
    return tuple(out)


def _client_expected(scenario: Scenario, leg: int | None) -> tuple[tuple[LoopCallResult, ...], ...]:
    """What a client's request for `leg` must carry: the calls of every leg before it, with the tool's results."""
    if leg is None:
        leg = len(scenario.legs)
    turns = []
    for earlier in scenario.legs[:leg]:
        calls = tuple(LoopCall(c.call_id or "", c.name, c.arguments) for c in earlier.scenario.calls)
        if calls:
            turns.append(calls)
    return _results(turns)


def read_client_sequence(run: ScenarioRun) -> None:
    """Client mode: the sequence the adapter played (what each request must carry is the scenario's)."""
    run.sequence = SequencePlay((), len(run.scenario.legs))


def judge_sequence(
    findings: Findings, run: ScenarioRun, *, mode: str, upstream: str, front: str, client_dialect: str,
    slack: float,
) -> None:
    """The loop rules of a played sequence: GW-LOOP-* (gateway), CLI-014 (client, agent loop) or CLI-015 (client,
    retries), from the requests journaled for the case (`run.sequence.requests`)."""
    play = run.sequence
    if play is None:
        return
    requests, unplayed = play.requests, play.unplayed
    if mode == "gateway":
        refusals = [f"the mock refused upstream request {n + 1} with HTTP {r.status} (leg {r.leg}): "
                    + ("a request after the sequence's end" if r.status == 409 else "it lacked what the leg requires")
                    for n, r in enumerate(requests) if r.status in (400, 409)]
        check_gateway_loop(findings, upstream, front, requests, legs=play.legs, unplayed=unplayed, refusals=refusals)
    elif is_retry_sequence(run.scenario):
        result = run.adapter.result if run.adapter is not None else None
        error = result.get("error") if isinstance(result, Mapping) else None
        check_client_retries(findings, requests, legs=play.legs, unplayed=unplayed, slack=slack,
                             final_error=str(error) if error else None)
    else:
        check_client_loop(findings, client_dialect, requests, legs=play.legs, unplayed=unplayed)
