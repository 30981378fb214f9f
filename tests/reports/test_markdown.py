"""The Markdown report: verdict, pass rates per family, failed rules linked to the README, per-case sections, the size
cap, and escaping of everything the implementation under test controls."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from callproof.reports import render_markdown

WithCases = Callable[[Mapping[str, Any], list[dict[str, Any]]], dict[str, Any]]
DOCS = "https://example.test/README.md"
GITHUB_LIMIT = 65_536


def _failed_rules(report: Mapping[str, Any]) -> set[str]:
    return {r["rule"] for c in report["cases"] for r in c["results"] if r["outcome"] == "failed"}


def _must_failures(report: Mapping[str, Any]) -> tuple[int, int]:
    """(distinct MUST rules failed, cases they fail) among the cases that fail the run."""
    failing = [c for c in report["cases"] if c["outcome"] == "failed"
               and any(r["outcome"] == "failed" and r["level"] == "MUST" for r in c["results"])]
    rules = {r["rule"] for c in failing for r in c["results"] if r["outcome"] == "failed" and r["level"] == "MUST"}
    return len(rules), len(failing)


def _section(markdown: str, heading: str) -> str:
    start = markdown.index(f"### {heading}\n")
    end = markdown.find("\n### ", start + 1)
    return markdown[start:] if end < 0 else markdown[start:end]


def _cells(row: str) -> list[str]:
    """A table row's cells, split on the pipes GFM splits on (not `\\|`)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def _rule_rows(markdown: str) -> dict[str, list[str]]:
    rows = [line for line in _section(markdown, "Failed rules").splitlines() if line.startswith(("| [`", "| `"))]
    return {re.match(r"\| \[?`([A-Z0-9-]+)`", row).group(1): _cells(row) for row in rows}  # type: ignore[union-attr]


# -- content --------------------------------------------------------------------------------------------------


def test_verdict_of_a_failing_run(failing: dict[str, Any]) -> None:
    markdown = render_markdown(failing)
    summary = failing["summary"]
    first = markdown.splitlines()[0]
    rules, cases = _must_failures(failing)
    assert rules != cases  # the fixture tells the two counts apart
    assert first == f"## ❌ callproof: {rules} MUST rules failed in {cases} cases, {summary['error']} error"
    # the words of the terminal and pytest's last line: a SHOULD-only failure is not `failed` (it fails no run)
    counts = (f"{summary['cases']} cases: {summary['failed'] - 1} failed, {summary['passed']} passed, 1 skipped, "
              "1 xfailed, 1 error, 1 SHOULD-failed. ")
    assert counts in markdown
    assert "SHOULD failures are reported but do not fail the run. xfailed: known failures the baseline lists." in (
        markdown)
    assert "1 baseline entry now passes: delete it from the baseline" in markdown
    assert "Incomplete run" not in markdown


def test_verdict_of_a_passing_run(passing: dict[str, Any]) -> None:
    markdown = render_markdown(passing)
    assert markdown.startswith("## ✅ callproof: conformant\n")
    assert "### Failed rules" not in markdown and "<details>" not in markdown
    assert "| **all cases** |" in markdown and "100%" in markdown


def test_the_headline_counts_failed_rules_and_cases_apart(failing: dict[str, Any], with_cases: WithCases) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_http_429::faults")  # fails GW-FAULT-002 alone
    copies = [{**copy.deepcopy(case), "id": f"fault_http_429_{n}::faults"} for n in range(9)]
    first = render_markdown(with_cases(failing, copies)).splitlines()[0]
    assert first == "## ❌ callproof: 1 MUST rule failed in 9 cases"


@pytest.mark.parametrize("outcome", ["error", "skipped"])
def test_a_run_that_judged_nothing_is_never_conformant(
    passing: dict[str, Any], with_cases: WithCases, outcome: str
) -> None:
    cases = [{**copy.deepcopy(c), "outcome": outcome, "results": [], "message": f"why {n}"}
             for n, c in enumerate(passing["cases"][:7])]
    markdown = render_markdown(with_cases(passing, cases))
    assert markdown.startswith("## ❌ callproof: nothing judged\n")
    assert "conformant" not in markdown
    counts = "7 errors" if outcome == "error" else "7 skipped"
    first = cases[0]["id"].replace("_", "\\_")
    assert f"> **No case was judged**: 7 cases: {counts}; {first}: why 0." in markdown
    assert f"\n7 cases: {counts}." in markdown


def test_an_incomplete_run_has_a_banner(incomplete: dict[str, Any], passing: dict[str, Any]) -> None:
    assert "> **Incomplete run**: the run was cut off" in render_markdown(incomplete)
    cut = render_markdown({**passing, "complete": False})
    assert cut.startswith("## ⚠️ callproof: no failures so far (incomplete run)") and "Incomplete run" in cut


def test_target_and_profile(failing: dict[str, Any]) -> None:
    markdown = render_markdown(failing)
    assert f"**Target**: gateway (launch) `{failing['target']['command']}`" in markdown
    assert f"**profile** {failing['profile']}" in markdown


def test_pass_rate_per_family_in_cases(failing: dict[str, Any]) -> None:
    """Of the cases a family's rules applied to, those that failed none of them (a known failure passes, as the
    badge counts it); the last row is every case that ran, the badge's figure (docs/report.md#pass-rate)."""
    table = _section(render_markdown(failing), "Pass rate by rule family")
    for family in ("framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected", "gateway",
                   "client"):
        cases = [c for c in failing["cases"] if any(r["family"] == family for r in c["results"])]
        passed = sum(c["outcome"] == "xfailed" or all(r["outcome"] != "failed" for r in c["results"]
                                                      if r["family"] == family) for c in cases)
        tenths = 1000 * passed // len(cases)
        percent = "100%" if passed == len(cases) else f"{tenths // 10}.{tenths % 10}%"
        assert f"| {family} | {passed} | {len(cases)} | {percent} |" in table
    summary = failing["summary"]
    ok, ran = summary["passed"] + summary["xfailed"], summary["cases"] - summary["skipped"]
    assert f"| **all cases** | {ok} | {ran} | " in table


def test_failed_rules_table_links_every_rule(failing: dict[str, Any]) -> None:
    rows = _rule_rows(render_markdown(failing, docs_url=DOCS))
    assert set(rows) == _failed_rules(failing)
    for rule, cells in rows.items():
        assert cells[0] == f"[`{rule}`]({DOCS}#{rule.lower()})"
    assert rows["GW-REQ-004"][1:5] == ["SHOULD", "gateway", "1", "0"]
    assert rows["RSP-ID-008"][3:5] == ["0", "1"]  # covered by the baseline: a known failure, not a failing case
    assert rows["GW-FAULT-002"][5] == "Retry-After is missing at the front; the upstream sent 2"
    levels = [cells[1] for cells in rows.values()]
    assert levels == sorted(levels, key=["MUST", "SHOULD", "INFO"].index)


def test_one_collapsed_section_per_failed_case(failing: dict[str, Any]) -> None:
    markdown = render_markdown(failing)
    shown = re.findall(r"<details><summary><code>([^<]+)</code>", markdown)
    expected = [c["id"] for c in failing["cases"] if c["outcome"] in ("failed", "error")]
    assert sorted(shown) == sorted(expected)
    assert shown[0] == "large_arguments::expected"  # errors first, then MUST failures, SHOULD-only last
    assert shown[-1] == "parallel_calls_disabled::translation"
    assert markdown.count("<details>") == markdown.count("</details>") == len(expected)


def test_a_section_holds_evidence_excerpt_and_repro(failing: dict[str, Any]) -> None:
    markdown = render_markdown(failing)
    case = next(c for c in failing["cases"] if c["id"] == "fault_malformed::framing")
    start = markdown.index("<code>fault_malformed::framing</code>")
    section = markdown[start:markdown.index("</details>", start)]
    result = next(r for r in case["results"] if r["outcome"] == "failed")
    evidence = result["evidence"]
    where = f"event {evidence['event_index']} (`{evidence['event_type']}`) · byte {evidence['offset']} · at `$`"
    assert where in section
    assert "The stream around it:\n\n```\n" in section and result["excerpt"].splitlines()[0] in section
    assert f"```sh\n{case['repro']}\n```" in section
    assert "Fix: Send exactly one JSON document per event" in section
    retry = markdown[markdown.index("<code>fault_http_429::faults</code>"):]
    assert 'at `header retry-after` · expected `"2"` · actual: absent' in retry


def test_the_evidence_of_another_turn_of_a_socket_names_the_turn(failing: dict[str, Any]) -> None:
    """Over a WebSocket front a failure in another turn of the socket than the case's own answer names it first."""
    report = copy.deepcopy(failing)
    case = next(c for c in report["cases"] if c["id"] == "fault_malformed::framing")
    result = next(r for r in case["results"] if r["outcome"] == "failed")
    result["evidence"]["turn"] = 2
    section = render_markdown(report)
    section = section[section.index("<code>fault_malformed::framing</code>"):]
    evidence = result["evidence"]
    assert f"turn 2 · event {evidence['event_index']} (`{evidence['event_type']}`)" in section


def test_error_cases_show_their_message(failing: dict[str, Any]) -> None:
    markdown = render_markdown(failing)
    section = markdown[markdown.index("<code>large_arguments::expected</code>"):]
    assert "**Not judged**:\n\n```\nthe IUT did not answer" in section


# -- size cap -------------------------------------------------------------------------------------------------


def test_500_failures_stay_under_the_github_limit_and_name_every_rule(many_failures: dict[str, Any]) -> None:
    markdown = render_markdown(many_failures)
    assert len(markdown) <= 60_000 < GITHUB_LIMIT
    assert set(_rule_rows(markdown)) == _failed_rules(many_failures)
    shown = markdown.count("<details>")
    assert 0 < shown < 500
    assert f"> {500 - shown} of 500 failed cases are not shown here (size limit): see the full report" in markdown


@pytest.mark.parametrize("limit", [30_000, 12_000, 6_000])
def test_tighter_limits_drop_sections_then_shorten_messages(many_failures: dict[str, Any], limit: int) -> None:
    markdown = render_markdown(many_failures, limit=limit)
    assert len(markdown) <= limit
    assert set(_rule_rows(markdown)) == _failed_rules(many_failures)
    assert "failed cases are not shown here" in markdown


def test_messages_are_shortened_only_when_sections_are_gone(many_failures: dict[str, Any]) -> None:
    table = _section(render_markdown(many_failures), "Failed rules")
    roomy = render_markdown(many_failures, limit=len(table) + 6_000)
    assert "failed cases are not shown" in roomy and _section(roomy, "Failed rules") == table  # sections went first
    tight = render_markdown(many_failures, limit=len(table))
    assert len(tight) <= len(table) and "500 of 500 failed cases are not shown" in tight
    rows = _rule_rows(tight)
    assert set(rows) == _failed_rules(many_failures)
    assert max(len(cells[-1]) for cells in rows.values()) < max(len(cells[-1]) for cells in _rule_rows(table).values())


def test_a_limit_too_small_for_the_rules_is_an_error(many_failures: dict[str, Any]) -> None:
    rules = len(_failed_rules(many_failures))
    with pytest.raises(ValueError, match=f"limit=500 characters cannot hold the verdict and the {rules} failed rules"):
        render_markdown(many_failures, limit=500)


# -- escaping -------------------------------------------------------------------------------------------------

HOSTILE = "a | b `tick` <script>alert(1)</script> *bold* [link](http://x) \\ ~~strike~~\nsecond line"


def test_user_text_is_escaped_in_the_table(failing: dict[str, Any], with_cases: WithCases) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_http_429::faults")
    next(r for r in case["results"] if r["outcome"] == "failed")["message"] = HOSTILE
    markdown = render_markdown(with_cases(failing, [case]))
    row = _rule_rows(markdown)["GW-FAULT-002"]
    assert len(row) == 5  # the pipe in the message did not split the cell
    assert row[4] == ("a \\| b \\`tick\\` &lt;script&gt;alert(1)&lt;/script&gt; \\*bold\\* \\[link\\](http://x) "
                      "\\\\ \\~\\~strike\\~\\~ second line")
    assert "<script>" not in markdown


def test_user_text_is_escaped_in_sections(failing: dict[str, Any], with_cases: WithCases) -> None:
    case = next(c for c in failing["cases"] if c["id"] == "fault_malformed::framing")
    result = next(r for r in case["results"] if r["outcome"] == "failed")
    result["excerpt"] = "data: ```\n</details><script>x</script>\n````\x1b[31m"
    result["evidence"] = {"path": "$.a`b", "expected": "``", "actual": "<b>|</b>"}
    case["details"] = {"stderr": "Traceback\n</details>\n```"}
    markdown = render_markdown(with_cases(failing, [case]))
    assert "\n`````\ndata: ```\n</details><script>x</script>\n````\\x1b[31m\n`````\n" in markdown
    assert 'at ``$.a`b`` · expected ```"``"``` · actual `"<b>|</b>"`' in markdown
    assert "\n````\nTraceback\n</details>\n```\n````\n" in markdown
    assert markdown.count("</details>") == 1 + 2  # the section's own, and the two inside code fences


def test_the_target_line_names_the_run_policies(failing: dict[str, Any]) -> None:
    assert "**policy**" not in render_markdown(failing)  # a report from before policies were recorded
    failing["target"]["policy"] = {"xml-tool-text": "convert"}
    assert " · **policy** xml-tool-text=convert · **profile** " in render_markdown(failing)


def test_skip_reasons_are_grouped_after_the_counts(passing: dict[str, Any], with_cases: WithCases) -> None:
    reasons = ["no call id to compare", "no call id to compare", "too short a burst\nmore"]
    skipped = [{**copy.deepcopy(c), "outcome": "skipped", "results": [], "message": why}
               for c, why in zip(passing["cases"][:3], reasons, strict=True)]
    markdown = render_markdown(with_cases(passing, [*copy.deepcopy(passing["cases"][3:6]), *skipped]))
    assert "6 cases: 3 passed, 3 skipped. Skipped: no call id to compare (2); too short a burst (1)." in (
        markdown)
    assert "Skipped:" not in render_markdown(passing)


def test_a_run_stopped_early_says_why(passing: dict[str, Any]) -> None:
    markdown = render_markdown({**passing, "complete": False, "stopped": "5 scenarios in a row got no answer"})
    assert ("> **Incomplete run**: the run was cut off before every case ran; this report covers the "
            f"{len(passing['cases'])} cases that finished.\n>\n> **Stopped early**: 5 scenarios in a row got no "
            "answer. The cases it did not reach are left out, never counted as passed.\n\n") in markdown
