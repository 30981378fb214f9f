"""The report of a run as typed values (docs/spec/contracts.md §6): `Report`, its `Case`s, each case's
`RuleOutcome`s and their `ReportEvidence`, with `from_json` / `to_json` in the shape of schemas/report.schema.json.

`Report.from_json` is the edge where untyped JSON becomes the model: it validates the JSON against the schema once
(a malformed report is a `ReportError` naming the JSON path), then builds the values without checking again.
`to_json` gives back the same JSON, keys in the order the run writes them. `Summary.of` is the one place the
summary counts are computed.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast, get_args

from callproof.harness._types import Dialect, JSONData, JSONValue
from callproof.harness.catalogue import Profile, RuleResult

from ._shard import Shard
from ._target import Platform, Target, _extra
from ._validate import validate_report

__all__ = [
    "ABSENT",
    "OUTCOMES",
    "REPORT_FORMAT",
    "Absent",
    "BaselineMark",
    "Case",
    "CaseOutcome",
    "Level",
    "Platform",
    "Report",
    "ReportEvidence",
    "ReportViolation",
    "RuleOutcome",
    "Summary",
    "Target",
    "TimelineEvent",
    "nothing_judged",
]

#: The report format this callproof reads and writes (the report's `format`).
REPORT_FORMAT = 1

#: `flaky`: with `--repeat N`, the case's verdict differed between the repeats (docs/report.md#outcomes).
CaseOutcome: TypeAlias = Literal["passed", "failed", "skipped", "xfailed", "error", "flaky"]
OUTCOMES: tuple[CaseOutcome, ...] = get_args(CaseOutcome)
Level: TypeAlias = Literal["MUST", "SHOULD", "INFO"]
#: "covered": a listed failure (the case is xfailed); "stale": listed, but the case passes now.
BaselineMark: TypeAlias = Literal["covered", "stale"]


class Absent(enum.Enum):
    """The value of an evidence field the report leaves out (distinct from a JSON null)."""

    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = Absent.ABSENT


@dataclass(frozen=True, slots=True)
class ReportEvidence:
    """Where a violation was seen, as the report holds it (`evidence` in the schema). `expected` and `actual` are
    `ABSENT` when the report leaves them out; any JSON value (null included) otherwise."""

    event_index: int | None = None
    event_type: str | None = None
    path: str | None = None
    expected: JSONValue | Absent = ABSENT
    actual: JSONValue | Absent = ABSENT
    offset: int | None = None
    #: Over a WebSocket front: the socket's turn the event belongs to, when not the case's own answer.
    turn: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportEvidence:
        return cls(data.get("event_index"), data.get("event_type"), data.get("path"), data.get("expected", ABSENT),
                   data.get("actual", ABSENT), data.get("offset"), data.get("turn"))

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {}
        for name in ("event_index", "event_type", "path", "expected", "actual", "offset", "turn"):
            value = getattr(self, name)
            if value is not None and value is not ABSENT:
                out[name] = value
            elif value is None and name in ("expected", "actual"):
                out[name] = None  # a JSON null the report holds
        return out

    @property
    def empty(self) -> bool:
        return not self.to_json()


@dataclass(frozen=True, slots=True)
class ReportViolation:
    """A further violation of a rule, after the first (a `violations` item)."""

    rule: str
    message: str
    evidence: ReportEvidence = ReportEvidence()
    extra: Mapping[str, JSONValue] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportViolation:
        extra = _extra(data, ("rule", "message", "evidence"))
        return cls(data["rule"], data["message"], ReportEvidence.from_json(data["evidence"]), extra or None)

    def to_json(self) -> dict[str, JSONValue]:
        return {"rule": self.rule, "message": self.message, "evidence": self.evidence.to_json(), **(self.extra or {})}


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """One applicable rule's verdict on a case: the first violation's message and evidence, how many violations
    were seen, the further ones kept, the rule's statement, spec section and fix, and the raw stream around it."""

    rule: str
    level: Level
    family: str
    #: `flaky`: the rule failed in some repeats of the case and not in others (`--repeat N`). `upstream`: a finding
    #: attributed to the upstream, inherited from what the scenario's upstream played on purpose: shown, not failed
    #: (docs/spec/contracts.md §7.8, "Findings attributed to the upstream").
    outcome: Literal["passed", "failed", "flaky", "upstream"]
    message: str = ""
    evidence: ReportEvidence = ReportEvidence()
    count: int = 0
    violations: tuple[ReportViolation, ...] = ()
    statement: str = ""
    spec: str = ""
    fix: str = ""
    excerpt: str | None = None

    @classmethod
    def of(cls, result: RuleResult, excerpt: str | None = None, *, flaky: bool = False) -> RuleOutcome:
        """The report's view of a judged rule (the catalogue's `RuleResult`); `flaky` when its outcome differed
        between the repeats of the case (the result is then a failing repeat's)."""
        first = result.violations[0] if result.violations else None
        further = tuple(ReportViolation(v.rule, v.message, ReportEvidence.from_json(v.evidence.to_json()))
                        for v in result.violations[1:])
        rule = result.rule
        outcome = "flaky" if flaky else cast(Literal["passed", "failed", "upstream"], result.outcome)
        return cls(rule.id, rule.level, rule.family, outcome,
                   first.message if first else "",
                   ReportEvidence.from_json(first.evidence.to_json()) if first else ReportEvidence(),
                   result.count, further, rule.statement, rule.spec, rule.fix, excerpt)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RuleOutcome:
        return cls(data["rule"], data["level"], data["family"], data["outcome"], data["message"],
                   ReportEvidence.from_json(data["evidence"]), data["count"],
                   tuple(ReportViolation.from_json(v) for v in data["violations"]), data["statement"], data["spec"],
                   data["fix"], data.get("excerpt"))

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "rule": self.rule, "level": self.level, "family": self.family, "outcome": self.outcome,
            "message": self.message, "evidence": self.evidence.to_json(), "count": self.count,
            "violations": [v.to_json() for v in self.violations], "statement": self.statement, "spec": self.spec,
            "fix": self.fix,
        }
        if self.excerpt is not None:
            out["excerpt"] = self.excerpt
        return out

    @property
    def failed(self) -> bool:
        """Failed in the run, or in some of its repeats (flaky): never a pass."""
        return self.outcome in ("failed", "flaky")

    @property
    def attributed(self) -> bool:
        """A finding attributed to the upstream (docs/spec/contracts.md §7.8): reported, never a failure."""
        return self.outcome == "upstream"

    @property
    def evidences(self) -> tuple[ReportEvidence, ...]:
        """The first violation's evidence, then the further violations'."""
        return (self.evidence, *(v.evidence for v in self.violations))


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """One event of a failed case's front stream, with its arrival time since the request was sent."""

    index: int
    type: str
    t_ms: float
    offset: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimelineEvent:
        return cls(data["index"], data["type"], data["t_ms"], data["offset"])

    def to_json(self) -> dict[str, JSONValue]:
        return {"index": self.index, "type": self.type, "t_ms": self.t_ms, "offset": self.offset}


@dataclass(frozen=True, slots=True)
class Case:
    """One case of a run (a scenario judged by one rule group): its outcome and the rules that applied."""

    id: str
    scenario: str
    group: str
    outcome: CaseOutcome
    message: str = ""
    duration_s: float = 0.0
    results: tuple[RuleOutcome, ...] = ()
    details: Mapping[str, JSONValue] = field(default_factory=dict)
    baseline: BaselineMark | None = None
    repro: str = ""
    front: Dialect = "responses"
    upstream_dialect: Dialect | None = None
    #: None when the report has no timeline for the case (only failed cases with a front stream have one).
    timeline: tuple[TimelineEvent, ...] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Case:
        timeline = data.get("timeline")
        return cls(
            id=data["id"], scenario=data["scenario"], group=data["group"], outcome=data["outcome"],
            message=data["message"], duration_s=data["duration_s"],
            results=tuple(RuleOutcome.from_json(r) for r in data["results"]), details=dict(data["details"]),
            baseline=data["baseline"], repro=data["repro"], front=data["front"],
            upstream_dialect=data["upstream_dialect"],
            timeline=None if timeline is None else tuple(TimelineEvent.from_json(e) for e in timeline),
        )

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "id": self.id, "scenario": self.scenario, "group": self.group, "front": self.front,
            "upstream_dialect": self.upstream_dialect, "outcome": self.outcome, "message": self.message,
            "duration_s": self.duration_s, "results": [r.to_json() for r in self.results],
            "details": dict(self.details), "baseline": self.baseline, "repro": self.repro,
        }
        if self.timeline is not None:
            out["timeline"] = [e.to_json() for e in self.timeline]
        return out

    @property
    def failed(self) -> tuple[RuleOutcome, ...]:
        """The rules the case failed."""
        return tuple(r for r in self.results if r.failed)

    @property
    def attributed(self) -> tuple[RuleOutcome, ...]:
        """The findings attributed to the upstream (outcome `upstream`): shown, not failed."""
        return tuple(r for r in self.results if r.attributed)

    def failed_level(self, level: Level) -> bool:
        """Whether a rule of this level failed."""
        return any(r.level == level for r in self.failed)

    @property
    def repeats(self) -> list[Mapping[str, JSONValue]]:
        """With `--repeat N`: each repeat's summary (`repeat`, `outcome`, `failed` rules, `message`, `seconds`) from
        the case's details; [] otherwise."""
        found = self.details.get("repeats")
        return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []

    @property
    def blocking(self) -> bool:
        """Whether this case fails the run (a baseline-covered one is xfailed, not blocking): an error; a failed
        MUST rule; a flaky case with a MUST rule failed in some repeat, or a repeat that could not be judged."""
        if self.outcome == "error":
            return True
        if self.outcome == "flaky":
            return any(r.get("outcome") == "error" for r in self.repeats) or self.failed_level("MUST")
        return self.outcome == "failed" and self.failed_level("MUST")


_COUNTS = ("cases", "passed", "failed", "skipped", "xfailed", "error", "flaky", "must_failed", "should_failed",
           "stale_baseline", "upstream")
#: The counts a report writes only where they are not 0 (readers default them to 0).
_OPTIONAL = ("flaky", "upstream")


@dataclass(frozen=True, slots=True)
class Summary:
    """The counts of a run: cases by outcome, cases with a failed MUST / SHOULD rule (baseline-covered ones
    included), stale baseline entries, and cases with a finding attributed to the upstream (`upstream`: counted
    apart, whatever their outcome, so that a pass on such a finding stays visible)."""

    cases: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    xfailed: int = 0
    error: int = 0
    flaky: int = 0
    must_failed: int = 0
    should_failed: int = 0
    stale_baseline: int = 0
    upstream: int = 0

    @classmethod
    def of(cls, cases: Iterable[Case]) -> Summary:
        """The summary of these cases: the one place it is computed."""
        counts = dict.fromkeys(_COUNTS, 0)
        for case in cases:
            counts["cases"] += 1
            counts[case.outcome] += 1
            counts["must_failed"] += case.failed_level("MUST")
            counts["should_failed"] += case.failed_level("SHOULD")
            counts["stale_baseline"] += case.baseline == "stale"
            counts["upstream"] += bool(case.attributed)
        return cls(**counts)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Summary:
        return cls(**{k: data.get(k, 0) if k in _OPTIONAL else data[k] for k in _COUNTS})  # flaky: since 0.1

    @property
    def judged(self) -> int:
        """Cases whose rules were applied to evidence (passed, failed, xfailed, flaky); an error or a skip judged
        nothing."""
        return self.passed + self.failed + self.xfailed + self.flaky

    def to_json(self) -> dict[str, JSONValue]:
        # `flaky` / `upstream` only where a case was (runs without them read as before; readers default them to 0)
        return {k: getattr(self, k) for k in _COUNTS if k not in _OPTIONAL or getattr(self, k)}


#: Top-level keys the JSON Lines header leaves out: they are known only at the end of a run.
REBUILT = ("duration_s", "complete", "summary", "cases")


@dataclass(frozen=True, slots=True)
class Report:
    """The verdict of one run: metadata, summary counts and its cases (sorted by id)."""

    callproof_version: str
    profile: Profile
    target: Target
    command: tuple[str, ...]
    scenario_set: str
    platform: Platform
    started_at: str
    duration_s: float
    complete: bool
    summary: Summary
    cases: tuple[Case, ...]
    format: int = REPORT_FORMAT
    #: `--shard I/N`: the run judged this slice of its cases (docs/ci.md#shards); None: every case.
    shard: Shard | None = None
    #: Why the run stopped before every case ran (`--max-consecutive-errors`); None: it was not stopped early.
    stopped: str | None = None

    @classmethod
    def new(cls, *, version: str, profile: Profile, target: Target, command: Iterable[str], scenario_set: str,
            started_at: str, duration_s: float, cases: Iterable[Case], complete: bool = True,
            platform: Platform | None = None, shard: Shard | None = None, stopped: str | None = None) -> Report:
        """A run's report: cases sorted by id, the summary computed from them."""
        ordered = tuple(sorted(cases, key=lambda c: c.id))
        return cls(version, profile, target, tuple(command), scenario_set, platform or Platform.current(),
                   started_at, round(duration_s, 3), complete, Summary.of(ordered), ordered, shard=shard,
                   stopped=stopped)

    @classmethod
    def from_json(cls, data: JSONData, *, source: str = "report", validate: bool = True) -> Report:
        """The report this JSON holds. Validated against schemas/report.schema.json (a `ReportError` names `source`
        and the JSON path of the first problem) unless the caller has just validated it (`validate=False`)."""
        if validate:
            validate_report(data, source)
        return cls(
            format=data["format"], callproof_version=data["callproof_version"], profile=data["profile"],
            target=Target.from_json(data["target"]), command=tuple(data["command"]),
            scenario_set=data["scenario_set"], platform=Platform.from_json(data["platform"]),
            started_at=data["started_at"], duration_s=data["duration_s"], complete=data["complete"],
            summary=Summary.from_json(data["summary"]), cases=tuple(Case.from_json(c) for c in data["cases"]),
            shard=Shard.from_json(data["shard"]) if "shard" in data else None, stopped=data.get("stopped"),
        )

    def to_json(self) -> dict[str, JSONValue]:
        shard: dict[str, JSONValue] = {} if self.shard is None else {"shard": self.shard.to_json()}
        return {
            "format": self.format, "callproof_version": self.callproof_version, "profile": self.profile,
            "target": self.target.to_json(), "command": list(self.command), "scenario_set": self.scenario_set,
            "platform": self.platform.to_json(), "started_at": self.started_at, **shard, "duration_s": self.duration_s,
            "complete": self.complete, **({} if self.stopped is None else {"stopped": self.stopped}),
            "summary": self.summary.to_json(), "cases": [c.to_json() for c in self.cases],
        }

    def nothing_judged(self) -> str | None:
        """Why this run judged no case (every case an error or skipped), in one line; None when one was judged."""
        return nothing_judged(self.cases)

    def header_json(self) -> dict[str, JSONValue]:
        """What the JSON Lines header holds: every top-level key but those known only at the end of the run."""
        return {k: v for k, v in self.to_json().items() if k not in REBUILT}


def nothing_judged(cases: Iterable[Case]) -> str | None:
    """Why no case of these was judged, in one line (counts, then the first error or skip's reason); None when a
    case was judged, or there is no case at all (which callers report on their own)."""
    cases = tuple(cases)
    summary = Summary.of(cases)
    if summary.judged or not cases:
        return None
    counts = [f"{summary.error} error{'' if summary.error == 1 else 's'}"] if summary.error else []
    counts += [f"{summary.skipped} skipped"] if summary.skipped else []
    first = next((c for c in sorted(cases, key=lambda c: (c.outcome != "error", c.id)) if c.message), None)
    why = f"; {first.id}: {first.message.splitlines()[0]}" if first is not None else ""
    return f"{summary.cases} case{'' if summary.cases == 1 else 's'}: {', '.join(counts)}{why}"
