"""The plan of a run over a gateway's Responses WebSocket front (docs/spec/gateway-websocket.md §6): read from the
transport's row (the groups it excludes and adds) and the rule groups' rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from callproof.harness.catalogue import STREAM_FAMILIES
from callproof.harness.judge import CaseSpec
from callproof.harness.scenario import Scenario, http_error_fault
from callproof.harness.transports import TransportSpec

from ._groups import carried_over
from ._ws_scenarios import is_failure, is_loop, streamed, websocket_applies

__all__ = ["plan_websocket"]


def plan_websocket(transport: TransportSpec, scenarios: Mapping[str, Scenario],
                   specs: Sequence[CaseSpec]) -> list[CaseSpec]:
    """The cases of a run over a WebSocket front (`transport`, its row): the HTTP plan without the groups the row
    excludes, each scenario's cases of the groups the row adds (`websocket`) after its others (an agent loop,
    unplanned over HTTP, gets only that one); a scenario asking for a non-stream body is not planned (the mode
    always streams). A scenario whose upstream answers an HTTP error has no stream over HTTP, but its socket has:
    its error event (RSP-WS-002) and the turn sent after it; it gets the stream families' cases too
    (docs/spec/gateway-websocket.md §6)."""
    out: list[CaseSpec] = []
    added: set[str] = set()
    families = tuple(family for family in STREAM_FAMILIES if carried_over(family, transport))
    kept = [s for s in specs if carried_over(s.group, transport) and s.group not in transport.adds
            and (s.scenario not in scenarios or not transport.streams_only or streamed(scenarios[s.scenario]))]
    for index, spec in enumerate(kept):
        scenario = scenarios.get(spec.scenario)
        if (index == 0 or kept[index - 1].scenario != spec.scenario) and scenario is not None \
                and is_failure(scenario) and http_error_fault(scenario.faults) is not None:
            out.extend(CaseSpec(spec.scenario, family) for family in families
                       if CaseSpec(spec.scenario, family) not in kept)
        out.append(spec)
        following = kept[index + 1].scenario if index + 1 < len(kept) else None
        if following != spec.scenario and scenario is not None and websocket_applies(scenario):
            out.extend(CaseSpec(spec.scenario, group) for group in transport.adds)
            added.add(spec.scenario)
    loops = [CaseSpec(s.id, group) for s in scenarios.values() for group in transport.adds
             if s.id not in added and is_loop(s) and s.id not in {c.scenario for c in kept}]
    return out + loops
