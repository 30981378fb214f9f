"""What the renderers share: the typed report they read (`as_report`), escaping for Markdown and HTML, rule links
and chips, plurals, and the evidence of a violation in words.

Everything that comes from the implementation under test (messages, excerpts, values, commands) goes through an
escape here: HTML-significant characters become entities, Markdown punctuation is backslash-escaped, table pipes
are `\\|`, and code spans and fences are longer than any backtick run they hold.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import PackageNotFoundError, metadata
from typing import Any, TypeAlias

from callproof.harness import JSONValue
from callproof.harness.report_model import ABSENT, Case, Report, ReportEvidence, RuleOutcome

__all__ = [
    "DOCS_URL",
    "FAMILIES",
    "LEVELS",
    "ReportLike",
    "as_report",
    "code",
    "e",
    "escape",
    "evidence_text",
    "fails_run",
    "fence",
    "json_text",
    "level_class",
    "must_failures",
    "one_line",
    "plural",
    "printable",
    "rule_chips",
    "rule_link",
    "skip_reasons",
    "shorten",
    "slug",
]



def _project_url(label: str) -> str:
    """The `label` entry of `[project.urls]` in pyproject.toml, as the installed callproof's metadata carries it;
    "" when there is none."""
    try:
        entries: list[str] = metadata("callproof").get_all("Project-URL") or []
    except PackageNotFoundError:
        return ""
    for entry in entries:
        name, _, url = entry.partition(",")
        if name.strip().lower() == label.lower():
            return url.strip()
    return ""


#: Where rule ids link to, from one place: the `Rules` entry of `[project.urls]` (the published docs/rules.md), the
#: rule's section at `{DOCS_URL}#{rule id lower-case}`. Empty (no such entry): rule ids are plain code, no link.
DOCS_URL = _project_url("Rules")
#: Rule families in catalogue order (schemas/report.schema.json).
FAMILIES = ("framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected", "gateway", "client")
LEVELS = ("MUST", "SHOULD", "INFO")

#: What a renderer accepts: the typed report, or its JSON as `load_report` gives it.
ReportLike: TypeAlias = Report | Mapping[str, Any]


def as_report(report: ReportLike) -> Report:
    """The typed report: given as it is, or built from its JSON. The JSON is trusted, not validated again: it was
    validated where it was read (`load_report`, `read_report`), and a renderer must render any text it holds."""
    return report if isinstance(report, Report) else Report.from_json(report, validate=False)


# -- reading the report ---------------------------------------------------------------------------------------


def fails_run(case: Case) -> bool:
    """A failed or flaky case that fails the run: a MUST rule failed (in some repeat, for a flaky one), a repeat
    could not be judged, or, defensively, no failed rule says why."""
    if case.outcome == "flaky":
        return case.blocking
    return case.outcome == "failed" and (not case.failed or case.failed_level("MUST"))


def must_failures(cases: Iterable[Case]) -> str | None:
    """'3 MUST rules failed in 9 cases': distinct failed MUST rules, and the cases that fail the run; None when no
    case fails it."""
    failing = [c for c in cases if fails_run(c)]
    if not failing:
        return None
    rules = {r.rule for c in failing for r in c.failed if r.level == "MUST"}
    return f"{plural(len(rules), 'MUST rule')} failed in {plural(len(failing), 'case')}"


def evidence_text(evidence: ReportEvidence, *, kind: Callable[[str], str], path: Callable[[str], str],
                  value: Callable[[JSONValue], str], sep: str, say_absent: bool) -> str:
    """The evidence in words: `event 4 (type) · byte 812 · at $.path · expected x · actual y` (led by `turn 2` for
    an event of another turn of a WebSocket socket than the case's own answer), each part formatted by the renderer
    (`kind` the event type, `path` the JSON path, `value` the expected and actual values)."""
    parts = [f"turn {evidence.turn}"] if evidence.turn is not None else []
    if evidence.event_index is not None:
        parts.append(f"event {evidence.event_index}"
                     + (f" ({kind(evidence.event_type)})" if evidence.event_type is not None else ""))
    if evidence.offset is not None:
        parts.append(f"byte {evidence.offset}")
    if evidence.path is not None:
        parts.append(f"at {path(evidence.path)}")
    if evidence.expected is not ABSENT:
        parts.append(f"expected {value(evidence.expected)}")
    if evidence.actual is not ABSENT:
        parts.append(f"actual {value(evidence.actual)}")
    elif evidence.expected is not ABSENT and say_absent:
        parts.append("actual: absent")
    return sep.join(parts)


# -- text and Markdown -------------------------------------------------------------------------------------------


def skip_reasons(cases: Iterable[Case]) -> list[tuple[str, int]]:
    """Why cases were skipped: each reason (a skipped case's first message line) and how many cases it skipped,
    the most frequent first (ties by reason)."""
    counts: dict[str, int] = {}
    for case in cases:
        if case.outcome == "skipped":
            reason = case.message.splitlines()[0] if case.message.strip() else "no reason given"
            counts[reason] = counts.get(reason, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def one_line(text: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def escape(text: str) -> str:
    """User-controlled text as inline Markdown that renders literally, also inside a table cell."""
    text = html.escape(one_line(text), quote=False)
    return re.sub(r"([\\`*_\[\]|~])", r"\\\1", text)


def code(text: str, *, in_table: bool = False) -> str:
    """An inline Markdown code span that shows `text` literally, whatever backticks it holds."""
    text = one_line(text) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if in_table:
        text = text.replace("|", "\\|")  # GFM splits cells on pipes even inside code spans
    return f"{ticks}{pad}{text}{pad}{ticks}"


def printable(text: str) -> str:
    """Control characters (but newlines and tabs) made visible, so a raw stream excerpt shows what was sent."""
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def fence(text: str, info: str = "") -> str:
    """A fenced Markdown code block holding `text` verbatim: the fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def rule_link(rule: str, docs_url: str) -> str:
    """A rule id as a Markdown link to its section of docs/rules.md; as code alone when `docs_url` is empty."""
    return f"[`{rule}`]({docs_url}#{rule.lower()})" if docs_url else f"`{rule}`"


def json_text(value: JSONValue) -> str:
    """A JSON value as a person reads it: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# -- HTML ----------------------------------------------------------------------------------------------------------


def e(value: object) -> str:
    """Text or an attribute value, HTML-escaped."""
    return html.escape(str(value), quote=True)


def slug(text: str) -> str:
    """Text as a piece of an HTML id."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:120] or "x"


def level_class(level: str) -> str:
    return f"l-{level}" if level in LEVELS else "l-INFO"


def rule_chips(results: Iterable[RuleOutcome]) -> str:
    """Each rule as an HTML chip coloured by its level."""
    return "".join(f'<span class="rule {level_class(r.level)}" title="{e(r.level)} {e(r.family)}">{e(r.rule)}</span>'
                   for r in results)
