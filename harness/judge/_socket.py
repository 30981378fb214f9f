"""The turns of one socket of a gateway's Responses WebSocket front (docs/spec/gateway-websocket.md §6): each turn's
results named by its turn, the results of several turns merged into one case's, and the socket's transcript judged
by the rules of the mode itself (RSP-WS-001 one response in flight, RSP-WS-002 the error event's shape, RSP-WS-003
continuation and response ids), as `callproof check` judges a recorded transcript.

A turn is one `response.create` and its answer. The case's own answer (the scenario's request, the socket's first
turn) is judged as an HTTP answer is; every other turn's findings carry `turn N of M (why it was sent)` in their
message and `turn` in their evidence (whose event index then counts in that turn's stream)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import RULES, Profile, RuleResult, Violation
from callproof.harness.check import Sink, TranscriptChecker

__all__ = ["SOCKET_RULES", "SocketMessage", "TurnLabel", "check_socket", "in_turn", "merge_results"]

#: The transcript rules `check_socket` judges over a socket (RSP-WS-004, the framing of a message, is not: the
#: framing group is not planned over WebSocket, and a message that is not JSON fails its turn's stream rules).
SOCKET_RULES = ("RSP-WS-001", "RSP-WS-002", "RSP-WS-003")


@dataclass(frozen=True, slots=True)
class TurnLabel:
    """Turn `number` of `total` on a socket, and why it was sent (`role`: `one_call, sent after the failed turn`)."""

    number: int
    total: int
    role: str

    @property
    def text(self) -> str:
        return f"turn {self.number} of {self.total} ({self.role})"


@dataclass(frozen=True, slots=True)
class SocketMessage:
    """One message of a socket in the order it was sent or read: a client `response.create` (its JSON) or a server
    message (its text, and its `type` where it is a JSON object with one), the turn it belongs to, and for a server
    message its index in that turn's stream."""

    direction: Literal["client", "server"]
    turn: int
    value: JSONValue
    index: int | None = None
    kind: str | None = None


def _labelled(violation: Violation, label: TurnLabel) -> Violation:
    evidence = dataclasses.replace(violation.evidence, turn=label.number)
    return dataclasses.replace(violation, message=f"{label.text}: {violation.message}", evidence=evidence)


def in_turn(results: Iterable[RuleResult], label: TurnLabel) -> tuple[RuleResult, ...]:
    """`results` of one turn's stream, each violation's message led by the turn and its evidence naming it."""
    return tuple(dataclasses.replace(r, violations=tuple(_labelled(v, label) for v in r.violations))
                 for r in results)


_RANK: dict[str, int] = {"not-applicable": 0, "passed": 1, "upstream": 2, "failed": 3}


def merge_results(*parts: Iterable[RuleResult]) -> tuple[RuleResult, ...]:
    """The results of several turns as one case's: per rule, failed where any turn failed it (else attributed to
    the upstream where any turn's finding was, else passed where any turn judged it), the violations of every turn in
    turn order (the first few kept, all counted), in catalogue order."""
    by_rule: dict[str, list[RuleResult]] = {}
    for part in parts:
        for result in part:
            by_rule.setdefault(result.rule.id, []).append(result)
    sink = Sink(by_rule)
    merged: list[RuleResult] = []
    order = {rule: index for index, rule in enumerate(RULES)}
    for rule in sorted(by_rule, key=order.__getitem__):
        results = by_rule[rule]
        if len(results) == 1:
            merged.append(results[0])
            continue
        for result in results:
            for violation in result.violations:
                sink.add(rule, violation.message, violation.evidence)
            sink.add_uncounted(rule, result.count - len(result.violations))
        outcome = max((r.outcome for r in results), key=_RANK.__getitem__)
        merged.append(RuleResult(results[0].rule, outcome, tuple(sink.kept.get(rule, ())), sink.counts.get(rule, 0)))
    return tuple(merged)


def check_socket(messages: Sequence[SocketMessage], labels: Sequence[TurnLabel], *, own: int | None,
                 profile: Profile = "openai") -> tuple[RuleResult, ...]:
    """RSP-WS-001..003 on one socket's messages (the transcript checker's, docs/spec/websocket.md §7), each violation
    naming its turn (`turn 2 of 3, event #0`) and, outside the case's own turn `own`, its evidence the turn and the
    event's index in that turn's stream. A rule is judged only where the socket gave it something to judge: RSP-WS-001
    where two or more `response.create` were sent, RSP-WS-002 where an `error` event came, RSP-WS-003 where a
    response began; otherwise it is not applicable unless it failed (a socket of one turn does not pass RSP-WS-001)."""
    by_number = {label.number: label for label in labels}

    def place(line: int) -> str:
        message = messages[line - 1] if 0 < line <= len(messages) else None
        if message is None or message.turn not in by_number:
            return f"message {line}"
        label = by_number[message.turn]
        where = f"turn {label.number} of {label.total}"
        return where if message.direction == "client" else f"{where}, event #{message.index}"

    checker = TranscriptChecker(profile, place=place)
    server: list[SocketMessage] = []
    for message in messages:
        if message.direction == "client":
            checker.message(message.value, direction="client")
        else:
            server.append(message)
            checker.line(str(message.value).encode())
    report = checker.close()
    creates = sum(m.direction == "client" for m in messages)
    types = {m.kind for m in server}
    applies = {"RSP-WS-001": creates >= 2, "RSP-WS-002": "error" in types,
               "RSP-WS-003": "response.created" in types}
    out: list[RuleResult] = []
    for result in report.results:
        rule = result.rule.id
        if rule not in SOCKET_RULES or result.outcome == "not-applicable":
            continue
        if not applies[rule] and result.outcome != "failed":
            out.append(RuleResult(result.rule, "not-applicable"))
            continue
        out.append(dataclasses.replace(result, violations=tuple(_placed(v, server, own) for v in result.violations)))
    return tuple(out)


def _placed(violation: Violation, server: Sequence[SocketMessage], own: int | None) -> Violation:
    """A transcript violation's evidence in its turn's terms: the turn (outside the case's own) and the index in it."""
    index = violation.evidence.event_index
    message = server[index] if index is not None and 0 <= index < len(server) else None
    if message is None:
        return violation
    turn = None if message.turn == own else message.turn
    return dataclasses.replace(violation, evidence=dataclasses.replace(violation.evidence, event_index=message.index,
                                                                       turn=turn, offset=None))
