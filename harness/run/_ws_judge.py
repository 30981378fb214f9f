"""The `websocket` case's judge: the GW-WS rules on the evidence a scenario's socket gathered
(docs/spec/gateway-websocket.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import Findings, check_continuation, check_ws_failure, check_ws_in_flight

from ._ws_play import WebSocketEvidence

__all__ = ["websocket_judge", "websocket_skipped"]


class _Run(Protocol):
    websocket: WebSocketEvidence | None


class _Config(Protocol):
    upstream_dialect: str

    @property
    def policies(self) -> dict[str, str]: ...


def websocket_judge(run: _Run, config: _Config) -> Sequence[RuleResult]:
    """The GW-WS rules on a scenario's socket evidence."""
    findings = Findings()
    evidence = run.websocket
    if evidence is None:
        return ()
    if evidence.continuation is not None:
        earlier, request, upstream, refusal = evidence.continuation
        check_continuation(findings, earlier=[earlier], request=request, upstream=upstream,
                           upstream_dialect=config.upstream_dialect, refusal=refusal,
                           policy=config.policies.get("stateful", "either"), rule="GW-WS-001")
    if evidence.in_flight is not None:
        check_ws_in_flight(findings, *evidence.in_flight)
    if evidence.failure is not None:
        check_ws_failure(findings, *evidence.failure)
    return findings.results()


def websocket_skipped(run: _Run) -> str | None:
    if run.websocket is None or not any((run.websocket.continuation, run.websocket.in_flight,
                                         run.websocket.failure)):
        return ("the first turn over the socket ended without a response to build on (no continuation, probe or "
                "follow-up was sent); the other groups of this scenario say why")
    return None
