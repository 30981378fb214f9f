"""`--repeat N` (harness/run/_repeat.py and the report): repeats that agree are the verdict; repeats that disagree
make the case flaky, never passed, with every repeat's outcome; a flaky MUST fails the run unless baselined, and the
report's formats, baselines and diffs name it so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from callproof.harness.judge import CaseResult, CaseSpec, Findings
from callproof.harness.report_model import Case, Summary, format_baseline, load_baseline
from callproof.harness.run import RunConfig
from callproof.harness.run._repeat import combine_repeats
from callproof.harness.run._reporting import case_of
from callproof.reports import diff_reports, render_html, render_junit, render_markdown

SPEC = CaseSpec("timing_ttft_and_gaps", "streaming")


def _result(*failing: str, outcome: str | None = None) -> CaseResult:
    findings = Findings()
    findings.check("GW-STREAM-001", "GW-STREAM-002")
    for rule in failing:
        findings.fail(rule, f"{rule} broke in this repeat")
    results = findings.results()
    verdict = outcome or ("failed" if failing else "passed")
    return CaseResult(SPEC, verdict, results, "\n".join(failing), 0.5, {"http_status": 200})  # type: ignore[arg-type]


def test_repeats_that_agree_are_the_verdict() -> None:
    combined = combine_repeats([_result("GW-STREAM-002"), _result("GW-STREAM-002")])
    assert (combined.outcome, combined.flaky, combined.seconds) == ("failed", frozenset(), 1.0)
    assert [r["outcome"] for r in combined.details["repeats"]] == ["failed", "failed"]


def test_one_run_is_left_as_it_is() -> None:
    alone = _result()
    assert combine_repeats([alone]) == alone


def test_repeats_that_disagree_are_flaky_with_every_repeats_outcome() -> None:
    combined = combine_repeats([_result(), _result("GW-STREAM-002"), _result()])
    assert (combined.outcome, combined.flaky) == ("flaky", frozenset({"GW-STREAM-002"}))
    assert combined.message.startswith("flaky: the 3 repeats disagree: passed, failed (GW-STREAM-002), passed\n")
    assert [(r["repeat"], r["outcome"], r["failed"]) for r in combined.details["repeats"]] == [
        (1, "passed", []), (2, "failed", ["GW-STREAM-002"]), (3, "passed", [])]
    [rule] = [r for r in combined.results if r.rule.id == "GW-STREAM-002"]
    assert rule.outcome == "failed" and rule.violations[0].message == "GW-STREAM-002 broke in this repeat"


def _case(result: CaseResult, baseline: Any = None) -> Case:
    return case_of(result, RunConfig(launch="gw {upstream} {port}", repeat=3), baseline=baseline)


def test_a_flaky_should_is_reported_but_does_not_fail_the_run() -> None:
    case = _case(combine_repeats([_result(), _result("GW-STREAM-002")]))
    assert case.outcome == "flaky" and not case.blocking
    assert [(r.rule, r.outcome) for r in case.results] == [("GW-STREAM-001", "passed"), ("GW-STREAM-002", "flaky")]
    assert [r.rule for r in case.failed] == ["GW-STREAM-002"]  # flaky is never a pass


def test_a_flaky_must_or_an_erroring_repeat_fails_the_run() -> None:
    assert _case(combine_repeats([_result(), _result("GW-STREAM-001")])).blocking
    errored = combine_repeats([_result(), CaseResult(SPEC, "error", message="the IUT did not answer")])
    assert errored.outcome == "flaky" and _case(errored).blocking


def test_the_summary_counts_flaky_cases_and_old_reports_read_as_none() -> None:
    cases = [_case(combine_repeats([_result(), _result("GW-STREAM-002")])), _case(_result())]
    summary = Summary.of(cases)
    assert (summary.flaky, summary.passed, summary.judged) == (1, 1, 2)
    assert summary.to_json()["flaky"] == 1
    assert "flaky" not in Summary.of(cases[1:]).to_json()
    assert Summary.from_json(Summary.of(cases[1:]).to_json()).flaky == 0


def _report(*cases: Case) -> dict[str, Any]:
    path = Path(__file__).parents[2] / "reports" / "data" / "passing.json"
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    report["cases"] = [c.to_json() for c in cases]
    report["summary"] = Summary.of(cases).to_json()
    return report


def test_every_format_shows_a_flaky_case() -> None:
    flaky = _case(combine_repeats([_result(), _result("GW-STREAM-001"), _result()]))
    report = _report(flaky)
    markdown = render_markdown(report)
    assert "1 case: 1 flaky. flaky: the verdicts differed between repeats." in markdown
    assert "**Flaky**: the repeats disagree:" in markdown and "- repeat 2: failed (GW-STREAM-001)" in markdown
    assert "(flaky: failed in some repeats)" in markdown
    html = render_html([report])
    assert "Flaky: the 3 repeats disagree" in html and 'class="o o-flaky">flaky<' in html
    junit = render_junit(report)
    assert '<failure message="flaky: the 3 repeats disagree' in junit and 'type="callproof.flaky"' in junit


def test_a_baseline_covers_a_flaky_case_and_writes_it_marked(tmp_path: Path) -> None:
    text = format_baseline([("timing_ttft_and_gaps::streaming", ["GW-STREAM-002"])],
                           flaky={"timing_ttft_and_gaps::streaming"})
    assert text.splitlines()[1] == "timing_ttft_and_gaps::streaming GW-STREAM-002  # flaky"
    (tmp_path / "b.txt").write_text(text, encoding="utf-8")
    assert load_baseline(tmp_path / "b.txt").covers("timing_ttft_and_gaps::streaming", ["GW-STREAM-002"])


def test_diff_does_not_call_a_formerly_flaky_rule_newly_failing() -> None:
    flaky = _case(combine_repeats([_result(), _result("GW-STREAM-002")]))
    failed = _case(_result("GW-STREAM-002"))
    diff = diff_reports(_report(flaky), _report(failed))
    assert diff.newly_failing == () and [c.id for c in diff.still_failing] == [SPEC.id]
    assert [c.id for c in diff_reports(_report(_case(_result())), _report(flaky)).newly_failing] == [SPEC.id]


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_repeat_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from callproof.harness.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["run", "--launch", "gw {upstream} {port}", "--repeat", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("callproof: error: argument --repeat: ") and err.count("\n") == 1
