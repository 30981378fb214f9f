"""`callproof run` ends cleanly (issue 12, clean ends): SIGTERM or SIGINT stops the launched gateway's whole process
group (also under pytest-xdist), writes report.json and every requested format marked incomplete, and exits 3; every
setup problem is one line and exit 2 before anything starts."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import fakes

from .test_run import CALLPROOF, gateway, refused_here, run


def _env() -> dict[str, str]:
    return fakes.run_env()


def _cases_written(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if '"kind":"case"' in line)
    except OSError:
        return 0


def _gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "State:\tZ" in status.read_text(encoding="utf-8")  # a zombie holds nothing; init reaps it
    except OSError:
        return True


def _group_gone(pgid: int) -> bool:
    """No process is left in the group (zombies the init process has not reaped yet are given a moment)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(("signum", "workers"), [(signal.SIGTERM, "2"), (signal.SIGINT, "0")])
def test_a_signal_stops_the_gateway_group_and_finishes_every_report(tmp_path: Path, signum: int,
                                                                     workers: str) -> None:
    pids = tmp_path / "pids"
    launch = f"{fakes.command('stubborn')} --pid-file {pids}{{port}} --upstream {{upstream}} --port {{port}}"
    process = subprocess.Popen(
        [str(CALLPROOF), "run", "--launch", launch, "-n", workers, "--md", "out.md", "--junit", "out.xml",
         "--html", "out.html", "--badge", "out.svg"],
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 120
    while _cases_written(tmp_path / "report.jsonl") < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    groups = {int(p.name.removeprefix("pids")): [int(x) for x in p.read_text(encoding="utf-8").split()]
              for p in tmp_path.glob("pids*")}
    assert groups, "no gateway was launched"
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 3, stdout + stderr
    assert stderr.splitlines()[-1].startswith(
        f"callproof run: interrupted by {signal.Signals(signum).name} after "), stderr
    assert "Traceback" not in stdout + stderr
    for port, (leader, *others) in groups.items():
        assert all(_gone(pid) for pid in [leader, *others])
        assert _group_gone(leader)
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no listener
            sock.bind(("127.0.0.1", port))  # the gateway's port is free again
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["complete"] is False and report["summary"]["cases"] >= 3
    assert "Incomplete run" in (tmp_path / "out.md").read_text(encoding="utf-8")
    assert all((tmp_path / name).stat().st_size for name in ("out.xml", "out.html", "out.svg"))


def test_setup_problems_are_one_line_and_exit_2_before_the_run(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    def refused(*args: str, process: bool = False) -> str:
        if not process:  # main() in this process: the first one runs the command, exit status and all
            return refused_here(tmp_path, capsys, *args)
        done, report = run(tmp_path, *args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert report is None and not (tmp_path / "report.jsonl").exists()
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and done.stdout == "", done.stderr
        return lines[0]

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert refused("--launch", gateway(), "--mock-port", str(port), process=True) == (
            f"callproof run: --mock-port {port} cannot be bound on 127.0.0.1 (Address already in use); pick a free "
            "port or stop what holds it")
    assert refused("--launch", gateway(), "--mock-port", "8123", "-n", "2") == (
        "callproof run: --mock-port 8123 with -n 2: each worker runs its own mock; drop one of them")
    (tmp_path / "bad.json").write_text('{"id": "mine"', encoding="utf-8")
    assert refused("--launch", gateway(), "--scenarios", "bad.json") == (
        f"callproof run: {tmp_path / 'bad.json'}: not valid JSON: Expecting ',' delimiter: line 1 column 14 (char 13); "
        "fix the syntax (a trailing comma?)")
    (tmp_path / "file").write_text("", encoding="utf-8")
    for flag in ("--md", "--html", "--junit", "--badge", "--report", "--write-baseline"):
        assert refused("--launch", gateway(), flag, "file/out") == (
            f"callproof run: {flag} file/out: file is a file, not a folder; choose another path")
    if os.geteuid() != 0:  # root writes anywhere
        (tmp_path / "locked").mkdir(mode=0o500)
        assert refused("--launch", gateway(), "--md", "locked/out.md") == (
            "callproof run: --md locked/out.md: cannot write there (Permission denied); choose a writable path")
    assert refused("--launch", gateway(), "--md", ".") == "callproof run: --md . is a folder; name a file"
    assert refused("--launch", f"{sys.executable} -m http.server") == (
        "callproof run: --launch has no {port} placeholder, so callproof cannot know where the gateway listens: add "
        "{port} to the command (e.g. --port {port}), or give --front-url with the fixed port it listens on "
        "(e.g. --front-url http://127.0.0.1:8080/v1/responses)")
    cap = 4 * (os.cpu_count() or 1)
    assert refused("--launch", gateway(), "-n", "999") == (
        f"callproof run: -n 999: this machine has {os.cpu_count() or 1} CPUs, so at most {cap} workers; give fewer "
        "or -n auto")
    assert refused("--launch", gateway(), "-n", "2.5") == "callproof run: -n '2.5': give a number of workers or auto"
    assert refused("--launch", gateway(), "--start-timeout", "0") == (
        "callproof: error: argument --start-timeout: must be a positive number, got 0 (see `callproof run --help`)")


def test_a_fixed_port_gateway_with_a_front_url_and_a_start_timeout(tmp_path: Path) -> None:
    from callproof.harness.run import free_port

    port = free_port()
    script = tmp_path / "slow.py"
    script.write_text(f"import sys, time\ntime.sleep(1.5)\nfrom tests.fakes.gateways import main\n"
                      f"main(['--upstream', sys.argv[1], '--port', '{port}'])\n", encoding="utf-8")
    args = ["--launch", f"{sys.executable} {script} {{upstream}}", "--front-url",
            f"http://127.0.0.1:{port}/v1/responses", "-k", "one_call::expected"]
    done, report = run(tmp_path, *args, "--start-timeout", "0.5")
    assert done.returncode == 2 and "within the start timeout" in done.stderr
    done, report = run(tmp_path, *args, "--start-timeout", "20")
    assert done.returncode == 0, done.stdout + done.stderr
    assert report is not None and [c["outcome"] for c in report["cases"]] == ["passed"]


def test_a_lone_surrogate_in_the_stream_is_evidence_not_a_crash(tmp_path: Path) -> None:
    done, report = run(tmp_path, "--launch", fakes.launch("lone_surrogate"), "-k", "text_only", "--md", "out.md",
                       "--html", "out.html", "--junit", "out.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "INTERNALERROR" not in done.stdout + done.stderr and "Traceback" not in done.stdout + done.stderr
    assert report is not None and report["complete"] is True
    case = next(c for c in report["cases"] if c["id"] == "text_only::reassembly")
    assert case["outcome"] == "failed"
    # the lone surrogate is kept as its escape, six characters, which the message quotes as a JSON string
    assert 'the joined deltas "\\\\ud83dThe c\\\\ud83dapita' in case["message"]
    assert "\\ud83d" in (tmp_path / "out.md").read_text(encoding="utf-8")
    capture = tmp_path / "capture.sse"
    capture.write_bytes(b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
                        b'"delta":"\\ud83d"}\n\n')
    checked = subprocess.run([str(CALLPROOF), "check", "--format", "json", str(capture)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 1 and json.loads(checked.stdout)["checks"][0]["conformant"] is False
