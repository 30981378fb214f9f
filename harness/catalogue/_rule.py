"""The value types of a check: rules, evidence, violations and per-rule results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from callproof.harness._types import DIALECTS, Dialect, JSONValue
from callproof.harness.dialects import DialectSpec

__all__ = [
    "FAMILIES",
    "FRONTS",
    "LEVELS",
    "STREAM_FAMILIES",
    "PROFILES",
    "Evidence",
    "Family",
    "Level",
    "Outcome",
    "Profile",
    "Rule",
    "RuleResult",
    "Violation",
]

#: How much a failed rule matters: MUST fails the run, SHOULD is reported, INFO is advice.
Level = Literal["MUST", "SHOULD", "INFO"]
#: Which rules and schema variants apply (docs/spec/contracts.md §2).
Profile = Literal["openai", "open-responses", "lenient"]
#: The rule families of docs/spec/contracts.md §7: six a single stream can be checked for, then the expected outcome of
#: a scenario, the gateway (sandwich) rules that read the mock's journal, and the client adapter rules.
Family = Literal[
    "framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected", "gateway", "client",
]
#: `upstream`: a finding attributed to the upstream: the IUT inherited it from what the scenario's upstream played on
#: purpose (a gateway relaying it byte for byte: docs/spec/contracts.md §7.8, "Findings attributed to the upstream"):
#: reported with its evidence, never a failure.
Outcome = Literal["passed", "failed", "not-applicable", "upstream"]

LEVELS: tuple[Level, ...] = ("MUST", "SHOULD", "INFO")
#: The dialect table's names, read live (a row added to it is a front here).
FRONTS: Mapping[str, DialectSpec] = DIALECTS
PROFILES: tuple[Profile, ...] = ("openai", "open-responses", "lenient")
STREAM_FAMILIES: tuple[Family, ...] = ("framing", "schema", "sequence", "lifecycle", "identity", "reassembly")
FAMILIES: tuple[Family, ...] = (*STREAM_FAMILIES, "expected", "gateway", "client")


@dataclass(frozen=True, slots=True)
class Rule:
    """One check with a stable id; its meaning never changes once published."""

    id: str
    level: Level
    family: Family
    fronts: frozenset[Dialect]
    statement: str
    spec: str
    fix: str
    profiles: frozenset[Profile] = frozenset(PROFILES)
    #: The verdict compares clock times (the mock's write stamps, the harness's arrival stamps): machine load can
    #: touch it.
    timing: bool = False

    def applies(self, front: Dialect, profile: Profile) -> bool:
        # a dialect's rules are those of its schema set (a new row reusing a set reuses its rules)
        row = DIALECTS.get(front)
        in_fronts = front in self.fronts or (row is not None and row.schema_set in self.fronts)
        return in_fronts and profile in self.profiles

    @property
    def on_stream(self) -> bool:
        """A rule a single stream or body can be checked for (families 1-6), as opposed to a harness rule."""
        return self.family in STREAM_FAMILIES

    @property
    def anchor(self) -> str:
        """The anchor of this rule's section in docs/rules.md (GitHub's slug of its `### <id>` heading)."""
        return self.id.lower()


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a violation was seen: the event, the field, and what was expected there. `turn`: over a WebSocket
    front, the turn of the socket whose stream the event belongs to when it is not the case's own answer (1 is the
    socket's first; docs/spec/gateway-websocket.md §6); None for the case's own answer and everywhere else."""

    event_index: int | None = None
    event_type: str | None = None
    path: str | None = None
    expected: JSONValue = None
    actual: JSONValue = None
    offset: int | None = None
    turn: int | None = None

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {}
        for name in ("event_index", "event_type", "path", "expected", "actual", "offset", "turn"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def describe(self) -> str:
        """`event #4 'response.output_item.done' at byte 812, $.item.call_id` (`turn 2, event #4 ...` in a turn of
        a socket other than the case's own answer)."""
        parts: list[str] = []
        if self.event_index is not None:
            where = f"event #{self.event_index}"
            if self.event_type is not None:
                where += f" {self.event_type!r}"
            parts.append(where)
        elif self.event_type is not None:
            parts.append(repr(self.event_type))
        if self.offset is not None:
            parts.append(f"at byte {self.offset}")
        text = ", ".join(p for p in (f"turn {self.turn}" if self.turn is not None else "", " ".join(parts),
                                     self.path or "") if p)
        return text or "the stream as a whole"


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken at one place in the stream. `loaded`: the machine's load can account for it (a timing rule's
    lateness over a stretch the IUT and the harness spent waiting for a CPU): the harness plays the case again
    rather than take one play's word for it (docs/spec/contracts.md §7.8). Its message says so; the report keeps no
    separate field."""

    rule: str
    message: str
    evidence: Evidence = field(default_factory=Evidence)
    loaded: bool = False

    def to_json(self) -> dict[str, JSONValue]:
        return {"rule": self.rule, "message": self.message, "evidence": self.evidence.to_json()}


@dataclass(frozen=True, slots=True)
class RuleResult:
    """The verdict of one rule on one stream; `count` may exceed the violations kept."""

    rule: Rule
    outcome: Outcome
    violations: tuple[Violation, ...] = ()
    count: int = 0

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "rule": self.rule.id,
            "level": self.rule.level,
            "family": self.rule.family,
            "outcome": self.outcome,
            "statement": self.rule.statement,
            "spec": self.rule.spec,
            "count": self.count,
            "violations": [v.to_json() for v in self.violations],
        }
