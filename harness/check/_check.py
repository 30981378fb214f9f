"""Check one captured stream or body against the rule catalogue.

The pipeline, one step per concern: bytes -> SSE events (`_sse`) -> framing rules -> JSON decode ->
schema validation dispatched on the event type -> the front's state machine (`_responses`, `_chat`,
`_anthropic`) -> one `RuleResult` per applicable rule. Everything is incremental: a `StreamChecker` can be
fed bytes as they arrive off the wire, and memory stays bounded by the accumulated arguments and text.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.catalogue import Evidence, Profile, Rule, RuleResult, rules_for
from callproof.harness.dialects import DIALECTS
from callproof.harness.transports import DEFAULT_TRANSPORT, own_prefixes
from callproof.harness.transports import transport as transport_spec

from ._anthropic import BODY_RULES as _ANT_BODY_RULES
from ._anthropic import AnthropicChecker
from ._chat import BODY_RULES as _CHAT_BODY_RULES
from ._chat import ChatChecker
from ._front import EventMeta, FrontChecker, Sink
from ._responses import BODY_RULES as _RSP_BODY_RULES
from ._responses import ResponsesChecker
from ._schemas import FrontSchemas, schema_store
from ._sse import FramingIssue, SSEEvent, SSEParser
from ._unicode import loads_json

__all__ = [
    "CHECKERS", "WEBSOCKET_PREFIX", "CheckReport", "CheckerRow", "InputKind", "StreamChecker", "Transport",
    "check_body", "check_bytes", "check_events", "report_of", "transport_applies", "transport_rules",
]

InputKind = Literal["sse", "json", "events", "websocket"]
#: How the events travelled: a name of the transport table (callproof.harness.transports: `http`, SSE over HTTP,
#: also a JSON body and decoded events; `websocket`, WebSocket messages), or a capture's spelling of one (`sse`).
Transport = str
#: The rules of the Responses WebSocket mode itself (docs/spec/websocket.md §7.9): judged on WebSocket transcripts
#: only, never listed (not even not-applicable) in an SSE or body report.
WEBSOCKET_PREFIX = "RSP-WS-"

_ISSUE_RULES: Mapping[str, str] = {
    "invalid-utf8": "SSE-001",
    "trailing-event": "SSE-002",
    "empty-data-block": "SSE-005",
    "oversize-event": "SSE-006",
}
#: An event without an `event:` line: one rule per level, the profile picks (docs/spec/sse.md §5.5).
_UNNAMED_RULES = ("RSP-FRAME-004", "RSP-FRAME-005", "ANT-FRAME-002")
_DONE = "[DONE]"
_FEED = 64 * 1024


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The verdict on one stream or body: one result per rule of the front and profile."""

    front: Dialect
    profile: Profile
    kind: InputKind
    events: int
    bytes: int
    results: tuple[RuleResult, ...]

    @property
    def failed(self) -> tuple[RuleResult, ...]:
        return tuple(r for r in self.results if r.outcome == "failed")

    @property
    def failed_rules(self) -> tuple[str, ...]:
        return tuple(r.rule.id for r in self.failed)

    @property
    def must_failed(self) -> int:
        return sum(1 for r in self.failed if r.rule.level == "MUST")

    @property
    def conformant(self) -> bool:
        """No MUST rule failed (SHOULD and INFO failures are reported but do not fail)."""
        return self.must_failed == 0

    def to_json(self) -> dict[str, JSONValue]:
        counts = {"passed": 0, "failed": 0, "not-applicable": 0}
        for result in self.results:
            counts[result.outcome] += 1
        return {
            "front": self.front,
            "profile": self.profile,
            "input": self.kind,
            "events": self.events,
            "bytes": self.bytes,
            "conformant": self.conformant,
            "summary": {
                "rules": len(self.results),
                "passed": counts["passed"],
                "failed": counts["failed"],
                "not_applicable": counts["not-applicable"],
                "must_failed": self.must_failed,
                "should_failed": sum(1 for r in self.failed if r.rule.level == "SHOULD"),
            },
            "results": [r.to_json() for r in self.results],
        }


def transport_applies(rule: Rule, name: Transport) -> bool:
    """Whether `rule` is judged on events that travelled over `transport` (its row of the transport table): a
    transport's own rules (RSP-WS-*) over it only; the framing rules of SSE (SSE-*, RSP-FRAME-*: the `event:` line,
    [DONE], the blank line) where the transport's real bytes are SSE."""
    return transport_spec(name).judges(rule.id, rule.family, own_prefixes())


@cache
def transport_rules(front: Dialect, profile: Profile, transport: Transport = DEFAULT_TRANSPORT) -> tuple[Rule, ...]:
    """The stream rules of `front` and `profile` judged on events that travelled over `transport`."""
    return tuple(rule for rule in rules_for(front, profile) if transport_applies(rule, transport))


@cache
def _rule_ids(front: Dialect, profile: Profile, transport: Transport = DEFAULT_TRANSPORT) -> frozenset[str]:
    return frozenset(rule.id for rule in transport_rules(front, profile, transport))


@dataclass(frozen=True, slots=True)
class CheckerRow:
    """How `check` reads one dialect: its stream checker, the rules a non-stream body can fail, and the schema rule
    a body that is not JSON fails."""

    checker: Callable[[Sink, FrontSchemas, Profile], FrontChecker]
    body_rules: frozenset[str]
    body_schema_rule: str


#: The stream checkers, one per row of the dialect table (tests/harness/dialects/test_tables.py binds them).
CHECKERS: dict[str, CheckerRow] = {
    "responses": CheckerRow(ResponsesChecker, _RSP_BODY_RULES, "RSP-SCHEMA-003"),
    "chat": CheckerRow(ChatChecker, _CHAT_BODY_RULES, "CHAT-SCHEMA-002"),
    "anthropic": CheckerRow(AnthropicChecker, _ANT_BODY_RULES, "ANT-SCHEMA-003"),
}


def _front_checker(front: Dialect, profile: Profile, sink: Sink) -> FrontChecker:
    return CHECKERS[front].checker(sink, schema_store().front(front, profile), profile)


@cache
def _unfailed(
    front: Dialect, profile: Profile, transport: Transport = DEFAULT_TRANSPORT,
) -> tuple[tuple[Rule, RuleResult, RuleResult], ...]:
    """(rule, its `passed` result, its `not-applicable` result) for every rule of the front, profile and transport:
    results are immutable, so a stream's report shares them instead of building one per rule per stream."""
    return tuple((rule, RuleResult(rule, "passed"), RuleResult(rule, "not-applicable"))
                 for rule in transport_rules(front, profile, transport))


@cache
def _all_passed(front: Dialect, profile: Profile, transport: Transport = DEFAULT_TRANSPORT) -> tuple[RuleResult, ...]:
    return tuple(passed for _, passed, _ in _unfailed(front, profile, transport))


def _report(
    front: Dialect, profile: Profile, kind: InputKind, sink: Sink, events: int, size: int,
    evaluated: Iterable[str] | None = None,
) -> CheckReport:
    counts, kept = sink.counts, sink.kept
    transport: Transport = "websocket" if kind == "websocket" else DEFAULT_TRANSPORT
    if evaluated is None and not counts and not kept:  # the usual verdict: every rule passed
        return CheckReport(front, profile, kind, events, size, _all_passed(front, profile, transport))
    scope = None if evaluated is None else frozenset(evaluated)
    results = []
    for rule, passed, not_applicable in _unfailed(front, profile, transport):
        if scope is not None and rule.id not in scope:
            results.append(not_applicable)
            continue
        count = counts.get(rule.id, 0)
        violations = kept.get(rule.id)
        if count or violations:
            results.append(RuleResult(rule, "failed" if count else "passed", tuple(violations or ()), count))
        else:
            results.append(passed)
    return CheckReport(front, profile, kind, events, size, tuple(results))


def report_of(
    front: Dialect, profile: Profile, kind: InputKind, sink: Sink, events: int, size: int,
) -> CheckReport:
    """The report of a checker built outside this module (the WebSocket transcript checker) from its sink."""
    return _report(front, profile, kind, sink, events, size)


class StreamChecker:
    """Feed an SSE stream in any chunks as it arrives; `close()` gives the report."""

    def __init__(
        self,
        front: Dialect = "responses",
        profile: Profile = "openai",
        *,
        clock: Callable[[], float] = time.monotonic,
        max_event_bytes: int = 32 * 1024 * 1024,
    ) -> None:
        self.front: Dialect = front
        self.profile: Profile = profile
        self._sink = Sink(_rule_ids(front, profile))
        self._checker = _front_checker(front, profile, self._sink)
        self._parser = SSEParser(clock=clock, max_event_bytes=max_event_bytes)
        self._issues_seen = 0
        self._count = 0
        self._last: EventMeta | None = None
        self._report: CheckReport | None = None
        self._check_type = DIALECTS[front].typed_events
        self._id_seen = False
        rules = _rule_ids(front, profile)
        #: The rule a data-less `event:` block fails: SSE-007 (MUST) where the OpenAI SDK is the reference.
        self._empty_rule = "SSE-007" if "SSE-007" in rules else "SSE-005"
        #: The rule an event without an `event:` line fails on this front and profile, if any.
        self._unnamed_rule = next((r for r in _UNNAMED_RULES if r in rules), None)

    def feed(self, chunk: bytes, arrival: float | None = None) -> None:
        for event in self._parser.feed(chunk, arrival):
            self._event(event)
        self._drain_issues()

    def close(self, aborted: bool = False) -> CheckReport:
        """The report, once the stream ended; `aborted`: its body did not end cleanly (the connection closed
        before its end), an error ending every official SDK raises on: the rules about how a stream ends (its
        terminal event, `[DONE]`, the blank line after its last event) and the half call it left open do not
        apply (docs/spec/verdicts.md §7)."""
        if self._report is None:
            self._parser.close()
            self._drain_issues(aborted)
            for kind, count in self._parser.dropped.items():
                self._sink.add_uncounted(self._issue_rule(kind), count)
            self._checker.finish(self._last, aborted)
            self._report = _report(
                self.front, self.profile, "sse", self._sink, self._count, self._parser.bytes_seen
            )
        return self._report

    def _drain_issues(self, aborted: bool = False) -> None:
        issues: list[FramingIssue] = self._parser.issues
        for issue in issues[self._issues_seen :]:
            if aborted and issue.kind == "trailing-event":  # the event the abort cut, not one left unterminated
                continue
            self._sink.add(self._issue_rule(issue.kind), issue.detail, Evidence(offset=issue.offset))
        self._issues_seen = len(issues)

    def _unnamed(self, meta: EventMeta) -> None:
        """An event without an `event:` line; the first is reported with its evidence, the rest counted."""
        rule = self._unnamed_rule
        if rule is None or meta.sse_type is not None:
            return
        if self._sink.counts.get(rule):
            self._sink.add_uncounted(rule, 1)
            return
        self._sink.add(rule, f"event #{meta.index} has no `event:` line (later events without one are counted, "
                       f"not listed); write `event: {meta.type or '<type>'}` before its data", meta.evidence())

    def _issue_rule(self, kind: str) -> str:
        rule = _ISSUE_RULES[kind]
        return self._empty_rule if rule == "SSE-005" else rule

    def _event(self, event: SSEEvent) -> None:
        index = self._count
        self._count += 1
        if event.id is not None and not self._id_seen:
            self._id_seen = True
            self._sink.add("RSP-FRAME-003", f"the event carries an SSE id ({event.id!r})",
                           Evidence(index, None, None, None, event.id, event.offset))
        sse_type = event.type if event.explicit_type else None
        meta = EventMeta(index, sse_type, event.offset, sse_type)
        if event.data == _DONE:
            meta.type = _DONE
            self._checker.done_sentinel(meta)
            self._last = meta
            return
        try:
            payload: JSONValue = loads_json(event.data)
        except ValueError as exc:
            self._sink.add(
                "SSE-003",
                f"data is not JSON: {exc.args[0] if exc.args else exc}; data starts {event.data[:80]!r}",
                meta.evidence("$"),
            )
            self._unnamed(meta)
            self._last = meta
            return
        if isinstance(payload, dict):
            kind = payload.get("type") if self._check_type else payload.get("object")
            if isinstance(kind, str):
                meta.type = kind
            if self._check_type and sse_type is not None and sse_type != kind:
                self._sink.add(
                    "SSE-004",
                    f"SSE event name {sse_type!r} differs from the JSON type {kind!r}",
                    meta.evidence("$.type", expected=sse_type, actual=kind if isinstance(kind, str) else None),
                )
        if sse_type is None:
            self._unnamed(meta)
        self._checker.event(meta, payload)
        self._last = meta


def check_bytes(data: bytes, *, front: Dialect = "responses", profile: Profile = "openai") -> CheckReport:
    """Check a whole captured SSE stream."""
    checker = StreamChecker(front, profile)
    for start in range(0, len(data), _FEED):  # slices keep few events alive at once (cheaper for the GC)
        checker.feed(data[start : start + _FEED])
    return checker.close()


def check_events(
    events: Iterable[Mapping[str, Any]], *, front: Dialect = "responses", profile: Profile = "openai"
) -> CheckReport:
    """Check already-decoded events (framing rules do not apply: no bytes were seen)."""
    sink = Sink(_rule_ids(front, profile))
    checker = _front_checker(front, profile, sink)
    meta: EventMeta | None = None
    count = 0
    key = DIALECTS[front].event_type_key
    for index, payload in enumerate(events):
        kind = payload.get(key) if isinstance(payload, Mapping) else None
        meta = EventMeta(index, kind if isinstance(kind, str) else None, None, None)
        checker.event(meta, dict(payload) if isinstance(payload, Mapping) else payload)
        count += 1
    checker.finish(meta)
    evaluated = [r.id for r in transport_rules(front, profile) if r.family != "framing"]
    return _report(front, profile, "events", sink, count, 0, evaluated)


def check_body(data: bytes, *, front: Dialect = "responses", profile: Profile = "openai") -> CheckReport:
    """Check a non-stream JSON response body (a Response, chat.completion, Message, or an error body)."""
    sink = Sink(_rule_ids(front, profile))
    schema_rule = CHECKERS[front].body_schema_rule
    meta = EventMeta(0, None, 0, None)
    try:
        payload: JSONValue = loads_json(data)
    except ValueError as exc:
        reason = exc.args[0] if exc.args else str(exc)
        sink.add(schema_rule, f"the body is not valid JSON: {reason}", meta.evidence("$"))
    else:
        _front_checker(front, profile, sink).body(meta, payload)
    return _report(front, profile, "json", sink, 0, len(data), CHECKERS[front].body_rules)
