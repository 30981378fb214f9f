"""Gateway fakes for what the isolation case judges beside GW-ISO-001 (tests/fakes/concurrency.py has the shared-state
one): a gateway whose one bug has nothing to do with concurrency, which the isolation case must not blame, and one
whose ids come from the clock (GW-ID-002). gateways.py lists them in its `DEFECTS`.

Run as a program, it is a correct gateway whose item ids derive from the upstream's call ids (`fc_<call_id>`, as
LiteLLM's do): the mock repeats its scripted call ids, so those item ids repeat too, and GW-ID-002 must pass it.

    python -m tests.fakes.isolation_gateways --upstream http://127.0.0.1:PORT/v1 --port N
"""

from __future__ import annotations

import sys
import time
import weakref
from collections.abc import Sequence

from examples.gateway import Json, Request, ResponsesFront, create_app, parser, serve
from examples.gateway.fronts.responses import Item, Turn
from examples.gateway.model import ArgumentsDelta, CallDone, CallStart, Event

__all__ = ["ISOLATION_DEFECTS", "ClockIds", "DerivedItemIds", "DropsSecondCall", "main"]


class DropsSecondCall(ResponsesFront):
    """drops_second_call: every call after a response's first is left out of the answer, alone or not (EXP-001 on
    parallel_two_calls). The same every time: the isolation case compares each concurrent answer with the answer
    alone, so GW-ISO-001 passes."""

    def __init__(self) -> None:
        super().__init__()
        self._dropped: weakref.WeakKeyDictionary[Turn, set[int]] = weakref.WeakKeyDictionary()

    def on_event(self, turn: Turn, event: Event) -> None:
        dropped = self._dropped.setdefault(turn, set())
        if isinstance(event, CallStart) and turn.calls:
            dropped.add(event.key)
        if isinstance(event, CallStart | ArgumentsDelta | CallDone) and event.key in dropped:
            return
        super().on_event(turn, event)


class ClockIds(ResponsesFront):
    """clock_ids: the response id is `resp_<unix seconds>`, each output item's id `<prefix>_<unix seconds>_<output
    index>` and each call id it mints `call_<unix seconds>_<index>`, so two responses begun in the same second carry
    the same ids (GW-ID-002). Everything else is the reference front's: upstream call ids pass through."""

    def new_turn(self, request: Request) -> Turn:
        turn = super().new_turn(request)
        turn.id = f"resp_{int(time.time())}"
        return turn

    def add(self, turn: Turn, item: Item, fields: Json) -> None:
        item.id = f"{item.id.split('_', 1)[0]}_{int(time.time())}_{len(turn.items)}"
        super().add(turn, item, fields)

    def call_id(self, turn: Turn, upstream_id: str | None) -> str:
        if upstream_id and upstream_id not in turn.call_ids:
            return super().call_id(turn, upstream_id)
        call_id = f"call_{int(time.time())}_{len(turn.call_ids)}"
        turn.call_ids.add(call_id)
        return call_id


ISOLATION_DEFECTS: dict[str, type[ResponsesFront]] = {
    "drops_second_call": DropsSecondCall,
    "clock_ids": ClockIds,
}


class DerivedItemIds(ResponsesFront):
    """derived_item_ids (correct, not a defect): a call item's id is `fc_<call_id>` (or `ctc_<call_id>`), derived
    from the call id the upstream gave; unique wherever the upstream's call ids are."""

    def add(self, turn: Turn, item: Item, fields: Json) -> None:
        if item.call_id:
            item.id = f"{item.id.split('_', 1)[0]}_{item.call_id}"
        super().add(turn, item, fields)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the reference gateway with `DerivedItemIds` as its Responses front."""
    args = parser().parse_args(argv)
    serve(create_app(args.upstream, dialect=args.upstream_dialect, fronts=[DerivedItemIds]), args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
