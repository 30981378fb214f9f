"""Gateways facing an upstream call whose arguments are not JSON in a turn that completes normally
(scenarios/malformed_args.json; docs/spec/contracts.md §7.8, GW-ARGS-001). Two positions are correct: the reference
gateway (examples/gateway/) fails the response; `FORWARDS` relays the text byte for byte at every front (its
stream-rule finding is then attributed to the upstream). `ARGS_DEFECTS` (listed in `tests/fakes/gateways.py`'s
`DEFECTS`) changes the bytes instead.

    python -m tests.fakes.args_gateways --upstream http://127.0.0.1:PORT/v1 --port N   # the forwarding gateway
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from examples.gateway import AnthropicFront, ChatFront, Front, ResponsesFront, create_app, parser, serve
from examples.gateway.guard import ArgumentsGuard
from examples.gateway.model import ArgumentsDelta, Event

__all__ = ["ARGS_DEFECTS", "FORWARDS", "main"]


class ForwardsResponses(ResponsesFront):
    """Correct: forwards argument fragments as they come, never checks the joined text (no guard)."""

    def guard(self) -> ArgumentsGuard | None:
        return None


class ForwardsChat(ChatFront):
    """Correct: forwards argument fragments as they come, never checks the joined text (no guard)."""

    def guard(self) -> ArgumentsGuard | None:
        return None


class ForwardsAnthropic(AnthropicFront):
    """Correct: forwards argument fragments as they come, never checks the joined text (no guard)."""

    def guard(self) -> ArgumentsGuard | None:
        return None


#: The forwarding gateway's fronts, one per dialect.
FORWARDS: tuple[type[Front[Any]], ...] = (ForwardsResponses, ForwardsChat, ForwardsAnthropic)


class _Mangled(ArgumentsGuard):
    """Passes every event on, an argument fragment with its last character dropped (a relay cutting bytes)."""

    def see(self, event: Event) -> list[Event]:
        if isinstance(event, ArgumentsDelta) and len(event.fragment) > 1:
            return [ArgumentsDelta(event.key, event.fragment[:-1])]
        return [event]


class MangledMalformedArguments(ChatFront):
    """mangles_malformed_arguments: forwards non-JSON arguments with a byte of each fragment dropped: the front's
    text is not the upstream's, so the Chat front's finding is the gateway's, not the upstream's (GW-ARGS-001)."""

    def guard(self) -> ArgumentsGuard | None:
        return _Mangled()


ARGS_DEFECTS: dict[str, type[Front[Any]]] = {"mangles_malformed_arguments": MangledMalformedArguments}


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    serve(create_app(args.upstream, dialect=args.upstream_dialect, fronts=list(FORWARDS)), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
