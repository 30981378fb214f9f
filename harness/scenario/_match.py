"""Request matching: a scenario's `match` block (schemas/scenario.schema.json#/$defs/match), compiled once at load,
and the facts of a request it is held against (the last user text in any dialect, the model, the tool names, the
dialect, the body for JSON-path predicates). docs/spec/contracts.md §3: the mock tries `match` after the explicit
selectors (header, marker, model) and before the default."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness._types import Dialect, JSONData
from callproof.harness.dialects import DIALECTS

from ._markers import strip_markers

__all__ = [
    "JsonPredicate",
    "Match",
    "MatchError",
    "RequestFacts",
    "TextMatch",
    "compile_match",
    "last_user_text",
    "parse_path",
    "request_facts",
    "strings_in",
    "tool_names",
]

_STEP = re.compile(r"""\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]""")
_MISSING = object()


class MatchError(ValueError):
    """A match block that cannot compile; `where` is the JSON path below the match block (e.g. `user_text.regex`)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass(frozen=True, slots=True)
class TextMatch:
    """How the last user text must look: equal to, containing, or searched by (regex) `value`."""

    op: Literal["equals", "contains", "regex"]
    value: str
    pattern: re.Pattern[str] | None = None

    def holds(self, text: str) -> bool:
        if self.op == "equals":
            return text == self.value
        if self.op == "contains":
            return self.value in text
        assert self.pattern is not None
        return self.pattern.search(text) is not None


@dataclass(frozen=True, slots=True)
class JsonPredicate:
    """`path` (compiled to `steps`: keys and indexes) equals `value`, or exists (`op` exists, `value` a bool)."""

    path: str
    steps: tuple[str | int, ...]
    op: Literal["equals", "exists"]
    value: JSONData

    def holds(self, body: JSONData) -> bool:
        found = _lookup(body, self.steps)
        if self.op == "exists":
            return (found is not _MISSING) is bool(self.value)
        if found is _MISSING:
            return False
        # Compared as JSON values: 0 equals 0.0, but true is not 1.
        if isinstance(found, bool) or isinstance(self.value, bool):
            return found is self.value
        return bool(found == self.value)


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """What a match reads from one request."""

    dialect: Dialect
    body: Mapping[str, Any]
    user_text: str
    model: str | None
    tools: frozenset[str]


@dataclass(frozen=True, slots=True)
class Match:
    """A compiled match block: every given key must hold."""

    user_text: TextMatch | None = None
    model: str | None = None
    tools: frozenset[str] | None = None
    dialect: Dialect | None = None
    json: tuple[JsonPredicate, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys it checks, e.g. ("user_text.contains", "model", "json $.stream")."""
        out: list[str] = []
        if self.user_text is not None:
            out.append(f"user_text.{self.user_text.op}")
        out += [k for k in ("model", "tools", "dialect") if getattr(self, k) is not None]
        out += [f"json {p.path}" for p in self.json]
        return tuple(out)

    def failures(self, facts: RequestFacts) -> tuple[str, ...]:
        """The keys that do not hold for `facts` (empty: the match holds)."""
        failed: list[str] = []
        if self.user_text is not None and not self.user_text.holds(facts.user_text):
            failed.append(f"user_text.{self.user_text.op}")
        if self.model is not None and facts.model != self.model:
            failed.append("model")
        if self.tools is not None and facts.tools != self.tools:
            failed.append("tools")
        if self.dialect is not None and facts.dialect != self.dialect:
            failed.append("dialect")
        failed += [f"json {p.path}" for p in self.json if not p.holds(facts.body)]
        return tuple(failed)

    def holds(self, facts: RequestFacts) -> bool:
        return not self.failures(facts)


def _lookup(value: JSONData, steps: Sequence[str | int]) -> JSONData:
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                return _MISSING
            value = value[step]
        else:
            if not isinstance(value, Mapping) or step not in value:
                return _MISSING
            value = value[step]
    return value


def parse_path(path: str) -> tuple[str | int, ...]:
    """The steps of a JSONPath in the subset `$`, `.key`, `[n]`, `['key']`; ValueError names what is wrong."""
    if not path.startswith("$"):
        raise ValueError(f"path {path!r} must start with $")
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        found = _STEP.match(path, at)
        if found is None:
            raise ValueError(f"bad path {path!r} at {at}: use $, .key, [n] or ['key']")
        key, index, quoted, double = found.groups()
        steps.append(int(index) if index is not None else key if key is not None else
                     quoted if quoted is not None else double)
        at = found.end()
    return tuple(steps)


def compile_match(raw: Mapping[str, Any]) -> Match:
    """The compiled block; MatchError (with the JSON path below the block) for a bad regex or path."""
    text: TextMatch | None = None
    if "user_text" in raw:
        ((op, value),) = raw["user_text"].items()
        pattern = None
        if op == "regex":
            try:
                pattern = re.compile(value)
            except re.error as exc:
                raise MatchError("user_text.regex", f"bad regex ({exc})") from None
        text = TextMatch(op, value, pattern)
    predicates: list[JsonPredicate] = []
    for i, item in enumerate(raw.get("json", ())):
        try:
            steps = parse_path(item["path"])
        except ValueError as exc:
            raise MatchError(f"json[{i}].path", str(exc)) from None
        kind: Literal["equals", "exists"] = "exists" if "exists" in item else "equals"
        predicates.append(JsonPredicate(item["path"], steps, kind, item[kind]))
    tools = raw.get("tools")
    return Match(user_text=text, model=raw.get("model"), tools=None if tools is None else frozenset(tools),
                 dialect=raw.get("dialect"), json=tuple(predicates))


# -- the facts of a request --


def _text_of(content: JSONData) -> str | None:
    """The text of a message's content: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, Mapping)
                 and p.get("type") in ("text", "input_text") and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def last_user_text(dialect: Dialect, body: Mapping[str, Any]) -> str:
    """The text of the request's last user message that has text, markers stripped ("" when there is none)."""
    messages = body.get(DIALECTS[dialect].messages_key)
    if isinstance(messages, str):
        return strip_markers(messages)
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        if message.get("type", "message") != "message":
            continue
        text = _text_of(message.get("content"))
        if text is not None:
            return strip_markers(text)
    return ""


def tool_names(body: Mapping[str, Any]) -> frozenset[str]:
    """The names of the request's tools, in any dialect (Responses and Anthropic `name`, Chat `function.name`)."""
    names: set[str] = set()
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else ():
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        if isinstance(name, str):
            names.add(name)
    return frozenset(names)


def request_facts(dialect: Dialect, body: Mapping[str, Any]) -> RequestFacts:
    model = body.get("model")
    return RequestFacts(dialect=dialect, body=body, user_text=last_user_text(dialect, body),
                        model=model if isinstance(model, str) else None, tools=tool_names(body))


def strings_in(value: JSONData) -> Iterator[str]:
    """Every string in a JSON value, at any depth (object values and list items): where a request's text may be,
    whatever its dialect's shape."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
