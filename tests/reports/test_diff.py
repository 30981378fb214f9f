"""Comparing two runs: newly failing (a regression), newly passing, still failing with other rules, new and
removed cases, stale baseline entries; as text and as Markdown."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from callproof.reports import diff_markdown, diff_reports, diff_text

WithCases = Callable[[Mapping[str, Any], list[dict[str, Any]]], dict[str, Any]]


def _case(report: Mapping[str, Any], case_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in report["cases"] if c["id"] == case_id)
    return found


def _fail(case: dict[str, Any], rule: str) -> None:
    """Make the case fail `rule` (one of its results)."""
    case["outcome"] = "failed"
    next(r for r in case["results"] if r["rule"] == rule)["outcome"] = "failed"


def _pass(case: dict[str, Any]) -> None:
    case["outcome"] = "passed"
    for result in case["results"]:
        result["outcome"] = "passed"


def test_identical_runs_have_no_change(failing: dict[str, Any]) -> None:
    diff = diff_reports(failing, copy.deepcopy(failing))
    assert not diff.regression
    assert diff.newly_failing == diff.newly_passing == diff.changed == ()
    assert diff.new_cases == diff.removed_cases == ()
    assert len(diff.still_failing) == failing["summary"]["failed"] + failing["summary"]["error"]
    assert diff.stale_baseline == ("text_only::identity",)
    assert diff.notes == ()


def test_passing_to_failing_run_is_a_regression(passing: dict[str, Any], failing: dict[str, Any]) -> None:
    diff = diff_reports(passing, failing)
    assert diff.regression
    by_id = {c.id: c for c in diff.newly_failing}
    assert by_id["one_call::sequence"].base == "passed" and by_id["one_call::sequence"].added == ("RSP-SEQ-001",)
    assert by_id["fault_http_429::faults"].base is None  # absent from base, failing in head: newly failing too
    assert by_id["large_arguments::expected"].head == "error"
    assert "duplicate_call_ids::identity" not in by_id  # xfailed: its failure is a known one
    assert "parallel_calls_disabled::translation" in by_id  # a SHOULD-only failure is a failed case


def test_each_kind_of_change(failing: dict[str, Any], with_cases: WithCases) -> None:
    base = copy.deepcopy(failing)
    head = copy.deepcopy(failing)
    _fail(_case(head, "text_only::expected"), "EXP-003")  # passed -> failed
    _pass(_case(head, "one_call::schema"))  # failed -> passed
    _case(head, "fault_malformed::sequence")["outcome"] = "xfailed"  # failed -> known failure: passing
    _fail(_case(head, "fault_disconnect_after_bytes::lifecycle"), "RSP-LIFE-003")  # other rules
    lifecycle = _case(head, "fault_disconnect_after_bytes::lifecycle")
    next(r for r in lifecycle["results"] if r["rule"] == "RSP-LIFE-001")["outcome"] = "passed"
    _case(head, "fault_http_500::client")["outcome"] = "error"  # failed -> error: still failing, changed
    head_cases = [c for c in head["cases"] if c["id"] != "one_call::client"]
    extra = copy.deepcopy(_case(head, "one_call::framing"))
    extra.update(id="brand_new::framing", scenario="brand_new")
    diff = diff_reports(with_cases(base, base["cases"]), with_cases(head, [*head_cases, extra]))

    assert [c.id for c in diff.newly_failing] == ["text_only::expected"]
    assert diff.newly_failing[0].added == ("EXP-003",) and diff.regression
    assert [(c.id, c.base, c.head) for c in diff.newly_passing] == [
        ("fault_malformed::sequence", "failed", "xfailed"), ("one_call::schema", "failed", "passed")]
    assert diff.newly_passing[1].removed == ("RSP-SCHEMA-001",)
    changed = {c.id: c for c in diff.changed}
    assert set(changed) == {"fault_disconnect_after_bytes::lifecycle", "fault_http_500::client"}
    assert changed["fault_disconnect_after_bytes::lifecycle"].added == ("RSP-LIFE-003",)
    assert changed["fault_disconnect_after_bytes::lifecycle"].removed == ("RSP-LIFE-001",)
    assert (changed["fault_http_500::client"].base, changed["fault_http_500::client"].head) == ("failed", "error")
    assert diff.new_cases == ("brand_new::framing",) and diff.removed_cases == ("one_call::client",)
    assert all(c.id not in changed for c in diff.still_failing if not c.changed)


def test_a_skipped_case_that_fails_is_newly_failing(failing: dict[str, Any]) -> None:
    head = copy.deepcopy(failing)
    case = _case(head, "fault_slow_first_byte::streaming")
    case["outcome"] = "error"
    diff = diff_reports(failing, head)
    assert [(c.id, c.base, c.head) for c in diff.newly_failing] == [
        ("fault_slow_first_byte::streaming", "skipped", "error")]


def test_notes_on_runs_that_do_not_compare_cleanly(failing: dict[str, Any], incomplete: dict[str, Any]) -> None:
    diff = diff_reports({**failing, "profile": "lenient", "scenario_set": "0" * 16}, incomplete)
    assert diff.notes == (
        "the head run is incomplete: cases it did not reach count as absent",
        f"the runs used different scenario sets ({'0' * 16} and {incomplete['scenario_set']})",
        f"the runs used different profiles (lenient and {incomplete['profile']})",
    )


def test_a_warning_names_what_differs_between_the_targets(failing: dict[str, Any]) -> None:
    """A different mode, implementation, dialect or transport: the cases compare two setups, not a change. The
    warning names each aspect that differs, base then head."""
    command = failing["target"]["command"]
    client = {"kind": "client", "how": "client", "client": "python my_client.py", "client_dialect": "chat"}
    assert diff_reports(failing, failing).warning is None
    for head, differs in (
        (client, f"mode: base gateway, head client; implementation: base {command!r}, head 'python my_client.py'"),
        ({**failing["target"], "front": "chat"}, "front: base responses, head chat"),
        ({**failing["target"], "front_transport": "websocket"}, "front transport: base http, head websocket"),
        ({**failing["target"], "upstream_transport": "websocket", "command": "gw --ws"},
         f"implementation: base {command!r}, head 'gw --ws'; upstream transport: base http, head websocket"),
    ):
        diff = diff_reports(failing, {**failing, "target": head})
        assert diff.warning == (f"the runs tested different targets ({differs}): the diff compares two setups, not "
                                "one implementation's change") and diff.notes == ()
        assert diff_text(diff).splitlines()[1] == f"warning: {diff.warning}"
        markdown = diff_markdown(diff)
        assert "> [!WARNING]\n> the runs tested different targets (" in markdown
        assert not diff.regression  # a warning, not a verdict


def test_long_commands_are_cut_unless_that_hides_the_difference(failing: dict[str, Any]) -> None:
    long = "gateway " + "x" * 100
    for one, other, shown in ((long + " a", "other", f"base {long[:77] + '...'!r}, head 'other'"),
                              (long + " a", long + " b", f"base {long + ' a'!r}, head {long + ' b'!r}")):
        diff = diff_reports({**failing, "target": {**failing["target"], "command": one}},
                            {**failing, "target": {**failing["target"], "command": other}})
        assert f"(implementation: {shown})" in (diff.warning or "")


def test_a_report_without_transports_compares_as_http(failing: dict[str, Any]) -> None:
    """Reports from before the transports were recorded ran over HTTP: no warning against an HTTP run's."""
    http = {**failing["target"], "front_transport": "http", "upstream_transport": "http"}
    assert "front_transport" not in failing["target"]
    assert diff_reports(failing, {**failing, "target": http}).warning is None


def test_the_diff_is_a_frozen_value(failing: dict[str, Any]) -> None:
    diff = diff_reports(failing, failing)
    with pytest.raises(dataclasses.FrozenInstanceError):
        diff.newly_failing = ()  # type: ignore[misc]


def test_text(passing: dict[str, Any], failing: dict[str, Any]) -> None:
    text = diff_text(diff_reports(passing, failing))
    first = text.splitlines()[0]
    assert first.startswith("callproof diff: REGRESSION: 18 newly failing, 0 newly passing")
    assert "  one_call::sequence  passed -> failed  +RSP-SEQ-001\n" in text
    assert "  large_arguments::expected  absent -> error\n" in text
    assert "stale baseline entries (delete them from the baseline):\n  text_only::identity\n" in text
    assert diff_text(diff_reports(failing, failing)).startswith("callproof diff: no regression: 0 newly failing")


def test_markdown(passing: dict[str, Any], failing: dict[str, Any]) -> None:
    markdown = diff_markdown(diff_reports(passing, failing), docs_url="https://x.test/R.md")
    assert markdown.startswith("## ❌ callproof diff: regression\n")
    assert ("| `one_call::sequence` | passed → failed | +[`RSP-SEQ-001`](https://x.test/R.md#rsp-seq-001) |"
            in markdown)
    assert "### Stale baseline entries: delete them from the baseline (1)\n\n- `text_only::identity`" in markdown
    assert diff_markdown(diff_reports(failing, failing)).startswith("## ✅ callproof diff: no regression\n")


def test_markdown_cuts_long_lists_to_fit(failing: dict[str, Any], with_cases: WithCases) -> None:
    template = _case(failing, "fault_http_429::faults")
    cases = []
    for i in range(3000):
        case = copy.deepcopy(template)
        case.update(id=f"s{i:04d}::faults", scenario=f"s{i:04d}")
        cases.append(case)
    diff = diff_reports(with_cases(failing, []), with_cases(failing, cases))
    markdown = diff_markdown(diff)
    assert len(markdown) <= 60_000
    assert "### Newly failing (3000)" in markdown and "| … and 2800 more | | |" in markdown
    assert "- … and 2800 more" in markdown  # the new cases list
