"""Findings attributed to the upstream (docs/spec/contracts.md §7.8): a gateway relaying, byte for byte, the
arguments that are not JSON which the scenario's upstream played on purpose passes, with the front's stream-rule
finding shown as the upstream's; the reference gateway, which fails the response, passes too; a gateway that changes
the bytes fails GW-ARGS-001 and the stream rule. Real gateways (tests/fakes/) against a real mock on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RULES, Evidence, RuleResult, Violation
from callproof.harness.judge import ATTRIBUTABLE, CaseResult, attribute_to_upstream
from callproof.harness.outcome import Call, Result
from callproof.harness.report_model import Report, Summary
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._reporting import build_report, case_of
from callproof.mock_server import bundled_scenarios
from callproof.reports import render_html, render_junit, render_markdown
from tests import fakes

FRONTS: tuple[Dialect, ...] = ("responses", "chat", "anthropic")
SCENARIOS = ("malformed_args_completed", "malformed_beside_valid")
FORWARDING = f"{sys.executable} -m tests.fakes.args_gateways --upstream {{upstream}} --port {{port}}"
TEXT = '{"city": "Paris"'
NOTE = ('the upstream\'s own arguments "{\\"city\\": \\"Paris\\"", relayed byte for byte: the upstream\'s fault, '
        "not the gateway's (docs/spec/contracts.md §7.8: a gateway passes such arguments through or fails the "
        "response)")
#: The front's own words for the text, before the note (the checker's message, its capture caveat left out).
WORDS = {"responses": 'arguments "{{\\"city\\": \\"Paris\\"" are not valid JSON',
         "chat": 'tool call {n} arguments "{{\\"city\\": \\"Paris\\"" are not valid JSON',
         "anthropic": 'tool_use block {n}: joined partial_json "{{\\"city\\": \\"Paris\\"" is not valid JSON'}
DETAIL = " (Expecting ',' delimiter: line 1 column 17 (char 16)); "


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _run(launch: str, front: Dialect) -> list[CaseResult]:
    config = RunConfig(launch=f"{launch} --upstream-dialect chat", front=front, upstream_dialect="chat",
                       case_timeout=15)
    with Harness(config) as harness:
        return [harness.judge(s) for s in harness.cases() if s.scenario in SCENARIOS]


def _report(results: Sequence[CaseResult], front: Dialect) -> Report:
    config = RunConfig(launch=FORWARDING, front=front)
    cases = [case_of(r, config) for r in results]
    report = build_report(config, cases, started_at="2026-01-01T00:00:00Z", duration_s=0.0, command=["x"],
                          scenario_hash="0123456789abcdef")
    return Report.from_json(report.to_json())  # through the JSON and its schema


@pytest.mark.parametrize("front", FRONTS)
def test_a_gateway_relaying_the_upstream_bytes_passes_with_the_finding_attributed(front: Dialect) -> None:
    results = _run(FORWARDING, front)
    assert {r.outcome for r in results} <= {"passed", "skipped"}, [(r.spec.id, r.message) for r in results]
    rule = ATTRIBUTABLE[front]
    for scenario, n in (("malformed_args_completed", 0), ("malformed_beside_valid", 1)):
        case = next(r for r in results if r.spec.id == f"{scenario}::reassembly")
        attributed = [r for r in case.results if r.outcome == "upstream"]
        assert [r.rule.id for r in attributed] == [rule]
        assert attributed[0].violations[0].message == WORDS[front].format(n=n) + DETAIL + NOTE
        first = attributed[0].violations[0].message
        assert case.message == f"{rule} MUST attributed to the upstream, not failed: {first}"
    arguments = [r for r in results if r.spec.group == "arguments"]
    assert [r.outcome for r in arguments] == ["passed", "passed"]
    report = _report(results, front)
    assert report.summary.upstream == 2 and report.summary.failed == 0
    assert report.summary.to_json()["upstream"] == 2
    shown = [c for c in report.cases if c.attributed]
    assert [(c.id, c.outcome, [r.rule for r in c.attributed]) for c in shown] == [
        (f"{s}::reassembly", "passed", [rule]) for s in SCENARIOS]


@pytest.mark.parametrize("front", FRONTS)
def test_the_reference_gateway_failing_the_response_passes_with_nothing_attributed(front: Dialect) -> None:
    results = _run(fakes.launch(), front)
    assert {r.outcome for r in results} <= {"passed", "skipped"}, [(r.spec.id, r.message) for r in results]
    assert not [r for c in results for r in c.results if r.outcome == "upstream"]
    summary = _report(results, front).summary
    assert summary.upstream == 0 and "upstream" not in summary.to_json()


def test_a_gateway_changing_the_bytes_is_the_gateway_s_fault() -> None:
    results = {r.spec.id: r for r in _run(fakes.launch("gateways", "mangles_malformed_arguments"), "chat")}
    assert [r.rule.id for r in results["malformed_args_completed::arguments"].failed] == ["GW-ARGS-001"]
    (reassembly,) = results["malformed_args_completed::reassembly"].failed
    assert reassembly.rule.id == "CHAT-TC-006"
    assert not [r for c in results.values() for r in c.results if r.outcome == "upstream"]
    # a run can tell whose fault it is: the capture caveat of `callproof check` (RELAY_CAVEAT) is not in its message
    assert [v.message for v in reassembly.violations] == [
        'tool call 0 arguments "{\\"city\\": \\"Pais" are not valid JSON '
        '(Unterminated string starting at: line 1 column 10 (char 9))']


# -- the conditions, one at a time ------------------------------------------------------------------------------

SCENARIO = bundled_scenarios()["malformed_args_completed"]


def _failed(rule: str, actual: str, count: int = 1) -> RuleResult:
    return RuleResult(RULES[rule], "failed", (Violation(rule, "m", Evidence(actual=actual)),), count)


def _answer(*arguments: str) -> Result:
    calls = (Call("call_malformed_1", "get_weather", arguments[0]), *(Call("c2", "get_time", a) for a in arguments[1:]))
    return Result(status="completed", text="", terminal="response.completed", calls=calls)


def test_the_relayed_text_is_attributed() -> None:
    (result,) = attribute_to_upstream([_failed("RSP-ARGS-004", TEXT)], SCENARIO, "responses", _answer(TEXT))
    assert result.outcome == "upstream" and result.violations[0].message == f"m; {NOTE}"


@pytest.mark.parametrize(("why", "rule", "scenario", "actual", "front_text", "count"), [
    ("another rule", "RSP-ID-004", "malformed_args_completed", TEXT, TEXT, 1),
    ("the front's text is not the upstream's", "RSP-ARGS-004", "malformed_args_completed", TEXT + " ", TEXT + " ", 1),
    ("another non-JSON call at the front", "RSP-ARGS-004", "malformed_args_completed", TEXT, "{", 1),
    ("a violation not kept", "RSP-ARGS-004", "malformed_args_completed", TEXT, TEXT, 2),
    ("empty arguments: the gateway sends '{}'", "RSP-ARGS-004", "empty_args_no_delta", "", "", 1),
])
def test_a_finding_is_attributed_only_when_every_condition_holds(why: str, rule: str, scenario: str, actual: str,
                                                                 front_text: str, count: int) -> None:
    given = _failed(rule, actual, count)
    answer = _answer(TEXT, front_text) if why == "another non-JSON call at the front" else _answer(front_text)
    assert attribute_to_upstream([given], bundled_scenarios()[scenario], "responses", answer) == (given,), why


def test_summary_counts_cases_with_an_attributed_finding_apart() -> None:
    assert Summary.from_json({k: 0 for k in ("cases", "passed", "failed", "skipped", "xfailed", "error",
                                             "must_failed", "should_failed", "stale_baseline")}).upstream == 0


# -- a cut relayed as a cut (docs/spec/contracts.md §7.8): GW-FAULT-003 passes it, the front's own rules fail it --

CUTS = {"responses": ("cuts_on_upstream_cut", {"lifecycle": ["RSP-LIFE-002"]}),
        "chat": ("chat_cuts_on_upstream_cut", {"framing": ["CHAT-FRAME-001"], "lifecycle": ["CHAT-FIN-001"]}),
        "anthropic": ("anthropic_cuts_on_upstream_cut",
                      {"lifecycle": ["ANT-LIFE-002"], "reassembly": ["ANT-TOOL-002"]})}


@pytest.mark.parametrize("front", FRONTS)
def test_a_bare_cut_is_the_gateway_s_finding_and_an_error_event_passes(front: Dialect) -> None:
    defect, failing = CUTS[front]
    for launch, want in ((fakes.launch("gateways", defect), failing), (fakes.launch(), {})):
        config = RunConfig(launch=f"{launch} --upstream-dialect chat", front=front, upstream_dialect="chat",
                           case_timeout=15)
        with Harness(config) as harness:
            results = [harness.judge(s) for s in harness.cases() if s.scenario == "fault_disconnect_after_events"]
        got = {r.spec.group: [x.rule.id for x in r.failed] for r in results if r.outcome != "passed"}
        assert got == want, [(r.spec.id, r.message) for r in results]
        assert next(r for r in results if r.spec.group == "faults").outcome == "passed"
        assert not [x for r in results for x in r.results if x.outcome == "upstream"]


def test_every_format_shows_the_attributed_findings() -> None:
    """Markdown lists them and counts their cases, HTML counts them, JUnit notes them on the passing testcase."""
    results = _run(FORWARDING, "chat")
    report = _report(results, "chat")
    markdown = render_markdown(report)
    assert "; 2 cases have a finding attributed to the upstream." in markdown
    assert "**Attributed to the upstream** (relayed byte for byte, not failed):" in markdown
    (line,) = [x for x in markdown.splitlines() if x.startswith("- `malformed_args_completed::reassembly` **")]
    assert "CHAT-TC-006" in line and "** MUST: tool call 0 arguments" in line and "relayed byte for byte" in line
    html = render_html([report])
    assert '<li class="c-upstream nonzero"><b>2</b>upstream</li>' in html
    assert html.count('<span class="badge upstream">CHAT-TC-006 upstream</span>') == 2
    assert "CHAT-TC-006 MUST attributed to the upstream, not failed: tool call 0 arguments" in html
    junit = render_junit(report)
    assert "MUST finding attributed to the upstream (relayed byte for byte; not failed):" in junit
    assert "<failure" not in junit


def test_callproof_run_exits_0_and_says_how_many_cases_have_an_attributed_finding(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "run", "--launch", FORWARDING, "--front",
                           "chat", "-k", "malformed_args_completed", "--report", "r.json"], cwd=tmp_path,
                          capture_output=True, text=True, env=fakes.env(), timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("callproof run: 9 cases: 9 passed; 1 case has a finding attributed to the upstream; report: r.json"
            in done.stdout)
    assert "cases: 9 passed; 1 case has a finding attributed to the upstream" in done.stdout.splitlines()
    assert ("MUST CHAT-TC-006 attributed to the upstream in malformed_args_completed::reassembly (not failed): "
            "tool call 0 arguments") in done.stdout
    summary = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["summary"]
    assert (summary["passed"], summary["failed"], summary["upstream"]) == (9, 0, 1)
