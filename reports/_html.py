"""The HTML report: one self-contained file rendered from reports alone (schemas/report.schema.json).

Everything is inline (the CSS and JS of reports/assets/, the JSON the JS reads); a Content-Security-Policy allows no
network fetch at all and runs only the page's own script and style (by hash), so a report that smuggled markup past
the escaping still could not run code or load anything. Every string from a report is IUT output and is escaped:
text and attributes with `html.escape`, the embedded JSON with `<`, `>` and `&` as `\\u003c`-style escapes.

Given several reports (one per implementation under test), the page starts with a matrix: scenarios as rows,
implementations as columns, each cell the worst outcome of that scenario's cases. Each report follows as a section
with its verdict, counts, client-side filters, the table of cases and, for each case that did not pass, the failed
rules' evidence, excerpt, fix and repro command and the event timeline with the offending events highlighted.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files

from callproof.harness.report_model import TALLIES, Case, Report, tally

from ._html_case import case_detail, first_to_open
from ._text import LEVELS, ReportLike, as_report, e, must_failures, plural, rule_chips, slug

__all__ = ["render_html", "target_label"]

#: The outcome filter's options, in this order.
_OUTCOMES = ("passed", "failed", "flaky", "error", "xfailed", "skipped")
#: The worst outcome names a matrix cell: skipped only when every case was skipped.
_SEVERITY = {"skipped": 0, "passed": 1, "xfailed": 2, "flaky": 3, "failed": 4, "error": 5}
_CELL_TEXT = {"passed": "pass", "failed": "FAIL", "error": "ERROR", "xfailed": "xfail", "skipped": "skip",
              "flaky": "FLAKY"}
_TABLE_MESSAGE_CHARS = 240
#: The counted words shown even at 0 (the others only where a case is).
_ALWAYS = ("failed", "passed", "skipped", "xfailed", "error")


@cache
def _asset(name: str) -> str:
    """reports/assets/<name>: the page's stylesheet and script, inlined into every page."""
    return files("callproof.reports").joinpath("assets", name).read_text(encoding="utf-8")


def _json_for_script(data: object) -> str:
    """JSON that cannot end its <script type="application/json"> block or open a comment in it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def target_label(report: ReportLike) -> str:
    """How the report names its implementation under test: the command, URL, app or client it was given."""
    return as_report(report).target.label


def _fails_must(case: Case) -> bool:
    return case.outcome == "failed" and case.failed_level("MUST")


@dataclass
class _View:
    """One report and the names the page gives its parts."""

    index: int
    report: Report
    label: str = ""
    anchors: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.label = self.report.target.label
        used: set[str] = set()
        for n, case in enumerate(self.cases):
            anchor = f"r{self.index}-{slug(case.id)}"
            if anchor in used:
                anchor = f"{anchor}-{n}"
            used.add(anchor)
            self.anchors[n] = anchor

    @property
    def cases(self) -> tuple[Case, ...]:
        return self.report.cases

    @property
    def id(self) -> str:
        return f"r{self.index}"

    @property
    def complete(self) -> bool:
        return self.report.complete

    def verdict(self) -> tuple[str, str, str]:
        """(css class, verdict, why), following the exit code: a MUST failure or an error is not conformant, and a
        run that judged no case is "nothing judged", never conformant."""
        failures = must_failures(self.cases)
        errors = sum(1 for c in self.cases if c.outcome == "error")
        should = sum(1 for c in self.cases if c.outcome == "failed" and not _fails_must(c))
        xfailed = sum(1 for c in self.cases if c.outcome == "xfailed")
        why = [failures] if failures else []
        why += [f"{plural(errors, 'case')} could not be judged"] if errors else []
        why += [f"{plural(should, 'case')} failed SHOULD rules only"] if should else []
        why += [f"{plural(xfailed, 'known failure')} covered by the baseline"] if xfailed else []
        nothing = self.report.nothing_judged()
        if nothing is not None:
            return "v-fail", "nothing judged", f"no case was judged: {nothing}"
        if failures or errors:
            return "v-fail", "not conformant", "; ".join(why)
        if not self.cases:
            return "v-incomplete", "no cases", "the report holds no case"
        if not self.complete:
            return "v-incomplete", "incomplete", "; ".join(why) or "no failure among the cases that ran"
        return "v-pass", "conformant", "; ".join(why) or "every case passed or was skipped"

    def default_outcome(self) -> str:
        return "not-passed" if any(c.outcome != "passed" for c in self.cases) else "all"


def _badges(view: _View) -> str:
    css, verdict, _ = view.verdict()
    cut = '' if view.complete or verdict == "incomplete" else ' <span class="verdict v-incomplete">incomplete</span>'
    return f'<span class="verdict {css}">{e(verdict)}</span>{cut}'


def _header(view: _View, numbered: bool) -> list[str]:
    report = view.report
    summary, target, platform = report.summary.to_json(), report.target, report.platform
    why = view.verdict()[2]
    number = f"#{view.index + 1} " if numbered else ""
    out = [f'<h2>{_badges(view)}<span class="target">{e(number)}'
           f'<code>{e(view.label)}</code></span></h2>', f'<p class="why">{e(why)}</p>']
    if not view.complete:
        out.append(f'<div class="banner incomplete-banner" role="alert">Incomplete run: it was cut off before every '
                   f'case ran; {plural(len(view.cases), "case")} {"is" if len(view.cases) == 1 else "are"} '
                   'reported. Cases that did not run are missing from this report and from its counts.</div>')
    # the words of the terminal and pytest's last line (report_model.tally); SHOULD-failed and flaky (--repeat) only
    # where a case is; upstream only where a finding was attributed to the upstream (contracts §7.8)
    words = dict.fromkeys(TALLIES, 0)
    for case in report.cases:
        words[tally(case)] += 1
    counts = [("cases", summary["cases"]), *((w, n) for w, n in words.items() if n or w in _ALWAYS),
              ("stale_baseline", summary["stale_baseline"])]
    counts += [("upstream", summary["upstream"])] if summary.get("upstream") else []
    out.append('<ul class="counts">' + "".join(
        f'<li class="c-{name}{" nonzero" if n else ""}"><b>{e(n)}</b>{e(name.replace("_", " "))}</li>'
        for name, n in counts) + "</ul>")
    rows = [
        ("target", f"{e(target.kind)} via <code>{e(target.how)}</code>"
         + (f", {e(target.dialects)}" if target.dialects else "")),
        ("profile", f"<code>{e(report.profile)}</code>"),
        *((("policy", f"<code>{e(target.policies)}</code>"),) if target.policies else ()),
        ("started", f"{e(report.started_at)}, took {e(report.duration_s)} s"),
        *((("shard", f"{e(report.shard)} (a slice of the run; <code>callproof report --merge</code> joins the "
                     "shards)"),) if report.shard is not None else ()),
        ("command", f"<code>{e(shlex.join(report.command))}</code>"),
        ("scenario set", f"<code>{e(report.scenario_set)}</code>"),
        ("callproof", f"{e(report.callproof_version)}, Python {e(platform.python)} on "
                      f"{e(platform.system)} {e(platform.machine)}"),
    ]
    out.append('<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>")
    return out


def _filters(view: _View) -> str:
    families = sorted({r.family for c in view.cases for r in c.results if r.family})
    present = {c.outcome for c in view.cases}
    default = view.default_outcome()
    outcome_options = [("not-passed", "not passed"), ("all", "all")] + [(o, o) for o in _OUTCOMES if o in present]
    options = "".join(f'<option value="{v}"{" selected" if v == default else ""}>{e(t)}</option>'
                      for v, t in outcome_options)
    levels = "".join(f'<option value="{lv}">{lv}</option>' for lv in LEVELS)
    fams = "".join(f'<option value="{e(f)}">{e(f)}</option>' for f in families)
    hint = "cases whose failed rules (or, for a case that passed, whose rules) have this"
    return (f'<form class="filters" id="{view.id}-filters" aria-label="filter the cases">'
            f'<label>outcome<select name="outcome">{options}</select></label>'
            f'<label title="{hint} level">rule level<select name="level"><option value="">any</option>{levels}'
            f'</select></label>'
            f'<label title="{hint} family">rule family<select name="family"><option value="">any</option>{fams}'
            f'</select></label>'
            f'<label>scenario, case or rule<input type="search" name="q" placeholder="e.g. parallel or ::identity"'
            f' autocomplete="off"></label>'
            f'<button type="button" class="reset">reset</button>'
            f'<button type="button" class="expand">expand / collapse all</button>'
            f'<span class="shown">{len(view.cases)} cases</span></form>')


def _cases(view: _View) -> str:
    rows: list[str] = []
    open_n = first_to_open(view.cases)
    for n, case in enumerate(view.cases):
        anchor, outcome, failed = view.anchors[n], case.outcome, case.failed
        judged = failed or case.results
        levels = " ".join(sorted({r.level for r in judged}))
        families = " ".join(sorted({r.family for r in judged}))
        search = " ".join([case.id, *(r.rule for r in failed)]).lower()
        message = case.message.strip().split("\n", 1)[0]
        if len(message) > _TABLE_MESSAGE_CHARS:
            message = message[:_TABLE_MESSAGE_CHARS] + "…"
        mark = f' <span class="badge">baseline {e(case.baseline)}</span>' if case.baseline else ""
        # a finding attributed to the upstream (docs/spec/contracts.md §7.8): passed, and the row shows it
        mark += "".join(f' <span class="badge upstream">{e(r.rule)} upstream</span>' for r in case.attributed)
        has_detail = outcome != "passed" and bool(failed or case.message or case.timeline)
        link = f'<a href="#{anchor}-more">{e(case.id)}</a>' if has_detail else e(case.id)
        rows.append(f'<tr class="case" id="{anchor}" data-outcome="{outcome}" data-levels="{e(levels)}" '
                    f'data-families="{e(families)}" data-search="{e(search)}">'
                    f'<td class="id"><code>{link}</code></td><td class="o o-{outcome}">{outcome}{mark}</td>'
                    f'<td>{rule_chips(failed)}</td><td class="msg">{e(message)}</td></tr>')
        if has_detail:
            rows.append(f'<tr class="detail" id="{anchor}-detail"><td colspan="4">'
                        f"{case_detail(case, anchor, n == open_n)}</td></tr>")
    return ('<table class="cases"><thead><tr><th>case</th><th>outcome</th><th>failed rules</th><th>message</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            '<p class="no-match muted" hidden>No case matches these filters.</p>')


def _section(view: _View, numbered: bool) -> str:
    return (f'<section class="report" id="{view.id}" data-index="{view.index}">{"".join(_header(view, numbered))}'
            f"{_filters(view)}{_cases(view)}</section>")


def _cell(view: _View, scenario: str, cases: Sequence[tuple[int, Case]]) -> tuple[str, bool]:
    """One matrix cell (a scenario in one report), and whether it is clean (every case passed or skipped)."""
    if not cases:
        return '<td class="cell o-none" title="not in this report">&ndash;</td>', True
    worst = max((c.outcome for _, c in cases), key=lambda o: _SEVERITY[o])
    bad = [(n, c) for n, c in cases if c.outcome not in ("passed", "skipped")]
    lines = [f"{scenario}: {len(cases) - len(bad)} of {len(cases)} cases passed or skipped"]
    for _, case in bad:
        rules = ", ".join(f"{r.rule} [{r.level}]" for r in case.failed)
        lines.append(f"{case.group} {case.outcome}: {rules or case.message.split(chr(10), 1)[0][:160]}")
    target = view.anchors[bad[0][0] if bad else cases[0][0]]
    count = f" {len(bad)}/{len(cases)}" if bad else ""
    return (f'<td class="cell o-{worst}" title="{e(chr(10).join(lines))}">'
            f'<a href="#{target}">{_CELL_TEXT[worst]}{count}</a></td>'), not bad


def _matrix(views: Sequence[_View]) -> tuple[str, bool]:
    """The scenarios x implementations table, and whether some scenario is not clean (failed somewhere)."""
    scenarios = sorted({c.scenario for v in views for c in v.cases})
    head = "".join(
        f'<th scope="col" class="impl" title="{e(v.label)}"><a href="#{v.id}">#{v.index + 1}</a> '
        f'{_badges(v)}<code>{e(v.label)}</code><span class="muted">{e(v.report.profile)}'
        + (f" · {e(v.report.target.dialects)}" if v.report.target.dialects else "")
        + "</span></th>" for v in views)
    by_scenario: list[dict[str, list[tuple[int, Case]]]] = []
    for view in views:
        grouped: dict[str, list[tuple[int, Case]]] = {}
        for n, case in enumerate(view.cases):
            grouped.setdefault(case.scenario, []).append((n, case))
        by_scenario.append(grouped)
    rows: list[str] = []
    any_problem = False
    for scenario in scenarios:
        cells = [_cell(view, scenario, grouped.get(scenario, [])) for view, grouped in zip(views, by_scenario,
                                                                                           strict=True)]
        clean = all(ok for _, ok in cells)
        any_problem = any_problem or not clean
        rows.append(f'<tr data-clean="{int(clean)}"><th scope="row"><code>{e(scenario)}</code></th>'
                    f'{"".join(cell for cell, _ in cells)}</tr>')
    table = (f'<section id="matrix"><h2>Scenarios &times; implementations</h2>'
             '<div class="matrix-tools"><label><input type="checkbox" id="matrix-problems"> only scenarios that '
             'failed or errored somewhere</label><span id="matrix-shown"></span></div>'
             '<p class="muted">Each cell is the worst outcome of the scenario\'s cases (error, failed, xfailed, '
             'passed; skipped only if all were); hover for the failed rules, click for the case.</p>'
             f'<table class="matrix"><thead><tr><th scope="col">scenario</th>{head}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table></section>')
    return table, any_problem


def render_html(reports: Sequence[ReportLike]) -> str:
    """One self-contained HTML page for one report, or a comparison of several (a matrix, then each report)."""
    if not reports:
        raise ValueError("render_html needs at least one report")
    views = [_View(i, as_report(r)) for i, r in enumerate(reports)]
    several = len(views) > 1
    body: list[str] = []
    matrix_default = False
    if several:
        title = f"callproof: {len(views)} implementations compared"
        body.append(f"<h1>{e(title)}</h1>")
        body.append('<nav class="reports">' + "".join(
            f'<a href="#{v.id}">#{v.index + 1} {_badges(v)} <code>{e(v.label)}</code></a>' for v in views)
            + "</nav>")
        matrix, matrix_default = _matrix(views)
        body.append(matrix)
    else:
        title = f"callproof: {views[0].verdict()[1]}: {views[0].label}"
        body.append('<h1>callproof report</h1>')
    body += [_section(v, several) for v in views]
    meta = {"reports": [{"index": v.index, "label": v.label, "default_outcome": v.default_outcome(),
                         "verdict": v.verdict()[1], "complete": v.complete} for v in views],
            "matrix_default_problems": matrix_default}
    css, js = _asset("report.css"), _asset("report.js")
    csp = (f"default-src 'none'; style-src '{_sha256(css)}'; script-src '{_sha256(js)}'; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="callproof">'
        f'<link rel="icon" href="data:,"><title>{e(title)}</title><style>{css}</style></head>\n'
        f'<body data-ready="0"><main>{"".join(body)}</main>\n'
        f'<script type="application/json" id="callproof-meta">{_json_for_script(meta)}</script>\n'
        f"<script>{js}</script></body></html>\n"
    )
