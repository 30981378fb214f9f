"""The HTML report's detail of one case that did not pass: each failed rule with its statement, message, evidence
(linked to the offending event), further violations, stream excerpt, fix and spec section; the event timeline with
the offending events highlighted and the far ones folded; the repro command and the case's details."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from callproof.harness import JSONValue
from callproof.harness.catalogue import RULES
from callproof.harness.report_model import ABSENT, Case, ReportEvidence, RuleOutcome, TimelineEvent

from ._text import e, json_text, plural, rule_chips, slug

__all__ = ["case_detail", "first_to_open"]

#: Timeline rows further than this from every offending event are folded away (the button shows them).
_CONTEXT = 4
#: A gap between two events from this many milliseconds up is marked.
_LONG_GAP_MS = 100.0


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}"


def _evidence(evidence: ReportEvidence, event_anchor: Mapping[int, str]) -> str:
    rows: list[str] = []
    index = evidence.event_index
    if evidence.turn is not None:  # another turn of the socket than the timeline's: its events are not there
        rows.append(f"<dt>turn</dt><dd>{e(evidence.turn)} of the socket (not the timeline's stream)</dd>")
    if index is not None or evidence.event_type is not None or evidence.offset is not None:
        where = ""
        if index is not None:
            where = (f'<a href="#{event_anchor[index]}">event #{index}</a>'
                     if index in event_anchor and evidence.turn is None else f"event #{index}")
        if evidence.event_type is not None:
            where += f" <code>{e(evidence.event_type)}</code>"
        if evidence.offset is not None:
            where += f" at byte {e(evidence.offset)}"
        rows.append(f"<dt>where</dt><dd>{where.strip()}</dd>")
    if evidence.path is not None:
        rows.append(f"<dt>path</dt><dd><code>{e(evidence.path)}</code></dd>")
    for key, value in (("expected", evidence.expected), ("actual", evidence.actual)):
        if value is not ABSENT:
            text = json_text(value)
            shown = f"<pre>{e(text)}</pre>" if text else '<span class="muted">(empty string)</span>'
            rows.append(f"<dt>{key}</dt><dd>{shown}</dd>")
    return f'<dl class="evidence">{"".join(rows)}</dl>' if rows else ""


def _failure(result: RuleOutcome, anchor: str, event_anchor: Mapping[int, str]) -> str:
    out = [f'<div class="failure f-{slug(result.level)}" id="{anchor}-{slug(result.rule)}">',
           f'<h4>{rule_chips([result])} <span class="muted">[{e(result.level)}] {e(result.family)}</span></h4>']
    if result.statement:
        out.append(f'<p class="statement">{e(result.statement)}</p>')
    out.append(f"<p>{e(result.message)}</p>")
    rule = RULES.get(result.rule)
    if rule is not None and rule.timing:
        out.append('<p class="muted timing">Timing-sensitive rule: machine load can touch this verdict (it compares '
                   "the mock's write stamps with the harness's arrival stamps; see the case's calibration and "
                   "forwarding latency in its details).</p>")
    out.append(_evidence(result.evidence, event_anchor))
    violations, count = result.violations, result.count
    if violations or count > 1:
        kept = 1 + len(violations)
        seen = f"{count} violations seen" + (f", {kept} kept" if count > kept else "")
        items = "".join(f"<li><p>{e(v.message)}</p>{_evidence(v.evidence, event_anchor)}</li>" for v in violations)
        out.append(f"<details><summary>{e(seen)}: {len(violations)} more</summary><ol>{items}</ol></details>"
                   if violations else f'<p class="muted">{e(seen)}</p>')
    if result.excerpt is not None:
        out.append(f'<p class="label">excerpt of the raw stream around the violation</p>'
                   f'<pre class="excerpt">{e(result.excerpt)}</pre>')
    if result.fix:
        out.append(f"<p><b>fix:</b> {e(result.fix)}</p>")
    if result.spec:
        out.append(f'<p class="spec">spec: {e(result.spec)}</p>')
    out.append("</div>")
    return "".join(out)


def _offenders(failed: Sequence[RuleOutcome]) -> dict[int, list[RuleOutcome]]:
    """Event index -> the failed rules whose evidence points at it (the first violation, then the others)."""
    found: dict[int, list[RuleOutcome]] = {}
    for result in failed:
        for evidence in result.evidences:
            index = evidence.event_index if evidence.turn is None else None  # the timeline is the case's own answer
            if index is not None and all(r is not result for r in found.setdefault(index, [])):
                found[index].append(result)
    return found


def _timeline(anchor: str, timeline: Sequence[TimelineEvent], by_event: Mapping[int, Sequence[RuleOutcome]]) -> str:
    indices = [event.index for event in timeline]
    marked = [n for n, i in enumerate(indices) if i in by_event]
    condense = bool(marked) and len(timeline) > 4 * _CONTEXT + 4
    near = {n for m in marked for n in range(m - _CONTEXT, m + _CONTEXT + 1)} | {0, len(timeline) - 1}
    rows: list[str] = []
    previous: float | None = None
    folded = 0
    for n, event in enumerate(timeline):
        t_ms = float(event.t_ms)
        gap = t_ms - previous if previous is not None else t_ms
        previous = t_ms
        far = condense and n not in near
        if condense and not far and folded:
            rows.append(f'<tr class="elide"><td colspan="6">{folded} event{"s" * (folded != 1)} folded</td></tr>')
            folded = 0
        folded += far
        rules = by_event.get(event.index, [])
        classes = " ".join(c for c in ("offending" if rules else "", "far" if far else "") if c)
        attrs = (f' class="{classes}"' if classes else "") + f' id="{anchor}-ev{event.index}"'
        gap_class = "num gap-long" if n and gap >= _LONG_GAP_MS else "num"
        rows.append(f'<tr{attrs}><td class="num">{e(event.index)}</td>'
                    f'<td><code>{e(event.type)}</code></td><td class="num">{_ms(t_ms)}</td>'
                    f'<td class="{gap_class}">{_ms(gap)}</td><td class="num">{e(event.offset)}</td>'
                    f'<td class="by">{rule_chips(rules)}</td></tr>')
    table_id = f"{anchor}-timeline"
    button = (f'<button type="button" id="{table_id}-toggle" hidden data-all="show all {len(timeline)} events" '
              f'data-near="show only the events near the failure"></button>') if condense else ""
    marks = ", ".join(f'<a href="#{anchor}-ev{i}">#{i}</a>' for i in sorted(by_event) if i in indices)
    caption = (f"{len(timeline)} events as they arrived (t: milliseconds since the request was sent)"
               + (f"; the stream went wrong at event {marks}" if marks else ""))
    return (f'<h3>Event timeline</h3><p class="muted">{caption} {button}</p>'
            f'<div class="timeline-wrap"><table class="timeline" id="{table_id}"{" data-condense" if condense else ""}>'
            '<thead><tr><th>#</th><th>event type</th><th>t (ms)</th><th>gap (ms)</th><th>byte offset</th>'
            f'<th>flagged by</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _details(details: Mapping[str, JSONValue]) -> str:
    rows = []
    for key, value in details.items():
        text = json_text(value)
        shown = f"<pre>{e(text)}</pre>" if "\n" in text or len(text) > 100 else f"<code>{e(text)}</code>"
        rows.append(f"<dt>{e(key)}</dt><dd>{shown}</dd>")
    return f'<h3>Details</h3><dl class="evidence">{"".join(rows)}</dl>' if rows else ""


def _repeats(case: Case) -> str:
    """A flaky case's repeats, one line each: the outcome and the rules that failed in it."""
    rows = case.repeats
    items = "".join(
        f'<li><span class="o-{e(r.get("outcome"))}">{e(r.get("outcome"))}</span>'
        + (f" <code>{e(' '.join(map(str, failed)))}</code>" if isinstance(failed := r.get("failed"), list)
           and failed else "") + "</li>"
        for r in rows)
    return f'<h3>Flaky: the {len(rows)} repeats disagree</h3><ol class="repeats">{items}</ol>'


def case_detail(case: Case, anchor: str, is_open: bool) -> str:
    """The collapsible detail of a case (open on load when `is_open`); its ids start with `anchor`."""
    failed, timeline = case.failed, case.timeline or ()
    by_event = _offenders(failed)
    event_anchor = {event.index: f"{anchor}-ev{event.index}" for event in timeline}
    parts = [plural(len(failed), "failed rule")] if failed else []
    parts += ["full message"] if not failed and case.message else []
    marks = [f"#{i}" for i in sorted(by_event) if i in event_anchor]
    if timeline:
        parts.append(f"timeline of {len(timeline)} events" + (f", offending {', '.join(marks)}" if marks else ""))
    parts.append("repro command")
    body = [f'<details class="case-detail" id="{anchor}-more"{" open" if is_open else ""}>'
            f'<summary>{e(" · ".join(parts))}</summary><div class="detail-body">']
    if case.outcome == "flaky":
        body.append(_repeats(case))
    body += [_failure(r, anchor, event_anchor) for r in failed]
    if not failed and case.message:
        body.append(f"<pre>{e(case.message)}</pre>")
    if timeline:
        body.append(_timeline(anchor, timeline, by_event))
    body.append(f'<h3>Run this case alone</h3><pre class="repro"><code>{e(case.repro)}</code></pre>')
    body.append(_details(case.details))
    body.append("</div></details>")
    return "".join(body)


def first_to_open(cases: Sequence[Case]) -> int | None:
    """The case whose detail is open on load: the first failure that points at an event of its timeline (the
    reader sees where the stream went wrong), else the first failed or errored case."""
    candidates = [n for n, c in enumerate(cases) if c.outcome in ("failed", "flaky", "error")]
    for n in candidates:
        indices = {event.index for event in cases[n].timeline or ()}
        if set(_offenders(cases[n].failed)) & indices:
            return n
    return candidates[0] if candidates else None
