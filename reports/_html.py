"""The HTML report: one self-contained file rendered from JSON reports alone (schemas/report.schema.json).

Everything is inline (CSS, JS, the JSON the JS reads); a Content-Security-Policy allows no network fetch at all and
runs only this module's own script and style (by hash), so a report that smuggled markup past the escaping still
could not run code or load anything. Every string from a report is IUT output and is escaped: text and attributes
with `html.escape`, the embedded JSON with `<`, `>` and `&` as `\\u003c`-style escapes.

Given several reports (one per implementation under test), the page starts with a matrix: scenarios as rows,
implementations as columns, each cell the worst outcome of that scenario's cases. Each report follows as a section
with its verdict, counts, client-side filters, the table of cases and, for each case that did not pass, the failed
rules' evidence, excerpt, fix and repro command and the event timeline with the offending events highlighted.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["render_html", "target_label"]

OUTCOMES = ("passed", "failed", "error", "xfailed", "skipped")
LEVELS = ("MUST", "SHOULD", "INFO")
#: The worst outcome names a matrix cell: skipped only when every case was skipped.
_SEVERITY = {"skipped": 0, "passed": 1, "xfailed": 2, "failed": 3, "error": 4}
_CELL_TEXT = {"passed": "pass", "failed": "FAIL", "error": "ERROR", "xfailed": "xfail", "skipped": "skip"}
#: Timeline rows further than this from every offending event are folded away (the button shows them).
_CONTEXT = 4
#: A gap between two events from this many milliseconds up is marked.
_LONG_GAP_MS = 100.0
_TABLE_MESSAGE_CHARS = 240

_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--err:#8250df;
--xfail:#9a6700;--skip:#6e7781;--hl:#fff8c5;--hl-line:#d4a72c}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
color:var(--fg);background:#fff}
main{max-width:1440px;margin:0 auto;padding:12px 24px 64px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:6px 9px;margin:3px 0 6px;
overflow:auto;max-height:20em;white-space:pre-wrap;overflow-wrap:anywhere}
h1{font-size:22px;margin:6px 0 10px}
h2{font-size:19px;margin:0 0 8px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
h3{font-size:15px;margin:18px 0 6px}
h4{font-size:14px;margin:0 0 4px}
a{color:#0969da}
td.id a{text-decoration:none}td.id a:hover{text-decoration:underline}
nav.reports{margin:0 0 14px;display:flex;flex-direction:column;gap:4px}
section.report{border-top:3px solid var(--line);padding-top:14px;margin-top:28px}
section.report:first-of-type{margin-top:8px}
.verdict{display:inline-block;padding:1px 10px;border-radius:999px;font-weight:650;color:#fff;font-size:13px;
white-space:nowrap}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-incomplete{background:var(--xfail)}
.target{font-weight:400;overflow-wrap:anywhere}
.banner{border:1px solid #bc4c00;background:#fff1e5;color:#762c00;border-radius:6px;padding:8px 12px;margin:8px 0;
font-weight:600}
.why{color:var(--muted);margin:0 0 8px}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0 10px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;overflow-wrap:anywhere}
.counts{display:flex;gap:6px;flex-wrap:wrap;margin:8px 0 12px;padding:0;list-style:none}
.counts li{border:1px solid var(--line);border-radius:6px;padding:3px 10px;background:var(--soft)}
.counts b{font-size:16px;margin-right:4px}
.counts .nonzero.c-failed b,.counts .nonzero.c-must_failed b{color:var(--fail)}
.counts .nonzero.c-error b{color:var(--err)}.counts .nonzero.c-xfailed b{color:var(--xfail)}
.counts .c-passed b{color:var(--pass)}
form.filters{display:flex;gap:8px 14px;flex-wrap:wrap;align-items:end;background:var(--soft);
border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:0 0 8px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
form.filters select,form.filters input{font:inherit;color:var(--fg);padding:2px 4px}
form.filters input[type=search]{width:22em}
.shown{color:var(--muted);margin-left:auto;align-self:center}
button{font:inherit;font-size:12px;padding:2px 8px;border:1px solid var(--line);border-radius:6px;background:#fff;
cursor:pointer}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft);position:sticky;top:0;z-index:1}
table.cases td.id{white-space:nowrap}
table.cases td.msg{overflow-wrap:anywhere;width:55%}
.o{font-weight:650;white-space:nowrap}
.o-passed{color:var(--pass)}.o-failed{color:var(--fail)}.o-error{color:var(--err)}.o-xfailed{color:var(--xfail)}
.o-skipped{color:var(--skip)}
.badge{font-size:11px;border:1px solid var(--line);border-radius:4px;padding:0 4px;color:var(--muted);
font-weight:400}
.rule{display:inline-block;border:1px solid;border-radius:4px;padding:0 5px;margin:1px 3px 1px 0;
font:600 12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:nowrap}
.l-MUST{color:var(--fail);border-color:#ff8182;background:#fff5f5}
.l-SHOULD{color:var(--xfail);border-color:#d4a72c;background:#fffbeb}
.l-INFO{color:var(--skip);border-color:var(--line)}
tr.detail>td{border-bottom:2px solid var(--line);padding:0 8px 6px 24px}
details.case-detail>summary{cursor:pointer;color:var(--muted);font-size:12.5px;padding:2px 0}
details.case-detail[open]>summary{margin-bottom:6px}
.detail-body{border-left:3px solid var(--line);padding:2px 0 4px 14px}
.failure{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:0 0 10px;background:#fff}
.failure.f-MUST{border-left:4px solid var(--fail)}.failure.f-SHOULD{border-left:4px solid var(--hl-line)}
.statement{color:var(--muted);font-style:italic;margin:0 0 4px}
.failure p{margin:4px 0}
dl.evidence{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:1px 12px;margin:6px 0}
dl.evidence dt{color:var(--muted);font-size:12.5px;padding-top:3px}dl.evidence dd{margin:0;min-width:0}
.label{color:var(--muted);font-size:12.5px;margin:6px 0 0}
.spec{color:var(--muted);font-size:12.5px}
.timeline-wrap{max-height:40em;overflow:auto;border:1px solid var(--line);border-radius:6px}
table.timeline{font-size:12.5px}
table.timeline td,table.timeline th{padding:1px 8px;border-bottom:1px solid #eef1f4}
table.timeline td.num{text-align:right;font-variant-numeric:tabular-nums;font-family:ui-monospace,monospace}
table.timeline .gap-long{color:var(--fail);font-weight:650}
tr.offending td{background:var(--hl)}
tr.offending td:first-child{box-shadow:inset 4px 0 0 var(--fail)}
tr.offending td.by{color:var(--fail);font-weight:650}
table.condensed tr.far{display:none}
table.timeline:not(.condensed) tr.elide{display:none}
tr.elide td{color:var(--muted);text-align:center;font-style:italic;background:var(--soft)}
:target{scroll-margin-top:60px}
tr:target td{outline:2px solid #0969da}
table.matrix{width:auto;max-width:100%}
table.matrix th.impl{max-width:17em;min-width:9em;font-weight:400;vertical-align:top}
table.matrix th.impl code{display:block;overflow-wrap:anywhere;font-size:11.5px}
table.matrix td.cell{text-align:center;white-space:nowrap;font-weight:650;padding:2px 10px}
table.matrix td.cell a{color:inherit;text-decoration:none;display:block}
td.cell.o-passed{background:#dafbe1}td.cell.o-failed{background:#ffcecb}td.cell.o-error{background:#e8d7ff}
td.cell.o-xfailed{background:#fff1c2}td.cell.o-skipped{background:#eaeef2}td.cell.o-none{color:var(--skip)}
.matrix-tools{display:flex;gap:14px;align-items:center;margin:4px 0 8px;color:var(--muted)}
.muted{color:var(--muted)}
"""

_JS = """
(() => {
  "use strict";
  const meta = JSON.parse(document.getElementById("callproof-meta").textContent);
  const words = (text) => (text || "").split(" ");

  function filterSection(section) {
    const form = section.querySelector("form.filters");
    if (!form) return;
    const outcome = form.elements.outcome.value, level = form.elements.level.value;
    const family = form.elements.family.value, query = form.elements.q.value.trim().toLowerCase();
    const rows = section.querySelectorAll("tr.case");
    let shown = 0;
    rows.forEach((row) => {
      const d = row.dataset;
      const ok = (outcome === "all" || (outcome === "not-passed" ? d.outcome !== "passed" : d.outcome === outcome))
        && (!level || words(d.levels).includes(level)) && (!family || words(d.families).includes(family))
        && (!query || d.search.includes(query));
      row.hidden = !ok;
      const detail = document.getElementById(row.id + "-detail");
      if (detail) detail.hidden = !ok;
      if (ok) shown += 1;
    });
    section.querySelector(".shown").textContent = shown + " of " + rows.length + " cases shown";
    section.querySelector(".no-match").hidden = shown !== 0;
  }

  function setDefaults(section) {
    const form = section.querySelector("form.filters");
    const info = meta.reports[Number(section.dataset.index)] || {};
    form.elements.outcome.value = info.default_outcome || "all";
    form.elements.level.value = "";
    form.elements.family.value = "";
    form.elements.q.value = "";
    filterSection(section);
  }

  function filterMatrix() {
    const box = document.getElementById("matrix-problems");
    if (!box) return;
    const rows = document.querySelectorAll("table.matrix tbody tr");
    let shown = 0;
    rows.forEach((row) => {
      row.hidden = box.checked && row.dataset.clean === "1";
      if (!row.hidden) shown += 1;
    });
    document.getElementById("matrix-shown").textContent = shown + " of " + rows.length + " scenarios shown";
  }

  function condense(table, on) {
    table.classList.toggle("condensed", on);
    const button = document.getElementById(table.id + "-toggle");
    if (button) button.textContent = on ? button.dataset.all : button.dataset.near;
  }

  function reveal(id) {
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    const section = target.closest("section.report");
    const row = target.closest("tr.case, tr.detail");
    if (section && row && row.hidden) {
      setDefaults(section);
      if (row.hidden) {
        section.querySelector("form.filters").elements.outcome.value = "all";
        filterSection(section);
      }
    }
    for (let node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    const table = target.closest("table.condensed");
    if (table && target.classList.contains("far")) condense(table, false);
    target.scrollIntoView({block: "center"});
  }

  document.querySelectorAll("section.report").forEach((section) => {
    const form = section.querySelector("form.filters");
    form.addEventListener("input", () => filterSection(section));
    form.addEventListener("change", () => filterSection(section));
    form.addEventListener("submit", (event) => event.preventDefault());
    form.querySelector(".reset").addEventListener("click", () => setDefaults(section));
    form.querySelector(".expand").addEventListener("click", () => {
      const all = section.querySelectorAll("tr.detail:not([hidden]) details.case-detail");
      const open = !Array.from(all).every((d) => d.open);
      all.forEach((d) => { d.open = open; });
    });
    setDefaults(section);
  });

  document.querySelectorAll("table.timeline[data-condense]").forEach((table) => {
    const button = document.getElementById(table.id + "-toggle");
    button.hidden = false;
    button.addEventListener("click", () => condense(table, !table.classList.contains("condensed")));
    condense(table, true);
  });

  const box = document.getElementById("matrix-problems");
  if (box) {
    box.checked = meta.matrix_default_problems;
    box.addEventListener("change", filterMatrix);
    filterMatrix();
  }

  const fromHash = () => {
    try { reveal(decodeURIComponent(location.hash.slice(1))); } catch (error) { /* a malformed fragment */ }
  };
  window.addEventListener("hashchange", fromHash);
  if (location.hash) fromHash();
  document.body.dataset.ready = "1";
})();
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _json_for_script(data: object) -> str:
    """JSON that cannot end its <script type="application/json"> block or open a comment in it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _text(value: Any) -> str:
    """A JSON value as a person reads it: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:120] or "x"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}"


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _failed(case: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [_map(r) for r in _list(case.get("results")) if _map(r).get("outcome") == "failed"]


def _level_class(level: Any) -> str:
    return f"l-{level}" if level in LEVELS else "l-INFO"


def _outcome(case: Mapping[str, Any]) -> str:
    outcome = case.get("outcome")
    return outcome if outcome in OUTCOMES else "error"


def target_label(report: Mapping[str, Any]) -> str:
    """How the report names its implementation under test: the command, URL, app or client it was given."""
    target = _map(report.get("target"))
    for key in ("command", "url", "app", "client"):
        if target.get(key):
            return str(target[key])
    return str(target.get("how") or target.get("kind") or "unknown target")


@dataclass
class _View:
    """One report and the names the page gives its parts."""

    index: int
    report: Mapping[str, Any]
    label: str = ""
    cases: list[Mapping[str, Any]] = field(default_factory=list)
    anchors: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.label = target_label(self.report)
        self.cases = [_map(c) for c in _list(self.report.get("cases"))]
        used: set[str] = set()
        for n, case in enumerate(self.cases):
            anchor = f"r{self.index}-{_slug(str(case.get('id', n)))}"
            if anchor in used:
                anchor = f"{anchor}-{n}"
            used.add(anchor)
            self.anchors[n] = anchor

    @property
    def id(self) -> str:
        return f"r{self.index}"

    @property
    def complete(self) -> bool:
        return self.report.get("complete") is not False

    def verdict(self) -> tuple[str, str, str]:
        """(css class, verdict, why), following the exit code: a MUST failure or an error is not conformant."""
        must = sum(1 for c in self.cases if _outcome(c) == "failed"
                   and any(r.get("level") == "MUST" for r in _failed(c)))
        errors = sum(1 for c in self.cases if _outcome(c) == "error")
        should = sum(1 for c in self.cases if _outcome(c) == "failed"
                     and not any(r.get("level") == "MUST" for r in _failed(c)))
        xfailed = sum(1 for c in self.cases if _outcome(c) == "xfailed")
        why = [f"{must} case{'s' * (must != 1)} failed a MUST rule"] if must else []
        why += [f"{errors} case{'s' * (errors != 1)} could not be run"] if errors else []
        why += [f"{should} case{'s' * (should != 1)} failed SHOULD rules only"] if should else []
        why += [f"{xfailed} known failure{'s' * (xfailed != 1)} covered by the baseline"] if xfailed else []
        if must or errors:
            return "v-fail", "not conformant", "; ".join(why)
        if not self.cases:
            return "v-incomplete", "no cases", "the report holds no case"
        if not self.complete:
            return "v-incomplete", "incomplete", "; ".join(why) or "no failure among the cases that ran"
        return "v-pass", "conformant", "; ".join(why) or "every case passed or was skipped"

    def default_outcome(self) -> str:
        return "not-passed" if any(_outcome(c) != "passed" for c in self.cases) else "all"


def _badges(view: _View) -> str:
    css, verdict, _ = view.verdict()
    cut = '' if view.complete or verdict == "incomplete" else ' <span class="verdict v-incomplete">incomplete</span>'
    return f'<span class="verdict {css}">{_e(verdict)}</span>{cut}'


def _rule_chips(results: Iterable[Mapping[str, Any]]) -> str:
    return "".join(f'<span class="rule {_level_class(r.get("level"))}" title="{_e(r.get("level", ""))} '
                   f'{_e(r.get("family", ""))}">{_e(r.get("rule", "?"))}</span>' for r in results)


def _header(view: _View, numbered: bool) -> list[str]:
    report, summary = view.report, _map(view.report.get("summary"))
    why = view.verdict()[2]
    target = _map(report.get("target"))
    number = f"#{view.index + 1} " if numbered else ""
    out = [f'<h2>{_badges(view)}<span class="target">{_e(number)}'
           f'<code>{_e(view.label)}</code></span></h2>', f'<p class="why">{_e(why)}</p>']
    if not view.complete:
        out.append(f'<div class="banner incomplete-banner" role="alert">Incomplete run: it was cut off before every '
                   f'case ran; {len(view.cases)} case{"s" * (len(view.cases) != 1)} '
                   f'{"is" if len(view.cases) == 1 else "are"} reported. Cases that did not run are missing from '
                   'this report and from its counts.</div>')
    counts = ["cases", "passed", "failed", "error", "xfailed", "skipped", "must_failed", "should_failed",
              "stale_baseline"]
    out.append('<ul class="counts">' + "".join(
        f'<li class="c-{name}{" nonzero" if summary.get(name) else ""}"><b>{_e(summary.get(name, 0))}</b>'
        f'{_e(name.replace("_", " "))}</li>' for name in counts) + "</ul>")
    command = _list(report.get("command"))
    platform = _map(report.get("platform"))
    rows = [
        ("target", f"{_e(target.get('kind', '?'))} via <code>{_e(target.get('how', '?'))}</code>"
         + (f", upstream dialect <code>{_e(target['upstream_dialect'])}</code>"
            if target.get("upstream_dialect") else "")),
        ("profile", f"<code>{_e(report.get('profile', '?'))}</code>"),
        ("started", f"{_e(report.get('started_at', '?'))}, took {_e(report.get('duration_s', '?'))} s"),
        ("command", f"<code>{_e(shlex.join(str(c) for c in command))}</code>"),
        ("scenario set", f"<code>{_e(report.get('scenario_set', '?'))}</code>"),
        ("callproof", f"{_e(report.get('callproof_version', '?'))}, Python {_e(platform.get('python', '?'))} on "
                      f"{_e(platform.get('system', '?'))} {_e(platform.get('machine', ''))}"),
    ]
    out.append('<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>")
    return out


def _filters(view: _View) -> str:
    results = [_map(r) for c in view.cases for r in _list(c.get("results"))]
    families = sorted({str(r["family"]) for r in results if r.get("family")})
    present = {_outcome(c) for c in view.cases}
    default = view.default_outcome()
    outcome_options = [("not-passed", "not passed"), ("all", "all")] + [(o, o) for o in OUTCOMES if o in present]
    options = "".join(f'<option value="{v}"{" selected" if v == default else ""}>{_e(t)}</option>'
                      for v, t in outcome_options)
    levels = "".join(f'<option value="{lv}">{lv}</option>' for lv in LEVELS)
    fams = "".join(f'<option value="{_e(f)}">{_e(f)}</option>' for f in families)
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


def _evidence(evidence: Mapping[str, Any], event_anchor: dict[int, str]) -> str:
    rows: list[str] = []
    index = _int(evidence.get("event_index"))
    if index is not None or "event_type" in evidence or "offset" in evidence:
        where = ""
        if index is not None:
            where = (f'<a href="#{event_anchor[index]}">event #{index}</a>' if index in event_anchor
                     else f"event #{index}")
        if "event_type" in evidence:
            where += f" <code>{_e(evidence['event_type'])}</code>"
        if "offset" in evidence:
            where += f" at byte {_e(evidence['offset'])}"
        rows.append(f"<dt>where</dt><dd>{where.strip()}</dd>")
    if "path" in evidence:
        rows.append(f"<dt>path</dt><dd><code>{_e(evidence['path'])}</code></dd>")
    for key in ("expected", "actual"):
        if key in evidence:
            text = _text(evidence[key])
            shown = f"<pre>{_e(text)}</pre>" if text else '<span class="muted">(empty string)</span>'
            rows.append(f"<dt>{key}</dt><dd>{shown}</dd>")
    return f'<dl class="evidence">{"".join(rows)}</dl>' if rows else ""


def _failure(result: Mapping[str, Any], anchor: str, event_anchor: dict[int, str]) -> str:
    rule, level = str(result.get("rule", "?")), result.get("level", "")
    out = [f'<div class="failure f-{_slug(str(level))}" id="{anchor}-{_slug(rule)}">',
           f'<h4>{_rule_chips([result])} <span class="muted">[{_e(level)}] {_e(result.get("family", ""))}</span></h4>']
    if result.get("statement"):
        out.append(f'<p class="statement">{_e(result["statement"])}</p>')
    out.append(f"<p>{_e(result.get('message', ''))}</p>")
    out.append(_evidence(_map(result.get("evidence")), event_anchor))
    violations = [_map(v) for v in _list(result.get("violations"))]
    count = _int(result.get("count")) or 0
    if violations or count > 1:
        kept = 1 + len(violations)
        seen = f"{count} violations seen" + (f", {kept} kept" if count > kept else "")
        items = "".join(f"<li><p>{_e(v.get('message', ''))}</p>{_evidence(_map(v.get('evidence')), event_anchor)}</li>"
                        for v in violations)
        out.append(f"<details><summary>{_e(seen)}: {len(violations)} more</summary><ol>{items}</ol></details>"
                   if violations else f'<p class="muted">{_e(seen)}</p>')
    if "excerpt" in result:
        out.append(f'<p class="label">excerpt of the raw stream around the violation</p>'
                   f'<pre class="excerpt">{_e(result["excerpt"])}</pre>')
    if result.get("fix"):
        out.append(f"<p><b>fix:</b> {_e(result['fix'])}</p>")
    if result.get("spec"):
        out.append(f'<p class="spec">spec: {_e(result["spec"])}</p>')
    out.append("</div>")
    return "".join(out)


def _offenders(failed: Sequence[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    """Event index -> the failed rules whose evidence points at it (the first violation, then the others)."""
    found: dict[int, list[Mapping[str, Any]]] = {}
    for result in failed:
        further = [_map(_map(v).get("evidence")) for v in _list(result.get("violations"))]
        for evidence in [_map(result.get("evidence")), *further]:
            index = _int(evidence.get("event_index"))
            if index is not None and all(r is not result for r in found.setdefault(index, [])):
                found[index].append(result)
    return found


def _timeline(anchor: str, timeline: Sequence[Mapping[str, Any]],
              offenders: Mapping[int, Sequence[Mapping[str, Any]]]) -> str:
    indices = [_int(e.get("index")) for e in timeline]
    marked = [n for n, i in enumerate(indices) if i in offenders]
    condense = bool(marked) and len(timeline) > 4 * _CONTEXT + 4
    near = {n for m in marked for n in range(m - _CONTEXT, m + _CONTEXT + 1)} | {0, len(timeline) - 1}
    rows: list[str] = []
    previous: float | None = None
    folded = 0
    for n, event in enumerate(timeline):
        index, t_ms = indices[n], _num(event.get("t_ms"))
        gap = None if t_ms is None else (t_ms - previous if previous is not None else t_ms)
        previous = t_ms if t_ms is not None else previous
        far = condense and n not in near
        if condense and not far and folded:
            rows.append(f'<tr class="elide"><td colspan="6">{folded} event{"s" * (folded != 1)} folded</td></tr>')
            folded = 0
        folded += far
        rules = offenders.get(index, []) if index is not None else []
        classes = " ".join(c for c in ("offending" if rules else "", "far" if far else "") if c)
        attrs = (f' class="{classes}"' if classes else "") + (f' id="{anchor}-ev{index}"' if index is not None else "")
        gap_class = "num gap-long" if gap is not None and n and gap >= _LONG_GAP_MS else "num"
        by = _rule_chips(rules)
        rows.append(f'<tr{attrs}><td class="num">{_e(event.get("index", ""))}</td>'
                    f'<td><code>{_e(event.get("type", ""))}</code></td><td class="num">{_ms(t_ms)}</td>'
                    f'<td class="{gap_class}">{_ms(gap)}</td><td class="num">{_e(event.get("offset", ""))}</td>'
                    f'<td class="by">{by}</td></tr>')
    table_id = f"{anchor}-timeline"
    button = (f'<button type="button" id="{table_id}-toggle" hidden data-all="show all {len(timeline)} events" '
              f'data-near="show only the events near the failure"></button>') if condense else ""
    marks = ", ".join(f'<a href="#{anchor}-ev{i}">#{i}</a>' for i in sorted(offenders) if i in indices)
    caption = (f"{len(timeline)} events as they arrived (t: milliseconds since the request was sent)"
               + (f"; the stream went wrong at event {marks}" if marks else ""))
    return (f'<h3>Event timeline</h3><p class="muted">{caption} {button}</p>'
            f'<div class="timeline-wrap"><table class="timeline" id="{table_id}"{" data-condense" if condense else ""}>'
            '<thead><tr><th>#</th><th>event type</th><th>t (ms)</th><th>gap (ms)</th><th>byte offset</th>'
            f'<th>flagged by</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _details(details: Mapping[str, Any]) -> str:
    rows = []
    for key, value in details.items():
        text = _text(value)
        shown = f"<pre>{_e(text)}</pre>" if "\n" in text or len(text) > 100 else f"<code>{_e(text)}</code>"
        rows.append(f"<dt>{_e(key)}</dt><dd>{shown}</dd>")
    return f'<h3>Details</h3><dl class="evidence">{"".join(rows)}</dl>' if rows else ""


def _case_detail(case: Mapping[str, Any], anchor: str, is_open: bool) -> str:
    failed = _failed(case)
    timeline = [_map(e) for e in _list(case.get("timeline"))]
    offenders = _offenders(failed)
    event_anchor = {i: f"{anchor}-ev{i}" for e in timeline if (i := _int(e.get("index"))) is not None}
    parts = [f"{len(failed)} failed rule{'s' * (len(failed) != 1)}"] if failed else []
    parts += ["full message"] if not failed and case.get("message") else []
    marks = [f"#{i}" for i in sorted(offenders) if i in event_anchor]
    if timeline:
        parts.append(f"timeline of {len(timeline)} events" + (f", offending {', '.join(marks)}" if marks else ""))
    parts.append("repro command")
    body = [f'<details class="case-detail" id="{anchor}-more"{" open" if is_open else ""}>'
            f'<summary>{_e(" · ".join(parts))}</summary><div class="detail-body">']
    body += [_failure(r, anchor, event_anchor) for r in failed]
    if not failed and case.get("message"):
        body.append(f"<pre>{_e(case['message'])}</pre>")
    if timeline:
        body.append(_timeline(anchor, timeline, offenders))
    body.append(f'<h3>Run this case alone</h3><pre class="repro"><code>{_e(case.get("repro", ""))}</code></pre>')
    body.append(_details(_map(case.get("details"))))
    body.append("</div></details>")
    return "".join(body)


def _first_to_open(cases: Sequence[Mapping[str, Any]]) -> int | None:
    """The case whose detail is open on load: the first failure that points at an event of its timeline (the
    reader sees where the stream went wrong), else the first failed or errored case."""
    candidates = [n for n, c in enumerate(cases) if _outcome(c) in ("failed", "error")]
    for n in candidates:
        indices = {_int(_map(e).get("index")) for e in _list(cases[n].get("timeline"))}
        if set(_offenders(_failed(cases[n]))) & indices:
            return n
    return candidates[0] if candidates else None


def _cases(view: _View) -> str:
    rows: list[str] = []
    open_n = _first_to_open(view.cases)
    for n, case in enumerate(view.cases):
        anchor, outcome, failed = view.anchors[n], _outcome(case), _failed(case)
        results = [_map(r) for r in _list(case.get("results"))]
        judged = failed or results
        levels = " ".join(sorted({str(r.get("level")) for r in judged}))
        families = " ".join(sorted({str(r.get("family")) for r in judged}))
        search = " ".join([str(case.get("id", "")), *(str(r.get("rule", "")) for r in failed)]).lower()
        message = str(case.get("message", "")).strip().split("\n", 1)[0]
        if len(message) > _TABLE_MESSAGE_CHARS:
            message = message[:_TABLE_MESSAGE_CHARS] + "…"
        baseline = case.get("baseline")
        mark = f' <span class="badge">baseline {_e(baseline)}</span>' if baseline else ""
        has_detail = outcome != "passed" and (failed or case.get("message") or case.get("timeline"))
        link = f'<a href="#{anchor}-more">{_e(case.get("id", ""))}</a>' if has_detail else _e(case.get("id", ""))
        rows.append(f'<tr class="case" id="{anchor}" data-outcome="{outcome}" data-levels="{_e(levels)}" '
                    f'data-families="{_e(families)}" data-search="{_e(search)}">'
                    f'<td class="id"><code>{link}</code></td><td class="o o-{outcome}">{outcome}{mark}</td>'
                    f'<td>{_rule_chips(failed)}</td><td class="msg">{_e(message)}</td></tr>')
        if has_detail:
            rows.append(f'<tr class="detail" id="{anchor}-detail"><td colspan="4">'
                        f"{_case_detail(case, anchor, n == open_n)}</td></tr>")
    return ('<table class="cases"><thead><tr><th>case</th><th>outcome</th><th>failed rules</th><th>message</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            '<p class="no-match muted" hidden>No case matches these filters.</p>')


def _section(view: _View, numbered: bool) -> str:
    return (f'<section class="report" id="{view.id}" data-index="{view.index}">{"".join(_header(view, numbered))}'
            f"{_filters(view)}{_cases(view)}</section>")


def _matrix(views: Sequence[_View]) -> tuple[str, bool]:
    """The scenarios x implementations table, and whether some scenario is not clean (failed somewhere)."""
    scenarios = sorted({str(c.get("scenario", c.get("id", ""))) for v in views for c in v.cases})
    head = "".join(
        f'<th scope="col" class="impl" title="{_e(v.label)}"><a href="#{v.id}">#{v.index + 1}</a> '
        f'{_badges(v)}<code>{_e(v.label)}</code>'
        f'<span class="muted">{_e(v.report.get("profile", ""))}'
        f'{" · " + _e(_map(v.report.get("target")).get("upstream_dialect")) if _map(v.report.get("target")).get("upstream_dialect") else ""}'  # noqa: E501
        "</span></th>" for v in views)
    by_scenario: list[dict[str, list[tuple[int, Mapping[str, Any]]]]] = []
    for view in views:
        grouped: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
        for n, case in enumerate(view.cases):
            grouped.setdefault(str(case.get("scenario", case.get("id", ""))), []).append((n, case))
        by_scenario.append(grouped)
    rows: list[str] = []
    any_problem = False
    for scenario in scenarios:
        cells: list[str] = []
        clean = True
        for view, grouped in zip(views, by_scenario, strict=True):
            cases = grouped.get(scenario, [])
            if not cases:
                cells.append('<td class="cell o-none" title="not in this report">&ndash;</td>')
                continue
            worst = max((_outcome(c) for _, c in cases), key=lambda o: _SEVERITY[o])
            bad = [(n, c) for n, c in cases if _outcome(c) not in ("passed", "skipped")]
            clean = clean and not bad
            lines = [f"{scenario}: {len(cases) - len(bad)} of {len(cases)} cases passed or skipped"]
            for _, case in bad:
                rules = ", ".join(f"{r.get('rule', '?')} [{r.get('level', '?')}]" for r in _failed(case))
                lines.append(f"{case.get('group', case.get('id', ''))} {_outcome(case)}: "
                             f"{rules or str(case.get('message', '')).split(chr(10), 1)[0][:160]}")
            target = view.anchors[bad[0][0] if bad else cases[0][0]]
            count = f" {len(bad)}/{len(cases)}" if bad else ""
            cells.append(f'<td class="cell o-{worst}" title="{_e(chr(10).join(lines))}">'
                         f'<a href="#{target}">{_CELL_TEXT[worst]}{count}</a></td>')
        any_problem = any_problem or not clean
        rows.append(f'<tr data-clean="{int(clean)}"><th scope="row"><code>{_e(scenario)}</code></th>'
                    f'{"".join(cells)}</tr>')
    table = (f'<section id="matrix"><h2>Scenarios &times; implementations</h2>'
             '<div class="matrix-tools"><label><input type="checkbox" id="matrix-problems"> only scenarios that '
             'failed or errored somewhere</label><span id="matrix-shown"></span></div>'
             '<p class="muted">Each cell is the worst outcome of the scenario\'s cases (error, failed, xfailed, '
             'passed; skipped only if all were); hover for the failed rules, click for the case.</p>'
             f'<table class="matrix"><thead><tr><th scope="col">scenario</th>{head}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table></section>')
    return table, any_problem


def render_html(reports: Sequence[Mapping[str, Any]]) -> str:
    """One self-contained HTML page for one report, or a comparison of several (a matrix, then each report)."""
    if not reports:
        raise ValueError("render_html needs at least one report")
    views = [_View(i, r) for i, r in enumerate(reports)]
    several = len(views) > 1
    body: list[str] = []
    matrix_default = False
    if several:
        title = f"callproof: {len(views)} implementations compared"
        body.append(f"<h1>{_e(title)}</h1>")
        body.append('<nav class="reports">' + "".join(
            f'<a href="#{v.id}">#{v.index + 1} {_badges(v)} <code>{_e(v.label)}</code></a>' for v in views)
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
    csp = (f"default-src 'none'; style-src '{_sha256(_CSS)}'; script-src '{_sha256(_JS)}'; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="callproof">'
        f'<link rel="icon" href="data:,"><title>{_e(title)}</title><style>{_CSS}</style></head>\n'
        f'<body data-ready="0"><main>{"".join(body)}</main>\n'
        f'<script type="application/json" id="callproof-meta">{_json_for_script(meta)}</script>\n'
        f"<script>{_JS}</script></body></html>\n"
    )
