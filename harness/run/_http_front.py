"""A gateway's front over HTTP (`--front-transport http`, the default): each request one POST, its answer read from
the real bytes (SSE, or a JSON body)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from callproof.harness.judge import CaseSpec, FrontAnswer, read_answer
from callproof.harness.scenario import Scenario
from callproof.harness.transports import TransportSpec

from ._cancel_exchange import Closer
from ._front_protocol import FrontContext
from ._http_exchange import Limits, exchange
from ._scenario_run import ScenarioRun

__all__ = ["HTTPFront"]


class HTTPFront:
    """One POST per request through the gateway's front URL."""

    closer: Closer | None = None

    def __init__(self, context: FrontContext) -> None:
        self.context = context

    @staticmethod
    def plan(transport: TransportSpec, scenarios: Mapping[str, Scenario],
             specs: Sequence[CaseSpec]) -> list[CaseSpec]:
        """The plan's cases as they are: every group was planned for HTTP."""
        return list(specs)

    def exchange(self, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]:
        config, iut = self.context.config, self.context.iut
        sent = exchange(self.context.http, iut.front_url, request, timeout=config.case_timeout,
                        headers=config.front_headers or None, limits=Limits(config.max_events, config.max_bytes))
        if sent.status is None:
            why = sent.error or "no answer"
            if iut.exited(grace=0.0 if sent.timed_out else 1.0):  # a dropped connection: the IUT may be dying
                why += "; the IUT exited"
            tail = iut.stderr_tail()
            return None, f"the IUT did not answer: {why}" + (f"; stderr tail:\n{tail}" if tail else "")
        return read_answer(sent, config.profile, config.front), None

    def play(self, run: ScenarioRun) -> tuple[FrontAnswer | None, str | None]:
        return self.exchange(run.request)

    def after_sequence(self, run: ScenarioRun) -> None:
        """Nothing besides the legs' own answers."""
