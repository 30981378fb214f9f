"""The HTML report (reports/_html.py): its structure checked without a browser (self-contained, escaped, banner,
highlighted offending event, matrix). The page in a real headless Chromium: tests/reports/test_html_browser.py.

The reports are the shared fixtures in tests/reports/data/ when they exist; otherwise real runs made here, in
process, of the broken fake gateway (tests/fakes/gateways.py --defect mixed_interleaved_args) and the correct one.
"""

from __future__ import annotations

import copy
import html
import json
import re
import time
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.reports._html import render_html
from tests import fakes

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
GATEWAY = fakes.launch()
#: The fallback runs: a reassembly failure whose evidence points at an event of the case's timeline, an expected
#: failure without an event, and a case that passes.
CASES = ("interleaved_round_robin::reassembly", "interleaved_round_robin::expected", "one_call::identity")
#: Every tag the renderer writes: anything else in a page was smuggled in by a report.
TAGS = {"html", "head", "meta", "link", "title", "style", "body", "main", "h1", "h2", "h3", "h4", "p", "a", "span",
        "code", "pre", "nav", "section", "div", "ul", "ol", "li", "dl", "dt", "dd", "form", "label", "select",
        "option", "input", "button", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "b",
        "script"}
HOSTILE = "<script>alert(1)</script>"


# -- reports ---------------------------------------------------------------------------------------------------


def _run(defect: str | None) -> dict[str, Any]:
    """A real report: the fake gateway run through the harness as `callproof run --launch` runs it."""
    from callproof.harness.judge import CaseSpec
    from callproof.harness.run import Harness, RunConfig, build_report, case_of, scenario_set_hash

    launch = GATEWAY.replace("--upstream", f"--defect {defect} --upstream") if defect else GATEWAY
    config = RunConfig(launch=launch, case_timeout=15)
    started, clock = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*case.split("::"))) for case in CASES]
        scenario_hash = scenario_set_hash(harness.scenarios.values())
    return build_report(config, [case_of(r, config) for r in results], started_at=started,
                        duration_s=time.monotonic() - clock, command=["callproof", "run", "--launch", launch],
                        scenario_hash=scenario_hash).to_json()


def _report(name: str, defect: str | None) -> dict[str, Any]:
    path = DATA / name
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else _run(defect)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    return report


@pytest.fixture(scope="module")
def failing() -> dict[str, Any]:
    return _report("failing.json", "mixed_interleaved_args")


@pytest.fixture(scope="module")
def passing() -> dict[str, Any]:
    return _report("passing.json", None)


@pytest.fixture(scope="module")
def incomplete(passing: dict[str, Any]) -> dict[str, Any]:
    """tests/reports/data/incomplete.jsonl (a run cut off mid-way) when it exists, else a cut passing report."""
    path = DATA / "incomplete.jsonl"
    if path.exists():
        from callproof.reports import load_report

        return load_report(path)
    report = copy.deepcopy(passing)
    report["cases"], report["complete"] = report["cases"][:1], False
    return report


def _offending(report: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A failed case, its failed result and the timeline event the result's evidence points at."""
    for case in report["cases"]:
        events = {e["index"]: e for e in case.get("timeline", [])}
        for result in case["results"]:
            index = result["evidence"].get("event_index")
            if result["outcome"] == "failed" and index in events:
                return case, result, events[index]
    raise AssertionError("the failing report has no failed rule whose evidence.event_index is in its timeline")


# -- parsing ---------------------------------------------------------------------------------------------------


class Page(HTMLParser):
    """Every start tag with its attributes, and the text of each <script> and <style>."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.raw: list[tuple[str, dict[str, str], str]] = []
        self._open: tuple[str, dict[str, str]] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        if tag in ("script", "style"):
            self._open = (tag, attributes)
            self.raw.append((tag, attributes, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            tag, attributes, text = self.raw[-1]
            self.raw[-1] = (tag, attributes, text + data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            self._open = None

    def with_class(self, name: str, tag: str | None = None) -> list[dict[str, str]]:
        return [a for t, a in self.tags if name in a.get("class", "").split() and tag in (None, t)]


def _classes(page: str, element_id: str) -> list[str]:
    found = [a for _, a in Page(page).tags if a.get("id") == element_id]
    assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
    return found[0].get("class", "").split()


# -- structure -------------------------------------------------------------------------------------------------


def test_the_page_is_self_contained(failing: dict[str, Any], passing: dict[str, Any]) -> None:
    page = render_html([failing, passing])
    parsed = Page(page)
    for tag, attrs in parsed.tags:
        assert not (tag == "link" and "stylesheet" in attrs.get("rel", "")), "an external stylesheet"
        for name in ("src", "href", "action", "formaction", "srcset", "poster", "data", "background"):
            value = attrs.get(name)
            assert value is None or value.startswith(("#", "data:")), f"<{tag} {name}={value!r}> fetches something"
    assert not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    for tag, attrs, text in parsed.raw:
        if attrs.get("type") == "application/json":
            continue
        for needle in ("http:", "https:", "url(", "@import", "fetch(", "XMLHttpRequest", "WebSocket", "import("):
            assert needle not in text, f"{needle!r} in an inline <{tag}>"
    [csp] = [a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp


def test_everything_from_the_report_is_escaped(failing: dict[str, Any]) -> None:
    hostile = copy.deepcopy(failing)
    hostile["target"]["command"] = f'"><img src=x onerror=alert(2)>{HOSTILE}</script><!--'
    hostile["command"] = [HOSTILE]
    case, result, _ = _offending(hostile)
    case["message"] = HOSTILE
    case["details"]["stderr_tail"] = f"</pre>{HOSTILE}"
    case["timeline"][0]["type"] = f"<b onmouseover=alert(3)>{HOSTILE}"
    result["excerpt"] = f"</pre></details>{HOSTILE}"
    result["evidence"]["actual"] = {"x": HOSTILE}
    result["rule"] = 'X"><script>alert(4)</script>'
    page = render_html([hostile, failing])

    assert "<script>alert" not in page and "<img" not in page and "<b onmouseover" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<pre class="excerpt">&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(1)' in page
    parsed = Page(page)
    assert {t for t, _ in parsed.tags} <= TAGS
    assert not [name for _, attrs in parsed.tags for name in attrs if name.startswith("on")]
    scripts = [(a, text) for t, a, text in parsed.raw if t == "script"]
    assert [a.get("type") for a, _ in scripts] == ["application/json", None]
    meta = json.loads(scripts[0][1])  # the embedded JSON survives intact, `</script>` and all
    assert meta["reports"][0]["label"] == hostile["target"]["command"]
    assert "</" not in scripts[0][1] and "<!--" not in scripts[0][1]


def test_an_incomplete_run_has_a_banner(passing: dict[str, Any], incomplete: dict[str, Any]) -> None:
    assert incomplete["complete"] is False
    assert Page(render_html([incomplete])).with_class("incomplete-banner")
    assert not Page(render_html([passing])).with_class("incomplete-banner")
    assert "Incomplete run" in render_html([passing, incomplete])


def test_the_verdict_counts_rules_and_cases_and_never_calls_nothing_conformant(
    failing: dict[str, Any], passing: dict[str, Any]
) -> None:
    page = render_html([failing])
    failing_cases = [c for c in failing["cases"] if c["outcome"] == "failed"
                     and any(r["outcome"] == "failed" and r["level"] == "MUST" for r in c["results"])]
    rules = {r["rule"] for c in failing_cases for r in c["results"]
             if r["outcome"] == "failed" and r["level"] == "MUST"}
    assert ('<span class="verdict v-fail">not conformant</span>' in page
            and f"{len(rules)} MUST rules failed in {len(failing_cases)} cases; 1 case could not be judged" in page)
    skipped = copy.deepcopy(passing)
    skipped["cases"] = [{**c, "outcome": "skipped", "results": [], "message": "does not apply"}
                        for c in skipped["cases"][:7]]
    skipped["summary"] = {**skipped["summary"], "cases": 7, "passed": 0, "skipped": 7}
    page = render_html([skipped])
    assert '<span class="verdict v-fail">nothing judged</span>' in page and "conformant" not in page
    assert f"no case was judged: 7 cases: 7 skipped; {skipped['cases'][0]['id']}: does not apply" in page


def test_the_offending_event_is_highlighted(failing: dict[str, Any]) -> None:
    case, result, event = _offending(failing)
    page = render_html([failing])
    parsed = Page(page)
    anchor = "r0-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", case["id"])
    event_id = f"{anchor}-ev{event['index']}"
    assert "offending" in _classes(page, event_id)
    match = re.search(rf'<tr class="offending[^"]*" id="{re.escape(event_id)}">(.*?)</tr>', page)
    assert match and event["type"] in match.group(1) and result["rule"] in match.group(1)
    assert [a for t, a in parsed.tags if t == "a" and a.get("href") == f"#{event_id}"], "no link to the event"
    for text in (result["message"], result["fix"], result.get("excerpt", ""), case["repro"]):
        assert html.escape(text) in page
    # One case's detail is open on load, a failure with its offending event highlighted: the reader lands on it.
    [opened] = [a["id"] for t, a in parsed.tags if t == "details" and "open" in a and "case-detail" in a["class"]]
    assert parsed.with_class("offending") and any(
        a.get("id", "").startswith(opened.removesuffix("-more") + "-ev") for a in parsed.with_class("offending"))


def test_an_event_of_another_turn_of_the_socket_is_named_not_linked(failing: dict[str, Any]) -> None:
    """Over a WebSocket front a failure may lie in another turn of the socket than the case's own answer (whose
    stream the timeline is): its evidence names the turn and neither links nor marks the timeline's event of that
    index."""
    report = copy.deepcopy(failing)
    case, _, event = _offending(report)
    for each in case["results"]:
        for evidence in (each["evidence"], *(v["evidence"] for v in each["violations"])):
            evidence["turn"] = 2
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    page = render_html([report])
    event_id = "r0-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", case["id"]) + f"-ev{event['index']}"
    assert "offending" not in _classes(page, event_id)
    assert not [a for t, a in Page(page).tags if t == "a" and a.get("href") == f"#{event_id}"]
    assert "<dt>turn</dt><dd>2 of the socket (not the timeline's stream)</dd>" in page


def test_the_case_table_and_its_filters(failing: dict[str, Any]) -> None:
    parsed = Page(render_html([failing]))
    rows = parsed.with_class("case", "tr")
    assert [r["data-outcome"] for r in rows] == [c["outcome"] for c in failing["cases"]]
    failed_families = {r["family"] for c in failing["cases"] for r in c["results"] if r["outcome"] == "failed"}
    options = {a.get("value") for t, a in parsed.tags if t == "option"}
    assert {"not-passed", "all", "failed", "MUST", "SHOULD", *failed_families} <= options
    assert [t for t, a in parsed.tags if t == "input" and a.get("name") == "q"]
    assert not parsed.with_class("matrix"), "a single report has no matrix"


def test_the_matrix_has_one_column_per_report(failing: dict[str, Any], passing: dict[str, Any]) -> None:
    page = render_html([failing, passing, failing])
    parsed = Page(page)
    assert len(parsed.with_class("impl", "th")) == 3
    [table] = re.findall(r'<table class="matrix">.*?</table>', page, re.DOTALL)
    body_rows = re.findall(r"<tr data-clean=.*?</tr>", table, re.DOTALL)
    scenarios = {c["scenario"] for r in (failing, passing) for c in r["cases"]}
    assert len(body_rows) == len(scenarios)
    assert all(row.count('class="cell ') == 3 for row in body_rows)
    case, result, _ = _offending(failing)
    [row] = [r for r in body_rows if f"<code>{case['scenario']}</code>" in r]
    cells = re.findall(r'<td class="cell (o-[a-z]+)" title="([^"]*)"', row)
    severity = ["skipped", "passed", "xfailed", "failed", "error"]  # the worst outcome colours the cell
    worst = max((c["outcome"] for c in failing["cases"] if c["scenario"] == case["scenario"]), key=severity.index)
    assert cells[0][0] == cells[2][0] == f"o-{worst}" and result["rule"] in cells[0][1]
    assert cells[1][0] == ("o-passed" if case["scenario"] in {c["scenario"] for c in passing["cases"]} else "o-none")
    for index in range(3):
        assert f'<section class="report" id="r{index}"' in page


def test_no_report_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one report"):
        render_html([])


def test_the_matrix_names_each_columns_dialects(passing: dict[str, Any]) -> None:
    """Several front x upstream combinations of one gateway side by side: the columns say which is which."""
    combos = [("responses", "chat"), ("chat", "responses"), ("anthropic", "anthropic")]
    reports = [{**passing, "target": {**passing["target"], "front": f, "upstream_dialect": u}} for f, u in combos]
    heads = re.findall(r'<th scope="col" class="impl".*?</th>', render_html(reports), re.DOTALL)
    assert [f"{f} front, {u} upstream" in h for h, (f, u) in zip(heads, combos, strict=True)] == [True] * 3


def test_the_counts_are_the_terminal_s(failing: dict[str, Any]) -> None:
    """The header counts cases in the words of the terminal and pytest's last line (docs/report.md#counts)."""
    page = render_html([failing])
    [counts] = re.findall(r'<ul class="counts">.*?</ul>', page)
    chips = re.findall(r'<li class="c-[^"]*"><b>(\d+)</b>([^<]+)</li>', counts)
    assert [(word, int(n)) for n, word in chips] == [
        ("cases", 24), ("failed", 16), ("passed", 4), ("skipped", 1), ("xfailed", 1), ("error", 1),
        ("SHOULD-failed", 1), ("stale baseline", 1)]


def test_the_matrix_and_the_header_name_a_websocket_transport(passing: dict[str, Any]) -> None:
    """An HTTP run and a WebSocket run of one gateway: the columns and the headers tell them apart; a report from
    before the transports were recorded reads as HTTP, which goes unsaid."""
    ws = {**passing, "target": {**passing["target"], "front": "responses", "upstream_dialect": "responses",
                                "front_transport": "websocket", "upstream_transport": "websocket"}}
    page = render_html([passing, ws])
    heads = re.findall(r'<th scope="col" class="impl".*?</th>', page, re.DOTALL)
    assert "WebSocket" not in heads[0] and "responses front, chat upstream" in heads[0]
    phrase = "responses front over WebSocket, responses upstream over WebSocket"
    assert phrase in heads[1]
    assert f"<code>launch</code>, {phrase}</dd>" in page


def test_the_run_policies_are_shown_beside_the_profile(failing: dict[str, Any]) -> None:
    assert "<dt>policy</dt>" not in render_html([failing])
    failing["target"]["policy"] = {"xml-tool-text": "convert"}
    assert "<dt>policy</dt><dd><code>xml-tool-text=convert</code></dd>" in render_html([failing])
