"""Every turn of a scenario's socket judged (docs/spec/gateway-websocket.md §6): the turns other than the case's own
answer, each read as its own stream (`JudgedTurn`) for the groups that judge a turn (the stream families, `expected`,
`translation`), and the socket's transcript judged by RSP-WS-001..003 (`check_socket`), the results of which go to
the cases of their families (schema, lifecycle, identity)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness.catalogue import Profile, RuleResult
from callproof.harness.judge import (
    FrontAnswer,
    SocketMessage,
    TurnLabel,
    UpstreamView,
    answer_problem,
    check_socket,
    read_answer,
)
from callproof.harness.scenario import Scenario

from ._ws_exchange import Message, turn_exchange
from ._ws_play import SocketPlay

__all__ = ["TURN_GROUPS", "JudgedTurn", "judge_socket", "socket_details"]

#: The groups that judge the other turns of a socket besides the case's own answer, and whether a turn needs a
#: request of its own (not a continuation) to be judged by it: the stream families judge every turn with a stream,
#: `translation` only a turn with a request of its own.
TURN_GROUPS: Mapping[str, bool] = {"schema": False, "sequence": False, "lifecycle": False, "identity": False,
                                   "reassembly": False, "expected": False, "translation": True}


@dataclass(frozen=True, slots=True)
class JudgedTurn:
    """One turn of a socket besides the case's own answer: its label, the scenario whose request it sent and whose
    expectation it has (an agent loop's leg), its case tag, its answer read as a stream and what reached the upstream
    for it; `refused`: an error the mode allows (no stream, no expectation); `fresh`: a request of its own (the
    translation rules judge it); `problem`: why it cannot be judged (no message, an error where a response was due)."""

    label: TurnLabel
    scenario: Scenario
    case: str | None
    answer: FrontAnswer | None
    upstream: UpstreamView
    refused: bool = False
    fresh: bool = True
    problem: str | None = None

    def touches(self, group: str) -> bool:
        """Whether `group` judges this turn (a refusal the mode allows is judged by the transcript rules only)."""
        if self.refused or group not in TURN_GROUPS:
            return False
        return self.fresh or not TURN_GROUPS[group]


def _scenario(scenarios: Mapping[str, Scenario], name: str, leg: int | None) -> Scenario:
    scenario = scenarios[name]
    return scenario.legs[leg].scenario if leg is not None and leg < len(scenario.legs) else scenario


def judge_socket(
    play: SocketPlay, scenarios: Mapping[str, Scenario], profile: Profile,
    upstream: Callable[[str | None, float], UpstreamView],
) -> tuple[tuple[JudgedTurn, ...], tuple[RuleResult, ...]]:
    """The socket's turns other than the case's own, read and labelled, and its transcript's RSP-WS results.
    `upstream(case, since)`: what reached the upstream for a case tag from a time on."""
    total = len(play.turns)
    labels = [TurnLabel(number, total, played.role) for number, played in enumerate(play.turns, 1)]
    judged: list[JudgedTurn] = []
    own: int | None = None
    for label, played in zip(labels, play.turns, strict=True):
        if played.own:
            own = label.number
            continue
        scenario = _scenario(scenarios, played.scenario, played.leg)
        exchange = turn_exchange(played.turn)
        view = upstream(played.case, played.turn.sent)
        answer = read_answer(exchange, profile, "responses") if exchange.status is not None else None
        problem = None
        if played.turn.over_limit is not None:  # the harness stopped reading: nothing of it can be certified
            answer, problem = None, f"{label.text}: {played.turn.over_limit}; nothing of that turn could be judged"
        elif played.refused:
            pass
        elif answer is None:
            problem = (f"{label.text} got no message ({exchange.error or 'no answer'}): nothing of that turn could "
                       "be judged (the scenario's websocket case judges the socket itself)")
        else:
            why = answer_problem(answer, scenario, upstream_called=bool(view.bodies))
            problem = f"{label.text}: {why}" if why is not None else None
        fresh = played.fresh and played.case is not None  # a request of its own, with its case tag
        judged.append(JudgedTurn(label, scenario, played.case, answer, view, played.refused, fresh, problem))
    return tuple(judged), check_socket(_messages(play), labels, own=own, profile=profile)


def _messages(play: SocketPlay) -> list[SocketMessage]:
    """The transcript as the judge reads it: each message with its turn, a server message with its index there."""
    creates = {id(played.turn.request): number for number, played in enumerate(play.turns, 1)}
    places = {id(message): (number, index) for number, played in enumerate(play.turns, 1)
              for index, message in enumerate(played.turn.messages)}
    out: list[SocketMessage] = []
    last = 1
    for entry in play.log:
        if isinstance(entry, Message):
            number, index = places.get(id(entry), (last, None))
            out.append(SocketMessage("server", number, entry.text, index, entry.type))
        else:
            number = creates.get(id(entry), last)
            out.append(SocketMessage("client", number, dict(entry)))
        last = number
    return out


def socket_details(play: SocketPlay) -> list[dict[str, Any]]:
    """The socket's turns for a case's details: number, scenario, why sent, messages, the last message's type."""
    return [{"turn": number, "scenario": played.scenario, "role": played.role, "messages": len(played.turn.messages),
             "last": played.turn.messages[-1].type if played.turn.messages else None,
             **({"error": played.turn.error} if played.turn.error else {})}
            for number, played in enumerate(play.turns, 1)]
