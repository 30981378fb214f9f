"""A gateway's Responses WebSocket front (`--front-transport websocket`, docs/spec/gateway-websocket.md): a scenario
is one socket, its request the first turn, the socket's other turns (a continuation, back-to-back creates, a turn
after a failure) the `websocket` case's evidence, every turn judged as its own stream and the transcript by the
RSP-WS rules; the isolation case's requests one socket each; a cancellation closes the socket."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.judge import CaseSpec, FrontAnswer, UpstreamView
from callproof.harness.scenario import Scenario
from callproof.harness.transports import TransportSpec

from ._cancel_exchange import Closer
from ._front_protocol import FrontContext
from ._http_exchange import Limits
from ._scenario_run import ScenarioRun
from ._stateful import two_turn
from ._ws_cancel import close_socket
from ._ws_plan import plan_websocket
from ._ws_play import SocketPlay, WebSocketPlay
from ._ws_scenarios import websocket_applies
from ._ws_turns import judge_socket, socket_details

__all__ = ["WebSocketFront"]


class WebSocketFront:
    """Turns over sockets of the gateway's front URL (its ws:// form)."""

    closer: Closer | None = staticmethod(close_socket)

    def __init__(self, context: FrontContext) -> None:
        self.context = context

    @staticmethod
    def plan(transport: TransportSpec, scenarios: Mapping[str, Scenario],
             specs: Sequence[CaseSpec]) -> list[CaseSpec]:
        """The GW-WS cases added, the groups with nothing to judge over a socket dropped; a continuation over a
        socket is the connection's own: GW-WS-001 judges it, not a turn per socket."""
        planned = plan_websocket(transport, scenarios, specs)
        return [s for s in planned if s.scenario not in scenarios or not two_turn(scenarios[s.scenario])]

    def _play(self) -> WebSocketPlay:
        context = self.context
        config, journal = context.config, context.journal
        return WebSocketPlay(context.iut.front_url, config.front_headers, config.case_timeout,
                             Limits(config.max_events, config.max_bytes), config.profile, config.model,
                             config.upstream_dialect, context.request,
                             lambda since: [r.body for r in journal.requests() if r.time >= since],
                             lambda scenario_id: scenario_id in context.scenarios,
                             lambda case: [(r.time, end.time if (end := journal.end(r.id)) is not None else None)
                                           for r in journal.requests(case=case)])

    def exchange(self, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]:
        """One turn on a socket of its own."""
        answer = self._play().one_turn(request)
        if answer is None:
            exited = "; the IUT exited" if self.context.iut.exited(grace=1.0) else ""  # it may be dying
            return None, "the IUT did not answer over WebSocket" + exited
        return answer, None

    def play(self, run: ScenarioRun) -> tuple[FrontAnswer | None, str | None]:
        """The first turn of one socket, then the GW-WS evidence on it."""
        answer, problem, run.websocket, socket = self._play().play(run.scenario, run.request)
        self._socket(run, socket)
        return answer, problem

    def after_sequence(self, run: ScenarioRun) -> None:
        """A sequence the `websocket` case judges: one socket replaying its first leg to continue it (GW-WS-001)."""
        if websocket_applies(run.scenario):
            _, _, run.websocket, socket = self._play().play(
                run.scenario, self.context.request(run.scenario.id), own=False)
            self._socket(run, socket)

    def _socket(self, run: ScenarioRun, socket: SocketPlay | None) -> None:
        """The turns of the scenario's socket besides its own answer, and its transcript's RSP-WS results (every
        WebSocket turn judged: docs/spec/gateway-websocket.md §6)."""
        if socket is None:
            return
        journal = self.context.journal

        def bodies(case: str | None, since: float) -> UpstreamView:  # what the turn rules read: the request bodies
            return UpstreamView(tuple(r.body for r in journal.requests(case=case) if r.time >= since) if case else (),
                                ())

        run.turns, run.socket_results = judge_socket(socket, self.context.scenarios, self.context.config.profile,
                                                     bodies)
        run.details["socket"] = socket_details(socket)

