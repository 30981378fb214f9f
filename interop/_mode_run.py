"""One gateway mode under callproof: `callproof run` with the mode's front, upstream dialect and launch step, the
gateway's timeouts, its baseline when there is one, bounded by an overall timeout (the run's process group is
stopped then; callproof itself stops the gateway), and the verdict read back from the JSON report."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ._spec import Gateway, Mode
from ._template import fill

__all__ = ["ModeResult", "Paths", "command", "run_mode", "stop_all", "verdicts"]

#: The process groups of the callproof runs under way, for `stop_all`.
_LIVE: set[int] = set()


@dataclass(frozen=True)
class Paths:
    """Where a run reads and writes: the repository, the data file, the outputs, the venvs, the baselines."""

    root: Path
    data: Path
    out: Path
    baselines: Path
    callproof: Path
    venv_root: Path | None = None

    @property
    def venvs(self) -> Path:
        """Where the gateways' venvs are: `--venvs`, by default `<out>/venvs`."""
        return self.venv_root or self.out / "venvs"

    @property
    def work(self) -> Path:
        return self.out / "work"

    def venv(self, gateway: Gateway) -> Path:
        return self.venvs / gateway.name

    def baseline(self, gateway: Gateway, mode: Mode) -> Path:
        return self.baselines / f"{gateway.name}-{mode.id}.txt"

    def report(self, gateway: Gateway, mode: Mode) -> Path:
        return self.out / f"{gateway.name}-{mode.id}.json"

    def log(self, gateway: Gateway, mode: Mode) -> Path:
        return self.out / f"{gateway.name}-{mode.id}.log"


@dataclass(frozen=True)
class ModeResult:
    """A mode's verdict: `ok` when callproof exited 0 (every failure in the baseline); the case counts and, per
    failing rule, its cases, as the report has them."""

    gateway: str
    version: str
    mode: str
    exit_code: int | None
    problem: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    rules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    levels: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.problem


def _brace(text: str) -> str:
    """A literal for callproof's `--launch` template, which reads `{{` and `}}` as braces."""
    return text.replace("{", "{{").replace("}", "}}")


def command(gateway: Gateway, mode: Mode, paths: Paths, *, workers: int = 2, keyword: str | None = None) -> list[str]:
    """The `callproof run` argv of one mode."""
    step = [sys.executable, "-m", "interop.gateways", "exec", "--data", str(paths.data), "--venv",
            str(paths.venv(gateway)), "--work", str(paths.work), "--root", str(paths.root), gateway.name, mode.id]
    launch = " ".join(_brace(shlex.quote(part)) for part in step)
    launch += " --upstream {upstream} --upstream-root {upstream_root} --port {port}"
    argv = [str(paths.callproof), "run", "--front", mode.front, "--upstream-dialect", mode.upstream,
            "--launch", launch, "--start-timeout", f"{gateway.start_timeout:g}",
            "--case-timeout", f"{gateway.case_timeout:g}", "--report", str(paths.report(gateway, mode))]
    if workers > 1:
        argv += ["-n", str(workers)]
    if mode.front_transport != "http":
        argv += ["--front-transport", mode.front_transport]
    if paths.baseline(gateway, mode).exists():
        argv += ["--baseline", str(paths.baseline(gateway, mode))]
    if keyword:
        argv += ["-k", keyword]
    values = {"venv": str(paths.venv(gateway)), "root": str(paths.root)}
    return argv + [fill(arg, values) for arg in mode.args]


def verdicts(report: Path) -> tuple[dict[str, int], dict[str, tuple[str, ...]], dict[str, str], dict[str, str]]:
    """The report's counts, failing rules (rule -> case ids), their levels and the error cases' messages."""
    data = json.loads(report.read_text(encoding="utf-8"))
    rules: dict[str, list[str]] = {}
    levels: dict[str, str] = {}
    errors: dict[str, str] = {}
    for case in data["cases"]:
        if case["outcome"] == "error":
            errors[case["id"]] = case.get("message", "")
        for result in case.get("results", ()):
            if result["outcome"] == "failed":
                rules.setdefault(result["rule"], []).append(case["id"])
                levels[result["rule"]] = result.get("level", "")
    counts = {k: int(v) for k, v in data["summary"].items()}
    return counts, {rule: tuple(ids) for rule, ids in sorted(rules.items())}, levels, errors


def _stop_group(pid: int, wait: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM the run's group (callproof then stops its gateway and writes its report), SIGKILL it after 15 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sig)
        if wait is None:
            continue
        with contextlib.suppress(subprocess.TimeoutExpired):
            wait.wait(timeout=15)
            return


def stop_all() -> None:
    """Stop every callproof run still under way (the runner was interrupted)."""
    for pid in list(_LIVE):
        _stop_group(pid)


def run_mode(gateway: Gateway, mode: Mode, version: str, paths: Paths, *, workers: int = 2,
             keyword: str | None = None, timeout: float = 3600.0) -> ModeResult:
    """Run one mode; its output goes to `<out>/<name>-<mode>.log`. Never raises for the gateway's sake: a run that
    timed out or wrote no report is a result with its `problem`."""
    report, log = paths.report(gateway, mode), paths.log(gateway, mode)
    paths.out.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    argv = command(gateway, mode, paths, workers=workers, keyword=keyword)
    problem = ""
    with log.open("w", encoding="utf-8") as sink:
        sink.write("$ " + shlex.join(argv) + "\n")
        sink.flush()
        process = subprocess.Popen(argv, cwd=paths.root, stdout=sink, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        _LIVE.add(process.pid)
        try:
            code: int | None = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            problem = f"the run took over {timeout:.0f} s (--mode-timeout) and was stopped"
            _stop_group(process.pid, process)
            code = process.poll()
        finally:
            _LIVE.discard(process.pid)
    if not report.exists():
        tail = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()][-1:]
        return ModeResult(gateway.name, version, mode.id, code,
                          problem or f"no report written (exit {code}): {tail[0] if tail else 'no output'}")
    counts, rules, levels, errors = verdicts(report)
    return ModeResult(gateway.name, version, mode.id, code, problem, counts, rules, levels, errors)
