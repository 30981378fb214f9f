"""`callproof run` end to end, as a user runs it from a shell: exit codes, the report written in every case
(correct IUT, broken IUT, IUT that never starts, crashes mid-run or hangs), baselines, client mode."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness.cli import main
from tests import fakes

ROOT = Path(__file__).resolve().parents[3]
CALLPROOF = Path(sys.executable).parent / "callproof"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))


def gateway(defect: str | None = None) -> str:
    return fakes.launch("gateways", defect)


def run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any] | None]:
    env = fakes.run_env()
    done = subprocess.run([str(CALLPROOF), "run", *args], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    path = tmp_path / "report.json"
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    if report is not None:
        jsonschema.validate(report, SCHEMA)
    return done, report


def refused_here(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line of a run refused before any case, as `callproof.harness.cli.main` gives it in this process, run
    from `tmp_path` (exit 2, nothing on stdout, no report): the messages' own checks, without a process start each.
    That the command's process exits 2 with that one line and no traceback is `run`'s to show."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.setattr(sys, "path", [*sys.path])  # --app / --client put the working directory on it
        try:
            code: int | str | None = main(["run", *args])
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert out == "" and not (tmp_path / "report.json").exists() and not (tmp_path / "report.jsonl").exists()
    [line] = err.splitlines()
    return line


def outcomes(report: dict[str, Any] | None) -> dict[str, str]:
    assert report is not None
    return {c["id"]: c["outcome"] for c in report["cases"]}


def test_a_conformant_gateway_exits_0(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", gateway(), "-k", "one_call or text_only")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(outcomes(report).values()) == {"passed"} and len(outcomes(report)) == 21
    assert done.stdout.splitlines()[-1] == "callproof run: 21 cases: 21 passed; report: report.json"


def test_a_must_failure_exits_1(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", gateway("fresh_call_ids"), "-k", "one_call", "-n", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes(report)["one_call::ids"] == "failed"
    assert "GW-ID-001 MUST" in done.stdout


def test_a_gateway_that_never_starts_is_one_line_and_exit_2_before_any_case(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", f"{sys.executable} -c \"raise SystemExit('no config file')\" {{port}}",
                       "-k", "one_call")
    assert done.returncode == 2 and done.stdout == "" and report is None
    [line] = done.stderr.splitlines()
    assert line.startswith("callproof run: the IUT did not start: it exited before it was ready (exit status 1); its "
                           "last stderr line: 'no config file'; command: [")


def test_a_gateway_that_crashes_mid_run_errors_that_case_and_is_restarted(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", gateway("dies_on_large_arguments"),
                       "-k", "large_arguments::expected or one_call::expected or text_only::expected")
    assert done.returncode == 1, done.stdout + done.stderr
    got = outcomes(report)
    assert got["large_arguments::expected"] == "error"
    assert got["one_call::expected"] == "passed" and got["text_only::expected"] == "passed"
    assert report is not None
    crashed = next(c for c in report["cases"] if c["id"] == "large_arguments::expected")
    assert "the IUT" in crashed["message"] and "dies_on_large_arguments: exiting" in crashed["message"]



def test_a_gateway_that_hangs_is_timed_out_per_case(tmp_path: Path) -> None:
    script = tmp_path / "hang.py"
    script.write_text(fakes.HANGS_ON_POST, encoding="utf-8")
    done, report = run(tmp_path, "--launch", f"{sys.executable} {script} {{port}}", "--case-timeout", "0.5",
                       "-k", "one_call::expected or text_only::expected")
    assert done.returncode == 1
    assert report is not None and {c["message"] for c in report["cases"]} == {
        "the IUT did not answer: no answer within the case timeout of 0.5 s"}


def test_write_baseline_then_run_against_it(tmp_path: Path) -> None:
    args = ["--launch", gateway("drops_retry_after"), "-k", "fault_http_429 or one_call::expected"]
    done, _ = run(tmp_path, *args, "--write-baseline", "known.txt")
    assert done.returncode == 0, done.stdout + done.stderr  # the baseline was written: adopting is not failing
    assert (tmp_path / "known.txt").read_text(encoding="utf-8").splitlines()[1:] == [
        "fault_http_429::faults GW-FAULT-002"]
    done, report = run(tmp_path, *args, "--baseline", "known.txt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert outcomes(report)["fault_http_429::faults"] == "xfailed"


def test_client_mode_with_an_adapter_program(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--client-cmd", fakes.command("clients"),
                       "-k", "parallel_two_calls or fault_http_500 and not echoes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert outcomes(report) == {"parallel_two_calls::expected": "passed", "parallel_two_calls::client": "passed",
                                "fault_http_500::expected": "passed", "fault_http_500::client": "passed"}
    assert report is not None and report["target"]["kind"] == "client"


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "one of the arguments --launch --target --app --client-cmd --client" in refused_here(tmp_path, capsys)
    assert "-n 'many': give a number of workers or auto" in refused_here(tmp_path, capsys, "--launch", gateway(),
                                                                          "-n", "many")
    done, _ = run(tmp_path, "--launch", gateway(), "-k", "no_such_scenario_anywhere")
    assert done.returncode == 2 and done.stdout == ""
    assert re.fullmatch(r"callproof run: -k 'no_such_scenario_anywhere' matches none of the \d+ cases of this run "
                        r"\(add --list-cases to this command to list them\)\n", done.stderr), done.stderr


def test_target_mode_against_a_gateway_started_by_hand(tmp_path: Path) -> None:
    from callproof.harness.run import free_port

    mock_port, port = free_port(), free_port()
    gw = subprocess.Popen([sys.executable, "-m", "tests.fakes.gateways", "--upstream",
                           f"http://127.0.0.1:{mock_port}/v1", "--port", str(port)], env=fakes.env())
    try:
        # started by hand, as a user would: wait until it listens (a start on a loaded machine took over 20 s once),
        # else stop here with the reason rather than judge a gateway that is not there yet
        deadline, listening = time.monotonic() + 120, False
        while not listening and time.monotonic() < deadline and gw.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                listening = True
            time.sleep(0 if listening else 0.05)
        assert listening, f"the gateway started by hand did not listen on {port} (exit {gw.poll()})"
        done, report = run(tmp_path, "--target", f"http://127.0.0.1:{port}/v1/responses", "--mock-port",
                           str(mock_port), "-k", "one_call::expected or fault_http_429::faults")
    finally:
        gw.terminate()
        gw.wait(timeout=10)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outcomes(report) == {"one_call::expected": "passed", "fault_http_429::faults": "passed"}
    done, _ = run(tmp_path, "--target", "http://127.0.0.1:9/v1/responses")
    assert done.returncode == 2 and done.stderr.startswith("callproof run: --target needs --mock-port PORT")


def test_app_mode_serves_an_asgi_gateway_in_process(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--app", "tests.fakes.gateway_app:app", "-k", "timing_explicit_delays")
    assert done.returncode == 0, done.stdout + done.stderr
    got = outcomes(report)
    assert got["timing_explicit_delays::streaming"] == "passed" and set(got.values()) == {"passed"}


# -- no verdict without evidence (docs/report.md#outcomes) ------------------------------------------------------


def by_id(report: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    assert report is not None
    return {c["id"]: c for c in report["cases"]}


NGINX_502 = "HTTP 502 text/html, 157 bytes, 0 events"


@pytest.mark.parametrize(("defect", "why"), [
    ("html", f"{NGINX_502}, an HTTP error where the scenario expects a completed stream"),
    ("html200", "a stream request was answered with HTTP 200 text/html, 157 bytes, 0 events, not text/event-stream"),
    ("json", "a stream request was answered with HTTP 200 application/json, 2 bytes, 0 events, not "
             "text/event-stream"),
    ("empty", "HTTP 200 text/event-stream, 0 bytes, 0 events: nothing the stream rules can apply to"),
])
def test_an_answer_without_a_stream_passes_and_skips_no_group(tmp_path: Path, defect: str, why: str) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("hollow", defect), "-k", "one_call")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = by_id(report)
    assert len(cases) == 11 and {c["outcome"] for c in cases.values()} <= {"error", "failed"}
    errors = {k for k, c in cases.items() if c["outcome"] == "error"}
    assert {"one_call::identity", "one_call::reassembly", "one_call::sequence", "one_call::equivalence",
            "one_call::ids"} <= errors
    assert {cases[k]["message"] for k in errors} == {f"no judgeable stream: {why}"}
    for case in cases.values():  # a failed case names the MUST rule that failed, then why nothing else was judged
        if case["outcome"] == "failed":
            assert any(r["outcome"] == "failed" and r["level"] == "MUST" for r in case["results"])
            assert case["message"].endswith(f"\nno judgeable stream: {why}")


def test_selecting_only_unjudgeable_cases_exits_1_in_one_line(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("hollow", "html"), "-k", "one_call::framing")
    assert done.returncode == 1 and outcomes(report) == {"one_call::framing": "error"}
    assert done.stderr.splitlines() == [
        "callproof run: no case was judged: 1 case: 1 error; one_call::framing: no judgeable stream: "
        f"{NGINX_502}, an HTTP error where the scenario expects a completed stream"]


def test_an_http_error_without_an_upstream_request_is_no_legitimate_failure(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("hollow", "html"), "-k", "fault_stream_error")
    assert done.returncode == 1
    cases = by_id(report)
    assert cases["fault_stream_error::translation"]["outcome"] == "failed"  # GW-REQ-001: it never called upstream
    others = {c["outcome"] for k, c in cases.items() if k != "fault_stream_error::translation"}
    assert others == {"error"} and cases["fault_stream_error::expected"]["message"] == (
        f"no judgeable stream: {NGINX_502}, an HTTP error without a request to the upstream")


def test_a_stream_that_stalls_after_response_created_is_judged_nothing(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("hollow", "stall"), "-k", "one_call", "--case-timeout",
                       "1")
    assert done.returncode == 1
    cases = by_id(report)
    assert {c["outcome"] for c in cases.values()} <= {"error", "failed"}
    for group in ("framing", "identity", "reassembly", "sequence", "equivalence"):
        case = cases[f"one_call::{group}"]
        assert case["outcome"] == "error"
        assert re.fullmatch(r"no judgeable stream: no end of the answer within the case timeout of 1 s; HTTP 200 "
                            r"text/event-stream, \d+ bytes, 1 event \(the last 'response.created'\) had arrived",
                            case["message"]), case["message"]
        assert [e["type"] for e in case["timeline"]] == ["response.created"]  # the evidence of what did arrive
        assert case["details"]["timed_out"] == "no end of the answer within the case timeout of 1 s"


def test_50_mb_of_random_bytes_pass_no_group(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("hollow", "noise"), "-k",
                       "one_call and (framing or schema or sequence or identity or reassembly or equivalence)")
    assert done.returncode == 1
    cases = by_id(report)
    assert cases["one_call::framing"]["outcome"] == "failed"
    assert next(r["rule"] for r in cases["one_call::framing"]["results"] if r["outcome"] == "failed") == "SSE-001"
    for group in ("schema", "sequence", "identity", "reassembly", "equivalence"):
        assert cases[f"one_call::{group}"]["outcome"] == "error"
        assert cases[f"one_call::{group}"]["message"] == (
            "no judgeable stream: HTTP 200 text/event-stream, 50000000 bytes, 0 events: nothing the stream rules "
            "can apply to")


SILENT = f"{sys.executable} -c pass"
NO_RESULT = ("no result to judge: the adapter exited 0 and printed nothing on stdout: print one result object")


def test_an_adapter_that_prints_nothing_is_never_conformant(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--client-cmd", SILENT, "-k", "one_call::expected", "--md", "out.md")
    assert done.returncode == 1
    assert outcomes(report) == {"one_call::expected": "error"}
    assert done.stderr.splitlines() == [
        f"callproof run: no case was judged: 1 case: 1 error; one_call::expected: {NO_RESULT}"]
    markdown = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert markdown.startswith("## ❌ callproof: nothing judged\n") and "conformant" not in markdown
    done, report = run(tmp_path, "--client-cmd", SILENT, "-k", "expected and parallel")
    assert done.returncode == 1
    # agent_loop_parallel_results and usage_responses_parallel_calls too
    assert len(outcomes(report)) == 9 and set(outcomes(report).values()) == {"error"}
    assert done.stderr.startswith("callproof run: no case was judged: 9 cases: 9 errors; ")
    done, report = run(tmp_path, "--client-cmd", SILENT, "-k", "one_call")
    client = by_id(report)["one_call::client"]  # the client rules judge it: CLI-001, the protocol was not kept
    assert client["outcome"] == "failed" and client["message"].endswith(f"\n{NO_RESULT}")


def test_a_run_whose_cases_were_all_skipped_exits_1(tmp_path: Path) -> None:
    burst = {"feature": "burst", "description": "a timing scenario too short to judge streaming", "scenarios": [{
        "id": "burst_text", "description": "one text delta, tagged timing", "tags": ["timing"],
        "output": [{"type": "text", "text": "Paris.", "chunk": {"size": 64}}],
        "request": {"input": [{"role": "user", "text": "What is the capital of France?"}]},
        "expect": {"status": "completed", "text": "Paris."}}]}
    (tmp_path / "burst.json").write_text(json.dumps(burst), encoding="utf-8")
    done, report = run(tmp_path, "--launch", gateway(), "--scenarios", "burst.json", "-k", "burst_text::streaming",
                       "--badge", "badge.svg")
    assert done.returncode == 1 and outcomes(report) == {"burst_text::streaming": "skipped"}
    assert done.stderr.splitlines() == [
        "callproof run: no case was judged: 1 case: 1 skipped; burst_text::streaming: the upstream's content came in "
        "too short a burst, with no scripted pause, to tell streaming from buffering"]
    assert ">nothing judged</text>" in (tmp_path / "badge.svg").read_text(encoding="utf-8")


def test_the_printed_repro_of_a_failing_case_reproduces_it(tmp_path: Path) -> None:
    basic = json.loads((ROOT / "scenarios" / "basic.json").read_text(encoding="utf-8"))
    mine = {**next(s for s in basic["scenarios"] if s["id"] == "one_call"), "id": "my_call"}
    (tmp_path / "mine").mkdir()
    doc = {"feature": "my", "description": "mine", "scenarios": [mine]}
    (tmp_path / "mine" / "my.json").write_text(json.dumps(doc), encoding="utf-8")
    launch = gateway("fresh_call_ids") + " --upstream-dialect anthropic"
    done, report = run(tmp_path, "--launch", launch, "--upstream-dialect", "anthropic", "--profile", "lenient",
                       "--scenarios", "mine/my.json", "--case-timeout", "20", "-k", "my_call")
    assert done.returncode == 1, done.stdout + done.stderr
    assert report is not None
    def failed(cases: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
        return [(c["id"], [r["rule"] for r in c["results"] if r["outcome"] == "failed"]) for c in cases
                if c["outcome"] == "failed"]

    failing = failed(report["cases"])
    assert ("my_call::ids", ["GW-ID-001"]) in failing
    repro = next(c["repro"] for c in report["cases"] if c["id"] == "my_call::ids")
    assert "--upstream-dialect anthropic" in repro and "--profile lenient" in repro
    assert f"--scenarios {tmp_path / 'mine' / 'my.json'}" in repro and "--case-timeout 20" in repro
    elsewhere = tmp_path / "elsewhere"  # scenario paths are absolute: the repro runs from any folder
    elsewhere.mkdir()
    env = fakes.run_env()
    env["PATH"] = f"{CALLPROOF.parent}{os.pathsep}{env.get('PATH', '')}"
    again = subprocess.run(repro, shell=True, cwd=elsewhere, capture_output=True, text=True, env=env, timeout=300,
                           check=False)
    assert again.returncode == 1, again.stdout + again.stderr
    replayed = json.loads((elsewhere / "report.json").read_text(encoding="utf-8"))
    assert failed(replayed["cases"]) == [("my_call::ids", ["GW-ID-001"])]
    assert replayed["profile"] == "lenient" and replayed["target"]["upstream_dialect"] == "anthropic"


def test_gw_eq_001_blames_the_half_that_differs_from_the_scenario(tmp_path: Path) -> None:
    def message(defect: str, case_id: str) -> str:
        done, report = run(tmp_path, "--launch", gateway(defect), "-k", case_id)
        assert done.returncode == 1, done.stdout + done.stderr
        assert report is not None
        (case,) = report["cases"]
        (rule,) = [r for r in case["results"] if r["outcome"] == "failed"]
        assert rule["rule"] == "GW-EQ-001"
        return str(case["message"])

    assert ("the non-stream response differs from the scenario's expected outcome, the stream matches it"
            in message("non_stream_drops_calls", "parallel_two_calls::equivalence"))
    assert ("the stream differs from the scenario's expected outcome, the non-stream response matches it"
            in message("drops_text_deltas", "text_only::equivalence"))


def test_headers_reach_every_front_request_and_stay_masked(tmp_path: Path) -> None:
    app = "tests.fakes.auth_gateway_app:app"
    cases = "one_call or concurrent"  # the stream, its non-stream twin (equivalence) and the isolation requests
    done, report = run(tmp_path, "--app", app, "--header", "Authorization: Bearer s3cret-front",
                       "--header", "X-Tenant:t1", "-k", cases)
    assert done.returncode == 0, done.stdout + done.stderr
    got = outcomes(report)
    assert {"one_call::equivalence", "concurrent::isolation"} <= set(got) and set(got.values()) == {"passed"}
    written = (tmp_path / "report.json").read_text(encoding="utf-8") + done.stdout + done.stderr
    assert "s3cret-front" not in written and "Authorization:***" in written
    assert "X-Tenant:t1" in written  # not a secret: shown as given
    done, report = run(tmp_path, "--app", app, "--header", "X-Tenant:t1", "-k", "one_call")
    assert done.returncode != 0 and "401" in done.stdout
    done, _ = run(tmp_path, "--app", app, "--header", "Authorization")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "--header: expected NAME:VALUE" in done.stderr


def test_the_runs_own_key_is_judged_and_never_written(tmp_path: Path) -> None:
    """Issue #36 item 9: with no `--header`, the run sends the front a key of its own; a gateway that echoes its
    caller's key fails GW-FAULT-005 naming the header, and neither the terminal nor the reports show the key."""
    done, report = run(tmp_path, "--launch", gateway("echoes_caller_key"), "-k", "fault_http_401::faults",
                       "--md", "report.md", "--html", "report.html", "--junit", "report.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes(report) == {"fault_http_401::faults": "failed"}
    written = done.stdout + done.stderr + "".join(
        (tmp_path / name).read_text(encoding="utf-8") for name in ("report.json", "report.md", "report.html",
                                                                    "report.xml"))
    assert "GW-FAULT-005" in done.stdout and "the `authorization` header the front was sent" in done.stdout
    assert "sk-callproof-" not in written


@pytest.mark.parametrize(("args", "line"), [
    (["--policy", "xml-tool-text=bogus"],
     "callproof: error: argument --policy: policy xml-tool-text takes passthrough or convert, got 'bogus'"),
    (["--policy", "nope=1"],
     "callproof: error: argument --policy: unknown policy 'nope'; known: custom-tools, stateful, xml-tool-text"),
    (["--policy", "convert"],
     "callproof: error: argument --policy: expected KEY=VALUE (e.g. xml-tool-text=convert), got 'convert'"),
    (["--max-events", "0"], "callproof: error: argument --max-events: must be at least 1, got 0"),
    (["--max-bytes", "x"], "callproof: error: argument --max-bytes: expected a whole number, got 'x'"),
    (["--strict-baseline"],
     "callproof run: --strict-baseline needs --baseline FILE: the baseline whose stale entries fail the run"),
])
def test_bad_policy_limit_and_strict_baseline_options_exit_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], line: str,
) -> None:
    assert refused_here(tmp_path, capsys, "--launch", gateway(), *args) == (
        line + (" (see `callproof run --help`)" if "error:" in line else ""))


def test_the_xml_tool_text_policy_switches_the_expectation_and_is_reported(tmp_path: Path) -> None:
    args = ["--launch", gateway("converts_xml_tool_text"), "-k", "xml_tool_text_two_calls", "--md", "r.md",
            "--junit", "r.xml"]
    done, report = run(tmp_path, *args)
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes(report)["xml_tool_text_two_calls::policy"] == "failed"
    assert "GW-XML-001 MUST: --policy xml-tool-text=passthrough: the answer holds the tool calls" in done.stdout
    assert report is not None and report["target"]["policy"] == {"xml-tool-text": "passthrough", "stateful": "either",
                                                                 "custom-tools": "either"}
    done, report = run(tmp_path, *args, "--policy", "xml-tool-text=convert")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(outcomes(report).values()) == {"passed"}
    assert report is not None and report["target"]["policy"] == {"xml-tool-text": "convert", "stateful": "either",
                                                                 "custom-tools": "either"}
    policies = "custom-tools=either, stateful=either, xml-tool-text=convert"
    assert f"**policy** {policies}" in (tmp_path / "r.md").read_text(encoding="utf-8")
    assert '<property name="policy" value="custom-tools=either, stateful=either, xml-tool-text=convert" />' in (
        tmp_path / "r.xml").read_text("utf-8")
    assert all("--policy xml-tool-text=convert" in c["repro"] for c in report["cases"])


def test_a_runaway_answer_fails_its_cases_past_max_events(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", gateway("runaway_stream"), "-k", "text_only", "--max-events", "100")
    assert done.returncode == 1, done.stdout + done.stderr
    assert set(outcomes(report).values()) == {"failed"}
    assert report is not None
    assert {r["rule"] for c in report["cases"] for r in c["results"]} == {"GW-LIMIT-001"}
    assert "GW-LIMIT-001 MUST: --max-events 100: the answer exceeded it (" in done.stdout


def test_strict_baseline_fails_the_run_on_stale_entries_naming_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "known.txt").write_text("# known\nfault_http_429::faults GW-FAULT-002\n"
                                        "one_call::expected  # fixed since\n", encoding="utf-8")
    args = ["--launch", gateway("drops_retry_after"), "-k", "fault_http_429::faults or one_call::expected",
            "--baseline", "known.txt"]
    done, _ = run(tmp_path, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    done, report = run(tmp_path, *args, "--strict-baseline")
    assert done.returncode == 1, done.stdout + done.stderr
    assert outcomes(report) == {"fault_http_429::faults": "xfailed", "one_call::expected": "passed"}
    assert done.stderr.splitlines() == [
        "callproof run: known.txt:3: stale baseline entry: one_call::expected passes now; delete the line",
        "callproof run: --strict-baseline: 1 stale baseline entry fails the run"]
