"""The generated section of docs/interop.md, between `<!-- gateways:begin -->` and `<!-- gateways:end -->`: one
row per gateway mode (the counts of its latest report in out/interop-gateways/), one per mode it cannot serve, and
the failing rules of each gateway with the cause its baseline's comment gives them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ._mode_run import ModeResult, Paths, verdicts
from ._spec import Gateway

__all__ = ["BEGIN", "END", "Entry", "read_baseline", "render", "update_docs"]

BEGIN = "<!-- gateways:begin -->"
END = "<!-- gateways:end -->"
_NOT_LISTED = "not in the baseline: a new failure, or callproof's (read the report)"


@dataclass(frozen=True)
class Entry:
    """A baseline line: a case, the rules listed for it (none: the whole case), the comment above it."""

    case: str
    rules: tuple[str, ...]
    cause: str


def read_baseline(path: Path) -> tuple[Entry, ...]:
    """The entries of a baseline file, each with the comment block just above it (a blank line ends a block)."""
    if not path.exists():
        return ()
    entries: list[Entry] = []
    comment: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            comment = []
        elif line.startswith("#"):
            comment.append(line.lstrip("#").strip())
        else:
            case, *rules = line.split("#", 1)[0].split()
            entries.append(Entry(case, tuple(rules), " ".join(comment)))
    return tuple(entries)


def _cause(entries: Sequence[Entry], case: str, rule: str) -> str:
    for entry in entries:
        if entry.case == case and (not entry.rules or rule in entry.rules):
            return entry.cause or "listed in the baseline"
    return _NOT_LISTED


def _mode_name(mode_id: str) -> str:
    front, upstream, *ws = mode_id.split("-")
    return f"{front} → {upstream}" + (" (WebSocket front)" if ws else "")


def _result(gateway: Gateway, mode_id: str, results: dict[tuple[str, str], ModeResult],
            paths: Paths) -> ModeResult | None:
    if (gateway.name, mode_id) in results:
        return results[(gateway.name, mode_id)]
    report = paths.out / f"{gateway.name}-{mode_id}.json"
    if not report.exists():
        return None
    counts, rules, levels, errors = verdicts(report)
    return ModeResult(gateway.name, gateway.version, mode_id, None, "", counts, rules, levels, errors)


def _date(paths: Paths, gateway: Gateway, mode_id: str) -> str:
    report = paths.out / f"{gateway.name}-{mode_id}.json"
    try:
        return str(json.loads(report.read_text(encoding="utf-8"))["started_at"])[:10]
    except (OSError, ValueError, KeyError):
        return ""


def render(gateways: Sequence[Gateway], results: Sequence[ModeResult], paths: Paths) -> str:
    """The section's Markdown (without its markers)."""
    by_key = {(r.gateway, r.mode): r for r in results}
    rows = ["| gateway | version | mode (front → upstream) | cases | passed | failed | errors | failing rules "
            "| run on |", "|---|---|---|---|---|---|---|---|---|"]
    causes: list[str] = ["| gateway | rule | level | modes | cases | cause |", "|---|---|---|---|---|---|"]
    for gateway in gateways:
        grouped: dict[tuple[str, str], tuple[set[str], set[str], str]] = {}
        for mode in gateway.modes:
            result = _result(gateway, mode.id, by_key, paths)
            name = gateway.title
            if result is None:
                rows.append(f"| {name} | {gateway.version} | {_mode_name(mode.id)} | - | - | - | - | not run yet | |")
                continue
            if not result.counts:
                rows.append(f"| {name} | {result.version} | {_mode_name(mode.id)} | - | - | - | - | "
                            f"could not run: {result.problem} | |")
                continue
            c = result.counts
            failed = c.get("failed", 0) + c.get("xfailed", 0)
            ids = " ".join(result.rules) or "none"
            rows.append(f"| {name} | {result.version} | {_mode_name(mode.id)} | {c.get('cases', 0)} | "
                        f"{c.get('passed', 0)} | {failed} | {c.get('error', 0)} | {ids} | "
                        f"{_date(paths, gateway, mode.id)} |")
            entries = read_baseline(paths.baseline(gateway, mode))
            for rule, cases in result.rules.items():
                for case in cases:
                    cause = _cause(entries, case, rule)
                    modes, hit, level = grouped.setdefault((rule, cause), (set(), set(), result.levels.get(rule, "")))
                    modes.add(mode.id)
                    hit.add(f"{mode.id}:{case}")
            for case, message in result.errors.items():
                cause = _cause(entries, case, "")
                key = ("(error)", cause if cause != _NOT_LISTED else f"no verdict: {message.splitlines()[0][:160]}"
                       if message else _NOT_LISTED)
                modes, hit, _ = grouped.setdefault(key, (set(), set(), ""))
                modes.add(mode.id)
                hit.add(f"{mode.id}:{case}")
        for unsupported in gateway.unsupported:
            rows.append(f"| {gateway.title} | {gateway.version} | {_mode_name(unsupported.mode)} | - | - | - | - | "
                        f"not served: {unsupported.why} | |")
        for (rule, cause), (modes, hit, level) in sorted(grouped.items()):
            causes.append(f"| {gateway.title} | {rule} | {level} | {' '.join(sorted(modes))} | {len(hit)} | "
                          f"{cause.replace('|', '/')} |")
    setups = [f"- {gateway.title}, {_mode_name(mode.id)}: {mode.note}" for gateway in gateways
              for mode in gateway.modes if mode.note]
    how = ["How each mode is set up (interop/gateways.json):", "", *setups, ""] if setups else []
    return "\n".join([*rows, "", *how, *causes])


def update_docs(docs: Path, gateways: Sequence[Gateway], results: Sequence[ModeResult], paths: Paths) -> None:
    """Rewrite the section between the markers of `docs` (each on a line of its own); `ValueError` without them."""
    text = docs.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{docs} has no {BEGIN} ... {END} section; add the two marker lines where the table goes")
    body = render(gateways, results, paths)
    docs.write_text(text[: start + len(BEGIN)] + "\n" + body + "\n" + text[end:], encoding="utf-8")
