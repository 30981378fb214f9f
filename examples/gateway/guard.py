"""What the gateway refuses to pass on as a finished call: arguments that are not JSON. A call's arguments are
checked when the upstream says it is done (`CallDone`) or at a normal `Finish`; text that is not JSON fails the
answer with an error naming the call (docs/spec/contracts.md §7.8: pass through or fail, never repair). A turn
cut by length or a content filter is not checked: its last call may be cut short, and the front says so."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .model import ArgumentsDelta, CallDone, CallStart, Event, Finish, UpstreamError

__all__ = ["ArgumentsGuard"]


@dataclass(eq=False)
class ArgumentsGuard:
    """One answer's calls (per answer, never shared): name, id and joined arguments by key."""

    calls: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    arguments: dict[int, str] = field(default_factory=dict)
    checked: set[int] = field(default_factory=set)

    def see(self, event: Event) -> None:
        """Raises UpstreamError when `event` finishes a call whose arguments are not JSON."""
        if isinstance(event, CallStart):
            self.calls[event.key] = (event.name, event.id)
        elif isinstance(event, ArgumentsDelta):
            self.arguments[event.key] = self.arguments.get(event.key, "") + event.fragment
        elif isinstance(event, CallDone):
            self.check(event.key)
        elif isinstance(event, Finish) and event.reason == "stop":
            for key in self.calls:
                self.check(key)

    def check(self, key: int) -> None:
        if key in self.checked:
            return
        self.checked.add(key)
        text = self.arguments.get(key, "")
        if not text:
            return  # no arguments: the front sends {}
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            name, upstream_id = self.calls.get(key, ("?", None))
            shown = text if len(text) <= 200 else text[:200] + "..."
            raise UpstreamError("bad_upstream_response", f"the upstream's call {name} ({upstream_id or 'no id'}) "
                                f"ended with arguments that are not JSON ({exc.msg} at {exc.pos}): {shown!r}; "
                                "refusing to pass them on as a call") from None
