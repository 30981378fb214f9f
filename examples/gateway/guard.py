"""What the gateway refuses to pass on as a finished call: arguments that are not JSON. A call's arguments are
checked at a normal `Finish` (a custom tool call's raw input is not JSON and is never checked); text that is not
JSON fails the answer with an error naming the call (docs/spec/contracts.md §7.8: pass through or fail, never
repair). A turn cut by length or a content filter is not refused: its last call may be cut short, and the front
says so."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .model import ArgumentsDelta, CallDone, CallStart, Event, Finish, UpstreamError

__all__ = ["ArgumentsGuard"]


@dataclass(eq=False)
class ArgumentsGuard:
    """One answer's calls (per answer, never shared): name, id and joined arguments by key, and the `CallDone`s
    of calls whose arguments are not JSON, held back until the finish says whether the turn was cut."""

    calls: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    arguments: dict[int, str] = field(default_factory=dict)
    held: list[Event] = field(default_factory=list)
    custom: set[int] = field(default_factory=set)  # keys of custom tool calls

    def see(self, event: Event) -> list[Event]:
        """The events to pass on for `event`; raises UpstreamError at a normal finish when a call's arguments are
        not JSON. A call done with such arguments waits for the finish: a length or content-filter finish passes
        it on (the turn was cut: the front reports it incomplete), a normal one fails the answer."""
        if isinstance(event, CallStart) and event.kind == "custom":
            self.custom.add(event.key)  # raw text input: never JSON-checked
        elif isinstance(event, CallStart):
            self.calls[event.key] = (event.name, event.id)
        elif isinstance(event, ArgumentsDelta) and event.key not in self.custom:
            self.arguments[event.key] = self.arguments.get(event.key, "") + event.fragment
        elif isinstance(event, CallDone) and self.problem(event.key) is not None:
            self.held.append(event)
            return []
        elif isinstance(event, Finish):
            if event.reason == "stop":
                for key in self.calls:
                    problem = self.problem(key)
                    if problem is not None:
                        raise UpstreamError("bad_upstream_response", problem)
            held, self.held = self.held, []
            return [*held, event]
        return [event]

    def problem(self, key: int) -> str | None:
        """Why call `key`'s arguments cannot be passed on, naming the call, or None ('' is no arguments: {})."""
        text = self.arguments.get(key, "")
        if not text:
            return None
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            name, upstream_id = self.calls.get(key, ("?", None))
            shown = text if len(text) <= 200 else text[:200] + "..."
            return (f"the upstream's call {name} ({upstream_id or 'no id'}) ended with arguments that are not JSON "
                    f"({exc.msg} at {exc.pos}): {shown!r}; refusing to pass them on as a call")
        return None
