"""One scenario played once against the implementation under test: everything its cases judge."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import (
    AdapterRun,
    FrontAnswer,
    LoopCallResult,
    SequenceRequest,
    UpstreamView,
    WebSocketTurn,
)
from callproof.harness.outcome import Result
from callproof.harness.scenario import Scenario

from ._stateful import StatefulPlay
from ._ws_play import WebSocketEvidence
from ._ws_turns import JudgedTurn

__all__ = ["NO_ANSWER", "ScenarioRun", "SequencePlay"]

#: The case detail marking a case whose scenario got no answer at all (`--max-consecutive-errors` counts them): no
#: HTTP head (refused, reset, timed out), a head and then not one byte before the case timeout, an IUT that could
#: not be started, an adapter that could not be run or timed out without a result.
NO_ANSWER = "no_answer"


@dataclass(frozen=True, slots=True)
class SequencePlay:
    """A played sequence (a scenario with `legs`, docs/spec/loops.md): in gateway mode, when each front request was
    sent and the earlier turns (calls and results) it carried; the number of legs; then, read from the journal, the
    case's upstream requests and the legs never played."""

    sent: tuple[tuple[float, tuple[tuple[LoopCallResult, ...], ...]], ...]
    legs: int
    requests: tuple[SequenceRequest, ...] = ()
    unplayed: tuple[int, ...] = ()


@dataclass
class ScenarioRun:
    """One scenario played once: the request sent, what came back (gateway: the front's answer and what reached
    the upstream; client: the adapter's result and the stream the mock wrote), or why it could not run (`error`),
    or why what came back cannot be judged (`unjudged`: no verdict without evidence).

    Mutable on purpose: the harness fills it in as the play proceeds, and the equivalence group adds the
    non-stream answer (`plain`) under `lock` on first use."""

    scenario: Scenario
    case: str
    request: dict[str, Any]
    seconds: float
    error: str | None = None
    unjudged: str | None = None
    #: The answer went past `--max-events` / `--max-bytes`: which limit and the count (every case fails).
    over_limit: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    answer: FrontAnswer | None = None
    upstream: UpstreamView | None = None
    adapter: AdapterRun | None = None
    adapter_result: Result | None = None
    wire: Result | None = None
    #: The Responses item ids of the wire's calls, in its order (client mode, Responses streams only; CLI-013).
    wire_item_ids: tuple[str | None, ...] = ()
    #: The fault kinds the mock applied to the answer the client read (client mode; chaos faults fire or not).
    wire_faults: tuple[str, ...] = ()
    #: Client mode over WebSocket: the case's `response.create` turns on the mock (CLI-016, CLI-017).
    wire_turns: tuple[WebSocketTurn, ...] = ()
    plain: FrontAnswer | None = None
    #: Gateway mode, a `may_reject` scenario: the front answered an HTTP error without calling its upstream (valid
    #: when `unjudged` is None; GW-REQ-008 judges it in the translation case, the other cases are skipped).
    rejection: bool = False
    charged: bool = False
    #: Gateway mode over a WebSocket front: the `websocket` case's evidence (GW-WS-*), None where it has none.
    websocket: WebSocketEvidence | None = None
    #: Gateway mode over a WebSocket front: the other turns of the scenario's socket than the case's own answer, each
    #: judged as its own stream by the groups it touches, and the socket's transcript rules (RSP-WS-001..003).
    turns: tuple[JudgedTurn, ...] = ()
    socket_results: tuple[RuleResult, ...] = ()
    #: A sequence (scenario with `legs`): its legs as played (gateway: the front requests; both: the journal's).
    sequence: SequencePlay | None = None
    #: A stateful scenario (tagged `stateful`) as played: its turn(s), judged in its `stateful` case (GW-STATE-*).
    stateful: StatefulPlay | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
