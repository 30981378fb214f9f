"""Sequences in the mock: which leg of a scenario with `legs` answers a request, per session (the request's
`x-callproof-session` header, else its case tag, else the mock process until the next reset), whether the request
carries what its leg `requires`, and which legs of the sessions that began a sequence were never requested
(docs/mock.md#sequences).

After the last leg, a strict mock answers 409 (the sequence is over: a request too many is a bug in the client
under test); a lenient one plays the last leg again. A leg whose `requires` does not hold is answered with a 400
in the dialect's error shape and stays unplayed, so the next request of the session meets it again."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness.dialects import DIALECTS
from callproof.harness.scenario import Leg, Requires, Scenario, strings_in

from ._player import Plan, error_plan
from .dialects import Renderer

__all__ = ["SESSION_HEADER", "LegChoice", "Sequences", "Turn", "choose_leg", "missing", "session_of"]

SESSION_HEADER = "x-callproof-session"


@dataclass(frozen=True, slots=True)
class Turn:
    """The leg a request meets: `leg` is None when the session is past the last leg (`over`)."""

    session: str | None
    leg: Leg | None
    over: bool = False


@dataclass(slots=True)
class _Progress:
    legs: int
    played: int = 0
    failed: int = 0


class Sequences:
    """The progress of every (scenario, session) pair; touched only from the server's event loop."""

    def __init__(self) -> None:
        self._progress: dict[tuple[str, str | None], _Progress] = {}

    def turn(self, scenario: Scenario, session: str | None, *, strict: bool) -> Turn:
        """The leg the next request of `session` meets (not yet counted as played: see `played`)."""
        progress = self._progress.setdefault((scenario.id, session), _Progress(len(scenario.legs)))
        if progress.played < len(scenario.legs):
            return Turn(session, scenario.legs[progress.played])
        return Turn(session, None if strict else scenario.legs[-1], over=True)

    def played(self, scenario: Scenario, session: str | None) -> None:
        progress = self._progress[(scenario.id, session)]
        progress.played = min(progress.played + 1, progress.legs)

    def failed(self, scenario: Scenario, session: str | None) -> None:
        self._progress[(scenario.id, session)].failed += 1

    def reset(self) -> None:
        self._progress.clear()

    def report(self, *, case: str | None = None) -> list[dict[str, Any]]:
        """Every session that began a sequence: legs played and unplayed; `case` keeps that session's."""
        return [
            {"scenario": sid, "session": session, "legs": p.legs, "played": list(range(p.played)),
             "unplayed": list(range(p.played, p.legs)), "refused": p.failed}
            for (sid, session), p in self._progress.items() if case is None or session == case
        ]

    def unplayed(self, *, case: str | None = None) -> list[dict[str, Any]]:
        """The sessions of `report` with a leg never played."""
        return [row for row in self.report(case=case) if row["unplayed"]]


def session_of(headers: Mapping[str, str], case: str | None) -> str | None:
    """The session a request belongs to: its x-callproof-session header, else its case tag."""
    return headers.get(SESSION_HEADER, "").strip() or case


def missing(requires: Requires | None, dialect: str, body: Mapping[str, Any]) -> str | None:
    """What the request lacks of a leg's `requires`, as a sentence, or None when it carries everything."""
    if requires is None:
        return None
    problems: list[str] = []
    present = set(_tool_results(dialect, body))
    absent = [c for c in requires.tool_results if c not in present]
    if absent:
        form = DIALECTS[dialect].tool_result_form
        found = ", ".join(sorted(present)) or "none"
        problems.append(f"a tool result for call id {', '.join(map(repr, absent))} ({form}; the request carries "
                        f"results for: {found})")
    strings = list(strings_in(body))
    lacking = [t for t in requires.text if not any(t in s for s in strings)]
    if lacking:
        problems.append(f"the text {', '.join(map(repr, lacking))}")
    return " and ".join(problems) if problems else None


def _tool_results(dialect: str, body: Mapping[str, Any]) -> Iterator[str]:
    """The call ids the request carries tool results for, in its dialect's form."""
    return (entry.call_id for entry in DIALECTS[dialect].tool_entries(body) if entry.kind == "result")


@dataclass(frozen=True, slots=True)
class LegChoice:
    """What a request to a sequence gets: leg `index` played as `scenario`, or `error` (409 after the last leg in
    strict mode, 400 when the leg's `requires` does not hold)."""

    index: int | None
    scenario: Scenario | None = None
    error: Plan | None = None


def choose_leg(
    sequences: Sequences, scenario: Scenario, renderer: Renderer, *, session: str | None, body: Mapping[str, Any],
    strict: bool,
) -> LegChoice:
    """The leg of `scenario` that answers this request of `session`, counted as played unless refused."""
    turn = sequences.turn(scenario, session, strict=strict)
    who = f"case {session!r}" if session is not None else "this mock (no case tag or x-callproof-session header)"
    if turn.leg is None:
        message = (f"Scenario {scenario.id!r} is a sequence of {len(scenario.legs)} legs, all played for {who}: this "
                   "request is one too many. Reset the mock (POST /_callproof/reset), or use a new case tag or "
                   f"{SESSION_HEADER} value per run.")
        return LegChoice(None, error=error_plan(renderer, 409, message,
                                                headers=[("x-callproof-scenario", scenario.id)]))
    leg = turn.leg
    lack = missing(leg.requires, renderer.dialect, body)
    if lack is not None:
        sequences.failed(scenario, session)
        message = (f"Leg {leg.index} of scenario {scenario.id!r} ({who}) requires {lack}: the client did not send "
                   "what this turn needs. The leg stays unplayed.")
        headers = [("x-callproof-scenario", scenario.id), ("x-callproof-leg", str(leg.index))]
        return LegChoice(leg.index, error=error_plan(renderer, 400, message, headers=headers))
    if not turn.over:
        sequences.played(scenario, session)
    return LegChoice(leg.index, leg.scenario)
