"""How the harness reaches a gateway's front, one `Front` per transport (the transport table's rows,
callproof.harness.transports, name the transports; `FRONTS` says how each is played): one request's exchange, a
scenario's own play (with whatever evidence the transport gathers besides the answer), the plan's cases over it, and
the client's close of a cancellation. In the spirit of httpx's transports: one module per transport (`_http_front`,
`_ws_front`) behind one protocol; the table of them is `_fronts.FRONTS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from callproof.harness.judge import CaseSpec, FrontAnswer
from callproof.harness.scenario import Scenario
from callproof.harness.transports import TransportSpec

from ._cancel_exchange import Closer
from ._config import RunConfig
from ._iut import Gateway
from ._scenario_run import ScenarioRun

if TYPE_CHECKING:
    from callproof.mock_server import Journal

__all__ = ["Front", "FrontContext", "FrontKind"]


@dataclass(frozen=True, slots=True)
class FrontContext:
    """What a front reads from its run: the configuration, the gateway, the harness's HTTP client, the mock's journal,
    the scenarios, and `request(scenario_id)`: a scenario's request body with a fresh case tag."""

    config: RunConfig
    iut: Gateway
    http: httpx.Client
    journal: Journal
    scenarios: Mapping[str, Scenario]
    request: Callable[[str], dict[str, Any]]


class Front(Protocol):
    """A gateway's front over one transport."""

    #: How a cancellation case closes the front (None: the HTTP client's close, `close_front`).
    closer: Closer | None

    def exchange(self, request: Mapping[str, Any]) -> tuple[FrontAnswer | None, str | None]:
        """One request through the front: (answer, None), or (None, why the IUT failed)."""
        ...

    def play(self, run: ScenarioRun) -> tuple[FrontAnswer | None, str | None]:
        """The scenario's own request through the front, and whatever the transport gathers besides into `run`."""
        ...

    def after_sequence(self, run: ScenarioRun) -> None:
        """After a sequence's legs were played leg by leg: the transport's own evidence of it into `run`."""
        ...


class FrontKind(Protocol):
    """A row of `FRONTS`: the plan over the transport and its `Front` for a run."""

    def plan(self, transport: TransportSpec, scenarios: Mapping[str, Scenario],
             specs: Sequence[CaseSpec]) -> list[CaseSpec]:
        """The cases of a run over this transport (`transport`: its row), from the plan's cases."""
        ...

    def __call__(self, context: FrontContext) -> Front: ...
