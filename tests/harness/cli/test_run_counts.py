"""`callproof run`'s output agrees with itself: the callproof section, pytest's last line and `callproof run`'s own
last line count the cases in the same words (a SHOULD-only failure is `SHOULD-failed`, never a pass in one line and
a failure in the next; a case that could not be judged is an `error` in each), the target line names the
transports, and the JSON Lines file written while the run goes is gone once the JSON report is written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests import fakes

CALLPROOF = Path(sys.executable).parent / "callproof"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = fakes.run_env()
    return subprocess.run([str(CALLPROOF), "run", *args], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def _counts(text: str) -> dict[str, int]:
    """`10 passed, 1250 deselected, 1 SHOULD-failed` as {word: count}, pytest's own `deselected` left out."""
    pairs = (part.split(" ", 1) for part in text.split(", "))
    return {word: int(n) for n, word in pairs if word != "deselected"}


def _three_counts(stdout: str) -> list[dict[str, int]]:
    """The counts of the callproof section, of pytest's last line and of `callproof run`'s last line."""
    lines = stdout.splitlines()
    section = next(x.removeprefix("cases: ") for x in lines if x.startswith("cases: "))
    pytest_line = next(re.sub(r" in [\d.]+s$", "", x) for x in reversed(lines) if re.search(r" in [\d.]+s$", x))
    last = re.fullmatch(r"callproof run: \d+ cases?: (.*); report: report\.json", lines[-1])
    assert last is not None, lines[-1]
    return [_counts(section), _counts(pytest_line), _counts(last.group(1))]


def test_a_should_only_failure_is_counted_alike_everywhere_and_the_run_exits_0(tmp_path: Path) -> None:
    done = _run(tmp_path, "--launch", fakes.launch("gateways", "drops_parallel_flag"), "-k", "parallel_calls_disabled")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    passed = report["summary"]["passed"]
    assert _three_counts(done.stdout) == [{"passed": passed, "SHOULD-failed": 1}] * 3
    assert "target: gateway, responses front, chat upstream" in done.stdout.splitlines()
    assert not (tmp_path / "report.jsonl").exists()


def test_cases_that_could_not_be_judged_are_errors_everywhere(tmp_path: Path) -> None:
    done = _run(tmp_path, "--launch", fakes.launch("gateways", "dies_on_large_arguments"),
                "-k", "large_arguments::expected or large_arguments::identity or one_call::expected")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _three_counts(done.stdout) == [{"passed": 1, "errors": 2}] * 3
    assert "ERROR at call of test_conformance[large_arguments::expected]" in done.stdout


def test_a_websocket_front_is_named_in_the_terminal_and_every_report(tmp_path: Path) -> None:
    done = _run(tmp_path, "--launch", fakes.launch(), "--front-transport", "websocket", "-k", "one_call::expected",
                "--md", "r.md", "--junit", "r.xml", "--html", "r.html")
    assert done.returncode == 0, done.stdout + done.stderr
    phrase = "responses front over WebSocket, chat upstream"
    assert f"target: gateway, {phrase}" in done.stdout.splitlines()
    target = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["target"]
    assert (target["front_transport"], target["upstream_transport"]) == ("websocket", "http")
    assert f" · {phrase} · " in (tmp_path / "r.md").read_text(encoding="utf-8")
    junit = (tmp_path / "r.xml").read_text(encoding="utf-8")
    assert f'<property name="dialects" value="{phrase}" />' in junit
    assert '<property name="front_transport" value="websocket" />' in junit
    assert f", {phrase}</dd>" in (tmp_path / "r.html").read_text(encoding="utf-8")
