"""The bundled suite through the pytest plugin, as users run it: `pytest --pyargs callproof.suite` with an IUT
option, item ids per scenario x rule group, the JSON report, baselines, xdist, and the fixtures for users' own
tests (`callproof_scenario` with the `callproof` marker)."""

from __future__ import annotations

import importlib
import json
import re
import socket
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness.report_model import read_report
from tests import fakes

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
SUITE = ["-p", "callproof", "-p", "no:cacheprovider", "--pyargs", "callproof.suite"]


def gateway(defect: str | None = None) -> str:
    return fakes.launch("gateways", defect)


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester runs in a temporary directory: `python -m tests.fakes...` finds the repository on PYTHONPATH."""
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def report_of(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(report, SCHEMA)
    return report


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["cases"]}


def test_the_suite_without_an_iut_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*callproof.suite needs an implementation under test: --callproof-launch*"])


def test_two_iuts_at_once_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", "x {port}", "--callproof-target", "http://h/v1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--callproof-launch, --callproof-target name several implementations*"])


def test_a_correct_gateway_passes_and_the_report_is_written(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-report", "out/report.json",
                                "-k", "one_call or fault_http_429", "-v")
    result.assert_outcomes(passed=14)
    result.stdout.fnmatch_lines(["*test_conformance?one_call::identity? PASSED*",
                                 "*test_conformance?fault_http_429::faults? PASSED*", "*report: out/report.json*"])
    report = report_of(pytester.path / "out" / "report.json")
    assert report["summary"]["cases"] == 14 and report["summary"]["passed"] == 14 and report["complete"]
    assert report["target"] == {"kind": "gateway", "how": "launch", "command": gateway(), "front": "responses",
                                "upstream_dialect": "chat", "front_transport": "http", "upstream_transport": "http",
                                "policy": {"xml-tool-text": "passthrough", "stateful": "either",
                                           "custom-tools": "either"}}
    result.stdout.fnmatch_lines(["target: gateway, responses front, chat upstream", "cases: 14 passed"])
    assert not (pytester.path / "out" / "report.jsonl").exists()  # the JSON report holds it all now
    case = by_id(report)["fault_http_429::faults"]
    # GW-FAULT-005 on the run's own key (sent by default), GW-FAULT-006 on the error body (docs/spec/verdicts.md §9-10)
    assert {r["rule"] for r in case["results"]} == {"GW-FAULT-001", "GW-FAULT-002", "GW-FAULT-005", "GW-FAULT-006"}
    assert case["repro"] == f"callproof run --launch '{gateway()}' -k 'fault_http_429::faults'"


def test_a_broken_gateway_fails_with_evidence_and_the_fix(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway("drops_retry_after"),
                                "--callproof-report", "report.json", "-k", "fault_http_429")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*fault_http_429::faults:*",
        "*GW-FAULT-002 MUST: Retry-After is missing at the front; the upstream sent 2*",
        "*fix: Pass the upstream's 429 status and Retry-After header through.*",
        "*repro: callproof run --launch*-k 'fault_http_429::faults'*",
    ])
    case = by_id(report_of(pytester.path / "report.json"))["fault_http_429::faults"]
    assert case["outcome"] == "failed"
    failed = [r for r in case["results"] if r["outcome"] == "failed"]
    assert [(r["rule"], r["evidence"]) for r in failed] == [
        ("GW-FAULT-002", {"path": "header retry-after", "expected": "2"})]


def _counts(line: str) -> dict[str, int]:
    """The counts of pytest's last line (`=== 3 passed, 9 deselected, 1 SHOULD-failed in 2.1s ===`) or of the
    callproof section's (`cases: 3 passed, 1 SHOULD-failed`), by word, leaving out pytest's own `deselected`."""
    line = re.sub(r" in [\d.]+s( \(.*\))?$", "", line.strip("= ").removeprefix("cases: "))
    pairs = (part.split(" ", 1) for part in line.split(", "))
    return {word: int(n) for n, word in pairs if word not in ("deselected", "warning", "warnings")}


def _last_line(result: pytest.RunResult) -> str:
    return next(x for x in reversed(result.stdout.lines) if re.search(r" in [\d.]+s", x))


def test_should_failures_pass_in_pytest_and_every_count_says_so(pytester: pytest.Pytester) -> None:
    """A case whose only failures are SHOULD rules passes in pytest (the run exits 0) and is counted as
    `SHOULD-failed` by pytest's last line, its letters and the callproof section alike."""
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway("drops_parallel_flag"),
                                "--callproof-report", "report.json", "-k", "parallel_calls_disabled")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*SHOULD GW-REQ-004 failed in parallel_calls_disabled::translation*"])
    report = report_of(pytester.path / "report.json")
    assert report["summary"]["failed"] == 1 and report["summary"]["should_failed"] == 1
    assert report["summary"]["must_failed"] == 0
    cases = next(x for x in result.stdout.lines if x.startswith("cases: "))
    passed = report["summary"]["passed"]
    assert _counts(cases) == _counts(_last_line(result)) == {"passed": passed, "SHOULD-failed": 1}
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["SHOULD"], "failed" in outcomes) == (passed, 1, False)  # not one more failed
    assert "S" in next(x for x in result.stdout.lines if x.startswith("test_conformance.py "))
    verbose = pytester.runpytest(*SUITE, "--callproof-launch", gateway("drops_parallel_flag"), "-v",
                                 "-k", "parallel_calls_disabled::translation")
    verbose.stdout.fnmatch_lines(["*test_conformance?parallel_calls_disabled::translation? SHOULD-FAILED*"])


def test_baseline_covers_known_failures_and_reports_stale_entries(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", baseline="fault_http_429::faults GW-FAULT-002\none_call::expected  # fixed long ago\n")
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway("drops_retry_after"),
                                "--callproof-baseline", "baseline.txt", "--callproof-report", "report.json",
                                "-k", "fault_http_429::faults or one_call::expected")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(["*stale baseline entry: one_call::expected passes now; delete it from the baseline*"])
    cases = by_id(report_of(pytester.path / "report.json"))
    assert cases["fault_http_429::faults"]["outcome"] == "xfailed"
    assert cases["fault_http_429::faults"]["baseline"] == "covered"
    assert cases["one_call::expected"]["baseline"] == "stale"


def test_setup_problems_are_usage_errors_before_any_case(pytester: pytest.Pytester) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-mock-port", str(port))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines == [f"ERROR: --callproof-mock-port {port} cannot be bound on 127.0.0.1 (Address already "
                                   "in use); pick a free port or stop what holds it", ""]
    pytester.makefile(".json", bad='{"id": "x"')
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-scenarios", "bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines == [f"ERROR: {pytester.path / 'bad.json'}: not valid JSON: Expecting ',' delimiter: "
                                   "line 1 column 11 (char 10); fix the syntax (a trailing comma?)", ""]
    result = pytester.runpytest(*SUITE, "--callproof-launch", "python gw.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --callproof-launch has no {port} placeholder, so callproof cannot know where "
                                 "the gateway listens: add {port} to the command (e.g. --port {port}), or give "
                                 "--callproof-front-url with the fixed port it listens on*"])


def test_a_bad_baseline_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", baseline="not a case\n")
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-baseline", "baseline.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*baseline.txt:1: 'not' is not a case id*"])


def test_xdist_gives_the_same_verdicts_as_one_process(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", fakes.run_env()["PYTEST_ADDOPTS"])  # the dev venv's other plugins: unused
    verdicts = []
    for workers in ("0", "2"):
        path = f"report-{workers}.json"
        result = pytester.runpytest_subprocess(
            *SUITE, "--callproof-launch", gateway("mixed_interleaved_args"), "--callproof-report", path,
            "-n", workers, "--dist", "loadgroup", "-k",
            "interleaved_round_robin or interleaved_explicit_order or parallel_two_calls or concurrent")
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        cases = by_id(report_of(pytester.path / path))
        verdicts.append({i: (c["outcome"], sorted(r["rule"] for r in c["results"] if r["outcome"] == "failed"))
                         for i, c in cases.items()})
    assert verdicts[0] == verdicts[1]
    assert verdicts[0]["interleaved_round_robin::expected"] == ("failed", ["EXP-002"])


def test_users_own_test_with_the_scenario_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import json
        import httpx
        import pytest

        def client(request, base_url):
            # a tiny client under test: non-stream Responses call, calls read from the output items
            body = httpx.post(f"{base_url}/responses", json={**request, "stream": False}, timeout=10).json()
            calls = [{"call_id": i["call_id"], "name": i["name"], "arguments": i["arguments"]}
                     for i in body["output"] if i["type"] == "function_call"]
            return {"text": "", "tool_calls": calls, "error": None, "incomplete": False}

        @pytest.mark.callproof(scenario="parallel_two_calls")
        def test_calls(callproof_mock, callproof_scenario):
            result = client(callproof_scenario.request, callproof_mock.url)
            callproof_scenario.check_result(result)
            assert callproof_mock.journal.requests()[0].case == callproof_scenario.case
            assert [n for n, _ in callproof_scenario.expected_calls] == ["get_weather", "get_weather"]

        @pytest.mark.callproof(scenario="parallel_two_calls")
        def test_a_chat_client(callproof_mock, callproof_scenario):
            # the same case as a Chat Completions request: the mock answers it in that dialect
            request = {**callproof_scenario.request_in("chat"), "stream": False}
            message = httpx.post(f"{callproof_mock.url}/chat/completions", json=request, timeout=10).json()[
                "choices"][0]["message"]
            calls = [{"call_id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                     for c in message["tool_calls"]]
            callproof_scenario.check_result({"text": "", "tool_calls": calls, "error": None, "incomplete": False})
            assert callproof_mock.journal.requests()[0].case == callproof_scenario.case

        @pytest.mark.callproof(scenario="parallel_two_calls")
        def test_a_wrong_result_is_reported(callproof_mock, callproof_scenario):
            with pytest.raises(AssertionError, match="EXP-001 MUST: the completed tool calls are"):
                callproof_scenario.check_result({"tool_calls": [], "text": ""})

        @pytest.mark.callproof(scenario="parallel_two_calls")
        def test_not_a_result_object(callproof_mock, callproof_scenario):
            with pytest.raises(AssertionError, match="see `callproof docs adapters`"):
                callproof_scenario.check_result({"tool_calls": "none"})

        def test_marker_is_required(callproof_scenario):
            pass

        @pytest.mark.callproof(scenario="parallel_two_call")
        def test_a_mistyped_scenario(callproof_scenario):
            pass
    """)
    result = pytester.runpytest("-p", "callproof")
    result.assert_outcomes(passed=4, errors=2)
    result.stdout.fnmatch_lines(["*callproof_scenario needs @pytest.mark.callproof(scenario='<id>')*"])
    result.stdout.fnmatch_lines(["*unknown scenario 'parallel_two_call'; did you mean 'parallel_two_calls'? "
                                 "(`callproof scenarios` lists them)"])


BURST = {"feature": "burst", "description": "a timing scenario too short to judge streaming", "scenarios": [{
    "id": "burst_text", "description": "one text delta, tagged timing: too short a stream to tell buffering apart",
    "tags": ["timing"], "output": [{"type": "text", "text": "Paris.", "chunk": {"size": 64}}],
    "request": {"input": [{"role": "user", "text": "What is the capital of France?"}]},
    "expect": {"status": "completed", "text": "Paris."},
}]}


def test_a_run_that_judged_nothing_fails(pytester: pytest.Pytester) -> None:
    """Every selected case skipped (here the streaming group, which needs a longer upstream stream): no verdict
    without evidence, so pytest exits 1 and the summary says why."""
    (pytester.path / "burst.json").write_text(json.dumps(BURST), encoding="utf-8")
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-scenarios", "burst.json",
                                "--callproof-report", "report.json", "-k", "burst_text::streaming")
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["no case was judged: 1 case: 1 skipped; burst_text::streaming: the upstream's "
                                 "content came in too short a burst, with no scripted pause, to tell streaming from "
                                 "buffering"])
    assert report_of(pytester.path / "report.json")["summary"]["skipped"] == 1


def test_an_unjudgeable_answer_fails_in_pytest_naming_what_arrived(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", fakes.launch("hollow", "html200"),
                                "-k", "one_call::identity")
    result.assert_outcomes(errors=1)  # pytest counts it as callproof does: an error, not a failure
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*one_call::identity: not judged: no judgeable stream: a stream request was answered with HTTP 200 "
        "text/html, 157 bytes, 0 events, not text/event-stream*",
        "cases: 1 error",
        "no case was judged: 1 case: 1 error; one_call::identity: no judgeable stream: *",
        "ERROR test_conformance.py::test_conformance?one_call::identity?*"])
    assert _counts(_last_line(result)) == {"error": 1}


def test_strict_baseline_fails_the_session_on_stale_entries(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", baseline="fault_http_429::faults GW-FAULT-002\none_call::expected  # fixed long ago\n")
    args = [*SUITE, "--callproof-launch", gateway("drops_retry_after"), "--callproof-baseline", "baseline.txt",
            "-k", "fault_http_429::faults or one_call::expected"]
    assert pytester.runpytest(*args).ret == pytest.ExitCode.OK
    result = pytester.runpytest(*args, "--callproof-strict-baseline")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["baseline.txt:2: stale baseline entry: one_call::expected passes now; delete the line",
                                 "--strict-baseline: 1 stale baseline entry fails the run"])


def test_strict_baseline_without_a_baseline_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-strict-baseline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --callproof-strict-baseline needs --callproof-baseline FILE: the baseline "
                                 "whose stale entries fail the run"])


def test_policy_and_limits_reach_the_judge_through_the_plugin(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway("converts_xml_tool_text"),
                                "--callproof-policy", "xml-tool-text=convert", "--callproof-report", "report.json",
                                "-k", "xml_tool_text_split_mid_tag::policy or xml_tool_text_split_mid_tag::expected")
    result.assert_outcomes(passed=2)
    policy = report_of(pytester.path / "report.json")["target"]["policy"]
    assert policy == {"xml-tool-text": "convert", "stateful": "either", "custom-tools": "either"}
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway("runaway_stream"), "--callproof-max-bytes",
                                "20000", "-k", "one_call::expected")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GW-LIMIT-001 MUST: --max-bytes 20000: the answer exceeded it (* bytes read, then "
                                 "the harness stopped reading and closed the connection)*"])


@pytest.mark.parametrize(("args", "line"), [
    (["--callproof-policy", "xml-tool-text=maybe"],
     "*argument --callproof-policy: policy xml-tool-text takes passthrough or convert, got 'maybe'"),
    (["--callproof-max-events", "0"], "*argument --callproof-max-events: must be at least 1, got 0"),
])
def test_bad_policy_and_limit_values_are_usage_errors(pytester: pytest.Pytester, args: list[str], line: str) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([line])



def test_an_iut_that_cannot_start_is_one_usage_error_before_any_case(pytester: pytest.Pytester) -> None:
    exits = f"{sys.executable} -c \"import sys; sys.exit('boom: config missing')\" {{port}}"
    result = pytester.runpytest(*SUITE, "--callproof-launch", exits, "--callproof-report", "report.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line, blank] = result.stderr.lines
    assert blank == "" and line.startswith(
        "ERROR: the IUT did not start: it exited before it was ready (exit status 1); its last stderr line: "
        "'boom: config missing'; command: [")
    assert not (pytester.path / "report.json").exists()
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "--callproof-front-url",
                                "http://127.0.0.1:{prot}/v1/responses")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines == [
        "ERROR: --callproof-front-url 'http://127.0.0.1:{prot}/v1/responses' has an unknown placeholder {prot}; the "
        "placeholders are {upstream}, {upstream_root} and {port}; write {{ and }} for a literal brace", ""]


INTERRUPTS = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_runtest_logfinish(nodeid, location):
    raise KeyboardInterrupt  # as Ctrl-C does, once the first case is in the report
"""

BREAKS_THE_REPORT = """
from pathlib import Path

def pytest_runtest_logfinish(nodeid, location):
    Path("report.json").mkdir(exist_ok=True)  # a directory now: the JSON report cannot be written there
"""


def test_the_json_lines_file_is_kept_when_the_run_is_interrupted(pytester: pytest.Pytester) -> None:
    """A run cut off keeps report.jsonl (its purpose: a killed run leaves a readable partial report) beside the
    incomplete JSON report."""
    pytester.makepyfile(interrupts=INTERRUPTS)
    pytester.syspathinsert()
    result = pytester.runpytest_inprocess(*SUITE, "-p", "interrupts", "--callproof-launch", gateway(),
                                          "--callproof-report", "report.json", "-k", "one_call",
                                          no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert report_of(pytester.path / "report.json")["complete"] is False
    lines = read_report(pytester.path / "report.jsonl")
    assert not lines.complete and len(lines.cases) == 1


def test_the_json_lines_file_is_kept_when_the_json_report_cannot_be_written(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(breaks=BREAKS_THE_REPORT)
    pytester.syspathinsert()
    result = pytester.runpytest(*SUITE, "-p", "breaks", "--callproof-launch", gateway(),
                                "--callproof-report", "report.json", "-k", "one_call::expected")
    assert result.ret != pytest.ExitCode.OK and (pytester.path / "report.json").is_dir()
    lines = read_report(pytester.path / "report.jsonl")
    assert lines.complete and [c.id for c in lines.cases] == ["one_call::expected"]


def test_the_plugin_stops_a_run_whose_gateway_stops_answering(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(hang=fakes.HANGS_ON_POST)
    result = pytester.runpytest(*SUITE, "--callproof-launch", f"{sys.executable} hang.py {{port}}",
                                "--callproof-case-timeout", "0.5", "--callproof-max-consecutive-errors", "2",
                                "--callproof-report", "report.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    why = ("2 scenarios in a row got no answer at all (the last: the IUT did not answer: no answer within the case "
           "timeout of 0.5 s); stopped by --callproof-max-consecutive-errors 2")
    result.stdout.fnmatch_lines([f"stopped early: {why}"])
    report = report_of(pytester.path / "report.json")
    assert report["stopped"] == why and report["complete"] is False
    assert report["summary"]["cases"] == report["summary"]["error"] < 30


def test_a_progress_line_replaces_the_letters_on_a_terminal(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Patched where the plugin package's start_collector reads it: an earlier in-process run may have left another
    # copy of the _suite module in sys.modules (pytester restores sys.modules after each run), which a patch by
    # module path would reach instead of the copy the plugin calls. The package is looked up in sys.modules, which
    # the run reads it from: `from callproof.harness import plugin` may give a copy an earlier run imported and
    # pytester dropped from sys.modules since (the attribute stays on callproof.harness).
    plugin = importlib.import_module("callproof.harness.plugin")

    monkeypatch.setitem(vars(plugin)["start_collector"].__globals__, "isatty", lambda: True)
    result = pytester.runpytest_inprocess(*SUITE, "--callproof-launch", gateway(), "-k", "text_only::expected or "
                                          "one_call::expected")
    result.assert_outcomes(passed=2)
    erase = "\x1b[2K"  # after a carriage return, which the captured lines are split at
    assert [re.sub(r"\d+:\d\d", "T", line) for line in result.stderr.lines] == [
        "", f"{erase}callproof: 1/2 cases, 0 failed, 0 errors, T elapsed, ETA T",
        f"{erase}callproof: 2/2 cases, 0 failed, 0 errors, T elapsed, ETA T", erase]  # erased before the summary
    assert "test_conformance.py " in result.stdout.lines  # no letter after it: the line counts instead
    monkeypatch.setitem(vars(plugin)["start_collector"].__globals__, "isatty", lambda: False)
    result = pytester.runpytest_inprocess(*SUITE, "--callproof-launch", gateway(), "-k", "text_only::expected")
    assert "callproof: 1/1" not in result.stderr.str() and "\x1b" not in result.stderr.str()


def test_skip_reasons_are_in_the_terminal_summary(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--callproof-launch", gateway(), "-k", "malformed_args_completed::ids")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["cases: 1 skipped", "skipped 1: the IUT completed no tool call, so no call id to "
                                 "compare (the expected group judges the calls)"])
