"""The raw excerpt beside a failed rule (harness/judge/_evidence.py): the event that failed, whole with some context
when it is short; for an event too long to show, the part around the field that failed (the evidence's JSON path,
the occurrence holding the actual value), never more than the Markdown shows, so the report's "stream around it"
holds what failed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from callproof.harness import check_bytes
from callproof.harness.catalogue import Evidence, RuleResult, Violation
from callproof.harness.judge import excerpts
from callproof.harness.scenario import FunctionCall, bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext
from callproof.reports import render_markdown

DATA = Path(__file__).resolve().parents[2] / "reports" / "data"


def _swapped_large_arguments() -> tuple[bytes, list[RuleResult]]:
    """large_arguments (a call whose arguments are a megabyte) with its call_id changed in the final event only."""
    scenario = bundled_scenarios()["large_arguments"]
    body = RENDERERS["responses"].stream(scenario, RenderContext(model="m", request={})).body
    call = scenario.output[0]
    assert isinstance(call, FunctionCall) and call.call_id is not None
    call_id = call.call_id
    at = body.rfind(call_id.encode())
    body = body[:at] + b"call_swapped" + body[at + len(call_id):]
    report = check_bytes(body, front="responses")
    return body, [r for r in report.results if r.outcome == "failed"]


def test_a_field_deep_in_a_long_event_is_in_the_excerpt() -> None:
    body, failed = _swapped_large_arguments()
    assert [r.rule.id for r in failed] == ["RSP-ID-006"]
    evidence = failed[0].violations[0].evidence
    assert evidence.path == "$.response.output[0].call_id" and evidence.offset is not None
    assert body.find(b'"call_id":"call_swapped"') - evidence.offset > 100_000  # far beyond the event's start
    (excerpt,) = excerpts(body, failed).values()
    assert '"call_id":"call_swapped"' in excerpt and len(excerpt.encode()) <= 1200


def test_a_short_event_is_shown_whole_with_what_surrounds_it() -> None:
    events = [b'event: a\ndata: {"type":"a"}\n\n', b'event: b\ndata: {"type":"b","pad":"' + b"x" * 400 +
              b'","call_id":"c_bad"}\n\n', b'event: c\ndata: {"type":"c"}\n\n']
    body = b"".join(events)
    offset = len(events[0])
    rule = check_bytes(b"", front="responses").results[0].rule
    evidence = Evidence(path="$.call_id", actual="c_bad", offset=offset)
    result = RuleResult(rule, "failed", (_violation(rule.id, evidence),), 1)
    excerpt = excerpts(body, [result])[rule.id]
    assert excerpt == body.decode()  # the event whole, the one before and the one after: 160 bytes each way


def test_the_occurrence_holding_the_actual_value_is_chosen() -> None:
    filler = ",".join(f'{{"call_id":"call_{n}","arguments":"{"y" * 300}"}}' for n in range(8))
    body = f'data: {{"type":"t","output":[{filler}]}}\n\n'.encode()
    rule = check_bytes(b"", front="responses").results[0].rule
    evidence = Evidence(path="$.output[6].call_id", actual="call_6", offset=0)
    excerpt = excerpts(body, [RuleResult(rule, "failed", (_violation(rule.id, evidence),), 1)])[rule.id]
    assert '"call_id":"call_6"' in excerpt and '"call_id":"call_0"' not in excerpt


def test_the_markdown_shows_the_failing_field() -> None:
    body, failed = _swapped_large_arguments()
    (excerpt,) = excerpts(body, failed).values()
    report = json.loads((DATA / "failing.json").read_text(encoding="utf-8"))
    case = next(c for c in report["cases"]
                if c["outcome"] == "failed" and any(r.get("excerpt") for r in c["results"]))
    result = next(r for r in case["results"] if r.get("excerpt"))
    result["excerpt"] = excerpt
    markdown = render_markdown(copy.deepcopy(report))
    shown = markdown.split("The stream around it:")
    assert any('"call_id":"call_swapped"' in part.split("```")[1] for part in shown[1:])


def _violation(rule: str, evidence: Evidence) -> Violation:
    return Violation(rule, "failed", evidence)
