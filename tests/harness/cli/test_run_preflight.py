"""`callproof run` before and around the cases (issue 25): an IUT that cannot start or be reached is one line and
exit 2 before any case; a run whose IUT stops answering stops itself (`--max-consecutive-errors`), exit 1, the
report written with what was judged and why it stopped; the launched IUT dies with the harness, SIGKILL included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from callproof.harness.run import free_port
from tests import fakes

from .test_run import CALLPROOF, gateway, refused_here, run
from .test_run_ends import _env

VALID = "the placeholders are {upstream}, {upstream_root} and {port}; write {{ and }} for a literal brace"


def refused(tmp_path: Path, *args: str, here: pytest.CaptureFixture[str] | None = None) -> str:
    """The one line of a run refused before any case (exit 2, nothing on stdout, no report); `here`: from main() in
    this process, its output captured there (test_run.refused_here)."""
    if here is not None:
        return refused_here(tmp_path, here, *args)
    done, report = run(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and report is None and not (tmp_path / "report.jsonl").exists()
    [line] = done.stderr.splitlines()
    return line


def test_an_iut_that_cannot_start_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def here(*args: str) -> str:  # main() in this process: the first one runs the command, exit status and all
        return refused(tmp_path, *args, here=capsys)

    exits = f"{sys.executable} -c \"import sys; sys.exit('boom: config missing')\" {{port}}"
    assert refused(tmp_path, "--launch", exits).startswith(
        "callproof run: the IUT did not start: it exited before it was ready (exit status 1); its last stderr line: "
        "'boom: config missing'; command: [")
    assert here("--launch", "callproof-no-such-gateway --port {port}") == (
        "callproof run: --launch could not run 'callproof-no-such-gateway': No such file or directory; check the "
        "command and PATH")
    assert here("--launch", "gw --up {upstrem} --port {port}") == (
        "callproof run: --launch 'gw --up {upstrem} --port {port}' has an unknown placeholder {upstrem}; " + VALID)
    assert here("--launch", "gw --name 'x --port {port}") == (
        "callproof run: --launch \"gw --name 'x --port {port}\" is not a valid command (No closing quotation); close "
        "the quote, or quote a literal quote character")
    assert here("--launch", gateway(), "--front-url", "http://127.0.0.1:{prot}/v1/responses") == (
        f"callproof run: --front-url 'http://127.0.0.1:{{prot}}/v1/responses' has an unknown placeholder {{prot}}; "
        f"{VALID}")
    assert here("--launch", gateway(), "--ready-url", "http://127.0.0.1:{prot}/ok") == (
        f"callproof run: --ready-url 'http://127.0.0.1:{{prot}}/ok' has an unknown placeholder {{prot}}; {VALID}")
    port, mock = free_port(), free_port()
    assert here("--target", f"http://127.0.0.1:{port}/v1/responses", "--mock-port", str(mock)) == (
        f"callproof run: --target http://127.0.0.1:{port}/v1/responses: nothing accepts connections on "
        f"127.0.0.1:{port} (Connection refused); start the IUT first, pointed at the mock, http://127.0.0.1:{mock}/v1")
    for flag in ("--app", "--client"):
        assert here(flag, "callproof_no_such_module:thing") == (
            f"callproof run: {flag} 'callproof_no_such_module:thing': importing 'callproof_no_such_module' failed: "
            "ModuleNotFoundError: No module named 'callproof_no_such_module'")


def test_literal_braces_reach_the_command(tmp_path: Path) -> None:
    script = tmp_path / "gw.py"
    script.write_text("import json, runpy, sys\n"
                      f"open({str(tmp_path / 'extra.json')!r}, 'w').write(sys.argv[2])\n"
                      "sys.argv = [sys.argv[0], *sys.argv[3:]]\nrunpy.run_module('tests.fakes.gateways', "
                      "run_name='__main__')\n", encoding="utf-8")
    done, _ = run(tmp_path, "--launch", f"{sys.executable} {script} --extra '{{{{\"a\": 1}}}}' --upstream {{upstream}} "
                  "--port {port}", "-k", "one_call::expected")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "extra.json").read_text(encoding="utf-8")) == {"a": 1}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_gateway_that_stops_answering_stops_the_run(tmp_path: Path, workers: str) -> None:
    script = tmp_path / "hang.py"
    script.write_text(fakes.HANGS_ON_POST, encoding="utf-8")
    done, report = run(tmp_path, "--launch", f"{sys.executable} {script} {{port}}", "--case-timeout", "0.5",
                       "--max-consecutive-errors", "2", "-n", workers, "--md", "out.md")
    assert done.returncode == 1, done.stdout + done.stderr
    why = ("2 scenarios in a row got no answer at all (the last: the IUT did not answer: no answer within the case "
           "timeout of 0.5 s); stopped by --max-consecutive-errors 2")
    assert done.stderr.splitlines()[-1] == (
        f"callproof run: stopped early: {why}; the cases it did not reach are not in the report")
    assert "bringing up nodes" not in done.stdout + done.stderr
    assert report is not None and report["complete"] is False and report["stopped"] == why
    assert {c["outcome"] for c in report["cases"]} == {"error"}
    assert all(c["details"]["no_answer"] for c in report["cases"])
    assert len({c["scenario"] for c in report["cases"]}) < 10  # far from the 100 scenarios of the corpus
    escaped = why.replace("_", "\\_")
    assert f"> **Stopped early**: {escaped}." in (tmp_path / "out.md").read_text(encoding="utf-8")


def test_the_launched_iut_dies_with_the_harness_even_on_sigkill(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    script = tmp_path / "gw.py"
    script.write_text(f"import os\nopen({str(pids)!r}, 'w').write(str(os.getpid()))\n{fakes.HANGS_ON_POST}",
                      encoding="utf-8")
    process = subprocess.Popen([str(CALLPROOF), "run", "--launch", f"{sys.executable} {script} {{port}}",
                                "--max-consecutive-errors", "0"], cwd=tmp_path, env=_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "report.jsonl").exists() and time.monotonic() < deadline:  # the cases have begun
            time.sleep(0.05)
        iut = int(pids.read_text(encoding="utf-8"))
        os.kill(iut, 0)  # it runs
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        deadline = time.monotonic() + 30  # a bound that turns a survivor into a failure, not a timing claim
        while time.monotonic() < deadline:
            try:
                os.kill(iut, 0)
            except ProcessLookupError:
                break
            if "State:\tZ" in Path(f"/proc/{iut}/status").read_text(encoding="utf-8"):
                break  # a zombie holds nothing; init reaps it
            time.sleep(0.05)
        else:
            pytest.fail("the launched IUT outlived the SIGKILLed harness")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
