"""What every front checker shares: the violation sink, defensive field access and schema dispatch."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Protocol

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence, Violation

from ._schemas import _Validator

__all__ = [
    "EventMeta",
    "FrontChecker",
    "Sink",
    "as_int",
    "as_str",
    "parse_json_object",
    "short",
    "shown",
    "validate",
]

#: The most violations kept per rule; the rest are counted, not stored (bounded memory on garbage input).
KEEP_PER_RULE = 20


class Sink:
    """Collects violations of the rules that apply, keeping the first few of each rule."""

    __slots__ = ("_applicable", "counts", "kept")

    def __init__(self, applicable: Iterable[str]) -> None:
        self._applicable = frozenset(applicable)
        self.kept: dict[str, list[Violation]] = {}
        self.counts: dict[str, int] = {}

    def add(self, rule: str, message: str, evidence: Evidence, loaded: bool = False) -> None:
        if rule not in self._applicable:
            return
        count = self.counts.get(rule, 0)
        self.counts[rule] = count + 1
        if count < KEEP_PER_RULE:
            self.kept.setdefault(rule, []).append(Violation(rule, message, evidence, loaded))


    def add_uncounted(self, rule: str, count: int) -> None:
        """Count `count` more violations of `rule` whose evidence was not kept."""
        if rule in self._applicable and count:
            self.counts[rule] = self.counts.get(rule, 0) + count


class EventMeta:
    """Where one event came from: its index in the stream, its SSE fields and its byte offset."""

    __slots__ = ("index", "offset", "sse_type", "type")

    def __init__(self, index: int, type: str | None, offset: int | None, sse_type: str | None) -> None:
        self.index = index
        self.type = type
        self.offset = offset
        self.sse_type = sse_type

    def evidence(self, path: str | None = None, expected: JSONValue = None, actual: JSONValue = None) -> Evidence:
        return Evidence(self.index, self.type, path, expected, actual, self.offset)


class FrontChecker(Protocol):
    """The per-front state machine fed one decoded event at a time."""

    def event(self, meta: EventMeta, payload: JSONValue) -> None: ...

    def done_sentinel(self, meta: EventMeta) -> None: ...

    def finish(self, last: EventMeta | None, aborted: bool = False) -> None:
        """The end of the stream after `last`; `aborted`: the body did not end cleanly (the connection closed
        before its end), which every official SDK raises on: an error ending, not a stream that just ends
        (docs/spec/verdicts.md §7)."""

    def body(self, meta: EventMeta, payload: JSONValue) -> None:
        """Check a non-stream response body instead of a stream."""


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def short(value: object, limit: int = 120) -> str:
    """A JSON rendering of `value` cut to `limit` characters, for messages."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: object) -> str:
    """A value that may be missing, as a message names it: `null` for None (never Python's `None`), `true`/`false`
    for booleans, else its repr ('call_1', 3)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return repr(value)


def parse_json_object(text: str) -> str | None:
    """None when `text` is a JSON object; otherwise why not, in a few words."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        return f"not valid JSON ({exc.args[0] if exc.args else exc})"
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__.replace('NoneType', 'null')}, not an object"
    return None


def validate(
    sink: Sink,
    meta: EventMeta,
    validator: _Validator,
    payload: object,
    default_rule: str,
    rule_for_path: Callable[[str], str | None],
) -> bool:
    """Validate `payload`; report each error under the most specific rule for its path. True when valid."""
    if validator.is_valid(payload):
        return True
    for err in validator.errors(payload):
        rule = rule_for_path(err.path) or default_rule
        sink.add(rule, f"{err.message} (schema {err.schema})", meta.evidence(err.path))
    return False

