"""The Markdown report, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the verdict, a conformance score per
rule family, a table of the failed rules (each linked to docs/rules.md), then one collapsed section per failed
case with its evidence, stream excerpt and repro command.

GitHub rejects comments over 65,536 characters, so the output stays under `limit` (default 60,000): when it would
not, the per-case sections go first (a note says how many were left out and where the full report is), then the
messages in the rules table get shorter. The rules table always names every failed rule.

Everything that comes from the implementation under test (messages, excerpts, values, commands) is escaped:
HTML-significant characters become entities, Markdown punctuation is backslash-escaped, table pipes are `\\|`,
and code spans and fences are longer than any backtick run they hold.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DOCS_URL", "FAMILIES", "render_markdown"]

#: Where rule ids link to: `{DOCS_URL}#{rule id lower-case}` is the rule's section in docs/rules.md.
DOCS_URL = "https://github.com/callproof/callproof/blob/main/docs/rules.md"
#: Rule families in catalogue order (schemas/report.schema.json).
FAMILIES = ("framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected", "gateway", "client")
_LEVELS = ("MUST", "SHOULD", "INFO")
#: Widths the rules table's messages are cut to, widest first, when the report must shrink to fit.
_WIDTHS = (160, 80, 40, 0)
_EXCERPT_CHARS = 1500
_VALUE_CHARS = 200
_MESSAGE_CHARS = 600
_COMMAND_CHARS = 300


# -- escaping (also used by _diff) ----------------------------------------------------------------------------


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _one_line(text: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def _escape(text: str) -> str:
    """User-controlled text as inline Markdown that renders literally, also inside a table cell."""
    text = html.escape(_one_line(text), quote=False)
    return re.sub(r"([\\`*_\[\]|~])", r"\\\1", text)


def _code(text: str, *, in_table: bool = False) -> str:
    """An inline code span that shows `text` literally, whatever backticks it holds."""
    text = _one_line(text) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if in_table:
        text = text.replace("|", "\\|")  # GFM splits cells on pipes even inside code spans
    return f"{fence}{pad}{text}{pad}{fence}"


def _printable(text: str) -> str:
    """Control characters (but newlines and tabs) made visible, so a raw stream excerpt shows what was sent."""
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def _fence(text: str, info: str = "") -> str:
    """A fenced code block holding `text` verbatim: the fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _rule_link(rule: str, docs_url: str) -> str:
    return f"[`{rule}`]({docs_url}#{rule.lower()})"


def _percent(part: int, whole: int) -> str:
    """One decimal, never rounded up to 100% when something failed."""
    if whole == 0:
        return "n/a"
    if part == whole:
        return "100%"
    return f"{min(100 * part / whole, 99.9):.1f}%"


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


# -- reading the report -------------------------------------------------------------------------------------------


def _failed(case: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in case.get("results", []) if r.get("outcome") == "failed"]


def _fails_must(case: Mapping[str, Any]) -> bool:
    """A failed case that fails the run: a MUST rule failed (or, defensively, no failed rule says why)."""
    failed = _failed(case)
    return case["outcome"] == "failed" and (not failed or any(r["level"] == "MUST" for r in failed))


@dataclass(frozen=True, slots=True)
class _RuleRow:
    rule: str
    level: str
    family: str
    cases: int  # failing cases not covered by the baseline
    known: int  # baseline-covered (xfailed) cases
    message: str  # the first failing case's message


def _rule_rows(cases: Sequence[Mapping[str, Any]]) -> list[_RuleRow]:
    seen: dict[str, dict[str, Any]] = {}
    for case in cases:
        for result in _failed(case):
            row = seen.setdefault(result["rule"], {"level": result["level"], "family": result["family"],
                                                   "cases": 0, "known": 0, "message": result["message"]})
            row["known" if case["outcome"] == "xfailed" else "cases"] += 1
    rows = [_RuleRow(rule, **fields) for rule, fields in seen.items()]
    return sorted(rows, key=lambda r: (_LEVELS.index(r.level) if r.level in _LEVELS else 9, r.rule))


# -- the parts ----------------------------------------------------------------------------------------------------


def _verdict(report: Mapping[str, Any]) -> list[str]:
    cases: Sequence[Mapping[str, Any]] = report["cases"]
    summary: Mapping[str, int] = report["summary"]
    must = sum(_fails_must(c) for c in cases)
    errors = summary["error"]
    complete = report["complete"]
    problems = [_plural(must, "MUST failure")] if must else []
    problems += [_plural(errors, "error")] if errors else []
    if not cases:
        title = "⚠️ callproof: no cases ran"
    elif problems:
        title = f"❌ callproof: {', '.join(problems)}"
    elif complete:
        title = "✅ callproof: conformant"
    else:
        title = "⚠️ callproof: no failures so far (incomplete run)"
    lines = [f"## {title}", ""]
    if not complete:
        lines += ["> [!WARNING]",
                  f"> **Incomplete run**: the run was cut off before every case ran; this report covers the "
                  f"{_plural(len(cases), 'case')} that finished.", ""]
    should_only = summary["failed"] - must
    counts = [f"{summary['passed']} passed"]
    counts += [f"{summary['failed']} failed" + (f" ({should_only} SHOULD only)" if should_only else "")]
    counts += [_plural(errors, "error")] if errors else []
    counts += [f"{summary['skipped']} skipped"] if summary["skipped"] else []
    counts += [f"{_plural(summary['xfailed'], 'known failure')} (baseline)"] if summary["xfailed"] else []
    line = f"{_plural(summary['cases'], 'case')}: {', '.join(counts)}."
    if summary["stale_baseline"]:
        line += (f" {_plural(summary['stale_baseline'], 'baseline entry', 'baseline entries')} now "
                 f"{'passes' if summary['stale_baseline'] == 1 else 'pass'}: delete "
                 f"{'it' if summary['stale_baseline'] == 1 else 'them'} from the baseline.")
    if should_only:
        line += " SHOULD failures are reported but do not fail the run."
    return [*lines, line, ""]


def _target(report: Mapping[str, Any]) -> list[str]:
    target: Mapping[str, Any] = report["target"]
    what = next((str(target[k]) for k in ("command", "url", "app", "client") if k in target), "")
    parts = [f"**Target**: {_escape(str(target['kind']))} ({_escape(str(target['how']))})"
             + (f" {_code(_shorten(what, _COMMAND_CHARS))}" if what else "")]
    if target.get("upstream_dialect"):
        parts.append(f"upstream dialect {_escape(str(target['upstream_dialect']))}")
    parts.append(f"**profile** {_escape(str(report['profile']))}")
    parts.append(f"callproof {_escape(str(report['callproof_version']))}")
    parts.append(f"started {_escape(str(report['started_at']))}, {report['duration_s']:g} s")
    return [" · ".join(parts), ""]


def _families(cases: Sequence[Mapping[str, Any]]) -> list[str]:
    applicable: dict[str, int] = {}
    passed: dict[str, int] = {}
    for case in cases:
        for result in case.get("results", []):
            family = str(result["family"])
            applicable[family] = applicable.get(family, 0) + 1
            passed[family] = passed.get(family, 0) + (result["outcome"] == "passed")
    if not applicable:
        return []
    order = [f for f in FAMILIES if f in applicable] + sorted(set(applicable) - set(FAMILIES))
    lines = ["### Conformance by rule family", "", "| family | passed | applicable | score |",
             "|---|---:|---:|---:|"]
    lines += [f"| {_escape(f)} | {passed[f]} | {applicable[f]} | {_percent(passed[f], applicable[f])} |"
              for f in order]
    total, ok = sum(applicable.values()), sum(passed.values())
    lines += [f"| **all** | {ok} | {total} | {_percent(ok, total)} |", ""]
    return lines


def _rules(rows: Sequence[_RuleRow], docs_url: str, width: int) -> list[str]:
    if not rows:
        return []
    known = any(r.known for r in rows)
    head = "| rule | level | family | cases |" + (" known |" if known else "") + (" first message |" if width else "")
    rule = "|---|---|---|---:|" + ("---:|" if known else "") + ("---|" if width else "")
    lines = ["### Failed rules", "", head, rule]
    for r in rows:
        cells = [_rule_link(r.rule, docs_url), _escape(r.level), _escape(r.family), str(r.cases)]
        cells += [str(r.known)] if known else []
        cells += [_escape(_shorten(_one_line(r.message), width))] if width else []
        lines.append(f"| {' | '.join(cells)} |")
    return [*lines, ""]


def _value(value: Any) -> str:
    return _code(_shorten(json.dumps(value, ensure_ascii=False), _VALUE_CHARS))


def _evidence(evidence: Mapping[str, Any]) -> str:
    parts = []
    if "event_index" in evidence:
        kind = f" ({_code(str(evidence['event_type']))})" if "event_type" in evidence else ""
        parts.append(f"event {evidence['event_index']}{kind}")
    if "offset" in evidence:
        parts.append(f"byte {evidence['offset']}")
    if "path" in evidence:
        parts.append(f"at {_code(_shorten(str(evidence['path']), _VALUE_CHARS))}")
    if "expected" in evidence:
        parts.append(f"expected {_value(evidence['expected'])}")
    if "actual" in evidence:
        parts.append(f"actual {_value(evidence['actual'])}")
    elif "expected" in evidence:
        parts.append("actual: absent")
    return " · ".join(parts)


def _details(details: Mapping[str, Any]) -> list[str]:
    """Short details on one line; long text (an stderr tail) in its own block."""
    short, long = [], []
    for key, value in details.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if "\n" in text or len(text) > _VALUE_CHARS:
            long += ["", f"{_escape(key)}:", "", _fence(_printable(_shorten(text, _EXCERPT_CHARS)))]
        else:
            short.append(f"{_escape(key)} {_code(text)}")
    return ([f"Details: {' · '.join(short)}"] if short else []) + long


def _section(case: Mapping[str, Any], docs_url: str) -> str:
    failed = _failed(case)
    title = ", ".join(f"{r['rule']} ({r['level']})" for r in failed) or case["outcome"]
    lines = [f"<details><summary><code>{html.escape(str(case['id']))}</code>: {html.escape(title)}</summary>", ""]
    if case["outcome"] == "error" or not failed:
        lines += [f"**{'Could not be run' if case['outcome'] == 'error' else 'Failed'}**:", "",
                  _fence(_printable(_shorten(str(case["message"]), _EXCERPT_CHARS))), ""]
    for result in failed:
        lines.append(f"**{_rule_link(result['rule'], docs_url)}** {_escape(result['level'])}: "
                     f"{_escape(_shorten(str(result['message']), _MESSAGE_CHARS))}")
        evidence = _evidence(result.get("evidence", {}))
        more = int(result.get("count", 1)) - 1
        if evidence or more > 0:
            lines += ["", evidence + (f" ({_plural(more, 'more violation')})" if more > 0 else "")]
        if result.get("fix"):
            lines += ["", f"Fix: {_escape(str(result['fix']))}"]
        if result.get("excerpt"):
            lines += ["", "The stream around it:", "",
                      _fence(_printable(_shorten(str(result["excerpt"]), _EXCERPT_CHARS)))]
        lines.append("")
    details = _details(case.get("details", {}))
    lines += [*details, ""] if details else []
    lines += ["Repro:", "", _fence(str(case["repro"]), "sh"), "", "</details>", ""]
    return "\n".join(lines)


def _shown(cases: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The cases that get a section, most severe first: errors, MUST failures, SHOULD-only failures."""
    rank = {"error": 0, "failed": 1}
    chosen = [c for c in cases if c["outcome"] in rank]
    return sorted(chosen, key=lambda c: (rank[c["outcome"]], not _fails_must(c), str(c["id"])))


def _omitted(omitted: int, total: int) -> str:
    return (f"\n> {omitted} of {total} failed cases are not shown here (size limit): see the full report, e.g. "
            f"`callproof report --format html report.json`.\n")


def render_markdown(report: Mapping[str, Any], *, limit: int = 60_000, docs_url: str = DOCS_URL) -> str:
    """The report as Markdown of at most `limit` characters (see the module docstring for what is cut first).
    Raises ValueError when even the verdict and the bare list of failed rules do not fit."""
    cases: Sequence[Mapping[str, Any]] = report["cases"]
    top = [*_verdict(report), *_target(report), *_families(cases)]
    rows = _rule_rows(cases)
    sections = [_section(c, docs_url) for c in _shown(cases)]
    heading = "### Failed cases\n\n" if sections else ""
    for width in _WIDTHS:
        head = "\n".join([*top, *_rules(rows, docs_url, width)]) + "\n" + heading
        budget = limit - len(head) - len(_omitted(len(sections), len(sections)))
        kept: list[str] = []
        for section in sections:
            if budget < len(section) + 1:
                break
            kept.append(section)
            budget -= len(section) + 1
        text = head + "\n".join(kept)
        if len(kept) < len(sections):
            text += _omitted(len(sections) - len(kept), len(sections))
        if len(text) <= limit:
            return text
    raise ValueError(f"render_markdown: limit={limit} characters cannot hold the verdict and the "
                     f"{_plural(len(rows), 'failed rule')}; raise the limit")
