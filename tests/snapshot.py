"""What callproof shows its users, normalised into a directory, and two such directories compared: the evidence that a
refactor changed nothing for users (issue #37: plans, reports, exit codes and --help identical before and after).

    python -m tests.snapshot take OUT [--checkout PATH] [--only GLOB ...] [--timeout S] [-n N]
    python -m tests.snapshot compare BEFORE AFTER

`take` runs the `callproof` of a checkout (its .venv, made by `make venv`; default: this one) and writes, under OUT:

- help/: `callproof --help` and the --help of every subcommand (and of theirs: `scenarios import`), with
  `callproof --version`;
- listings/: `callproof scenarios` and `callproof rules` (text and JSON), `callproof rules --front F` for each front,
  `callproof docs` (the topics);
- runs/NAME/: for every run below, `plan.txt` (the case ids of `callproof run --list-cases`), `exit.txt` (the exit
  code of the run), `summary.txt` (its closing lines), `report.json` (the JSON report, normalised and
  pretty-printed, its cases sorted by id) and `report.md` (`callproof report --format md` of that normalised
  report).

The runs (see RUNS): the bundled reference gateway (examples/gateway/) launched in each of the 9 front x upstream
dialect pairs over HTTP; its Responses WebSocket front (`--front-transport websocket`) over each upstream; each
front over the Responses upstream spoken over WebSocket (`--upstream-transport websocket`), and both WebSocket ends at
once; and each bundled client (examples/client_*.py, in-process `--client`): the openai SDK over Responses (HTTP and
WebSocket), over Chat Completions, and the anthropic SDK. Each is bounded by --timeout (the run is killed, its exit
recorded as `timeout`) and runs on -n workers.

Normalised, because they differ run to run or machine to machine (NORMALISE): durations and timestamps, the
callproof version, the platform, ports, the checkout's and OUT's paths, temporary paths, and the per-case random
ids the mock and the gateway mint (case tags, response, item and call ids), each replaced by a placeholder.

`compare` prints a unified diff of every file that differs or exists on one side only, and exits 1 if any does (0 if
none). Taking a snapshot of main before a refactor and of the branch after, then comparing, is the check.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RUNS", "Run", "compare", "main", "normalise_report", "normalise_summary", "normalise_text", "take"]

HERE = Path(__file__).resolve().parents[1]
DIALECTS = ("responses", "chat", "anthropic")


@dataclass(frozen=True, slots=True)
class Run:
    """One `callproof run` of the snapshot: its directory name and its arguments (the launch line's `{python}` is
    the checkout's interpreter)."""

    name: str
    args: tuple[str, ...]


def _gateway(front: str, upstream: str, front_ws: bool = False, upstream_ws: bool = False) -> Run:
    launch = f"{{python}} -m examples.gateway --upstream {{upstream}} --port {{port}} --upstream-dialect {upstream}"
    args = ["--front", front, "--upstream-dialect", upstream]
    name = f"gateway-{front}-{upstream}"
    if front_ws:
        args += ["--front-transport", "websocket"]
        name += "-wsfront"
    if upstream_ws:
        args += ["--upstream-transport", "websocket"]
        name += "-wsupstream"
    return Run(name, (*args, "--launch", launch))


def _client(name: str, dialect: str, function: str, transport: str = "http") -> Run:
    return Run(f"client-{name}", ("--client-dialect", dialect, "--client-transport", transport, "--client", function))


#: Every run: the gateway in each pair over HTTP, its WebSocket front, its WebSocket upstream, both; every client.
RUNS: tuple[Run, ...] = (
    *(_gateway(front, upstream) for front in DIALECTS for upstream in DIALECTS),
    *(_gateway("responses", upstream, front_ws=True) for upstream in DIALECTS),
    *(_gateway(front, "responses", upstream_ws=True) for front in DIALECTS),
    _gateway("responses", "responses", front_ws=True, upstream_ws=True),
    _client("openai-responses", "responses", "callproof.examples.client_openai:run"),
    _client("openai-responses-ws", "responses", "callproof.examples.client_openai_ws:run", "websocket"),
    _client("openai-chat", "chat", "callproof.examples.client_openai_chat:run"),
    _client("anthropic", "anthropic", "callproof.examples.client_anthropic:run"),
)

#: Keys whose values are timings (and names ending in a unit of time), replaced wherever they occur in a report.
TIMING_KEYS = frozenset({"started_at", "load_average"})
TIMING_SUFFIXES = ("_s", "_ms", "_seconds")
#: Keys whose whole value is measured on the machine (the harness's clock calibration, a gateway's forwarding latency,
#: and how many of the concurrent requests overlapped in time).
MEASURED_KEYS = frozenset({"calibration", "forwarding_latency_ms", "overlapped"})
#: Keys whose values depend on which of the concurrent requests reached the mock first, under these parents (the
#: upstream request a cancelled case's was, the mock's WebSocket connection a client's turn came on).
ORDER_KEYS = {("cancel", "request"), ("websocket_turns", "connection")}
#: Rules judged only when the pauses the harness measured were long enough: a passed result of one may be there in one
#: run and not in the next on a busy machine (a failed one stays, and shows).
TIMED_RULES = frozenset({"GW-STREAM-002"})
#: Lines of pytest's summary whose order is the workers' (sorted in place).
UNORDERED_LINES = ("FAILED ", "ERROR ", "XFAIL ", "XPASS ", "SKIPPED ")
#: (pattern, replacement) over every string of a report and every text output, in order.
NORMALISE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(127\.0\.0\.1|localhost|0\.0\.0\.0):\d+"), r"\1:<port>"),
    (re.compile(r"/tmp/[^\s'\"]*"), "<tmp>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?"), "<time>"),
    (re.compile(r"\bin \d+(\.\d+)?s\b"), "in <t>s"),
    (re.compile(r" \(\d+:\d\d:\d\d\)$", re.MULTILINE), ""),  # pytest's wall time past a minute
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{32}\b"), "<hex>"),  # a case tag (uuid4().hex)
)


def normalise_text(text: str, roots: Sequence[tuple[str, str]] = ()) -> str:
    """`text` with each root path (longest first) replaced by its placeholder, then the NORMALISE patterns."""
    for path, placeholder in sorted(roots, key=lambda root: -len(root[0])):
        text = text.replace(path, placeholder)
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def _normalise_json(value: object, roots: Sequence[tuple[str, str]], path: tuple[str, ...] = ()) -> object:
    key = path[-1] if path else ""
    if key in MEASURED_KEYS:
        return "<measured>"
    if key in TIMING_KEYS or key.endswith(TIMING_SUFFIXES):
        return 0 if isinstance(value, (int, float)) else "<time>"
    if any(parent in path[:-1] and key == name for parent, name in ORDER_KEYS):
        return "<order>"
    if isinstance(value, dict):
        return {k: _normalise_json(v, roots, (*path, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise_json(v, roots, path) for v in value]
    if isinstance(value, str):
        return normalise_text(value, roots)
    return value


def normalise_report(report: dict[str, object], roots: Sequence[tuple[str, str]]) -> dict[str, object]:
    """The report with its timings, version and platform fixed, its strings normalised and its cases sorted by id."""
    out = _normalise_json(report, roots)
    assert isinstance(out, dict)
    out["callproof_version"] = "<version>"
    out["platform"] = "<platform>"
    cases = out.get("cases")
    if isinstance(cases, list):
        cases.sort(key=lambda case: str(case.get("id")) if isinstance(case, dict) else "")
        for case in cases:
            results = case.get("results") if isinstance(case, dict) else None
            if isinstance(results, list):
                results[:] = [r for r in results if not (isinstance(r, dict) and r.get("rule") in TIMED_RULES
                                                         and r.get("outcome") == "passed")]
    return out


def normalise_summary(text: str, roots: Sequence[tuple[str, str]] = ()) -> str:
    """A run's closing lines, normalised, with the lines whose order is the workers' sorted among themselves."""
    lines = normalise_text(text, roots).splitlines()
    unordered = iter(sorted(line for line in lines if line.startswith(UNORDERED_LINES)))
    return "".join(f"{next(unordered) if line.startswith(UNORDERED_LINES) else line}\n" for line in lines)


def _execute(argv: Sequence[str], cwd: Path, timeout: float, env: dict[str, str]) -> tuple[str, str]:
    """(exit code or "timeout", stdout + stderr) of `argv`, killed with its whole process group after `timeout`."""
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        return str(process.returncode), output
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return "timeout", output


class _Taker:
    def __init__(self, checkout: Path, out: Path, timeout: float, workers: str) -> None:
        self.checkout = checkout
        self.out = out
        self.timeout = timeout
        self.workers = workers
        self.python = str(checkout / ".venv" / "bin" / "python")
        self.callproof = str(checkout / ".venv" / "bin" / "callproof")
        self.roots = [(str(out), "<out>"), (str(checkout), "<checkout>")]
        self.env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "PYTHONHASHSEED": "0"}
        self.env.pop("FORCE_COLOR", None)

    def write(self, relative: str, text: str) -> None:
        path = self.out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(normalise_text(text, self.roots), encoding="utf-8")

    def cli(self, *args: str) -> tuple[str, str]:
        return _execute([self.callproof, *args], self.checkout, self.timeout, self.env)

    def helps(self) -> None:
        code, text = self.cli("--version")
        self.write("help/version.txt", f"exit {code}\n{re.sub(r'[0-9][0-9A-Za-z.+-]*', '<version>', text)}")
        pending: list[tuple[str, ...]] = [()]
        while pending:
            words = pending.pop(0)
            code, text = self.cli(*words, "--help")
            self.write(f"help/{' '.join(('callproof', *words)).replace(' ', '_')}.txt", f"exit {code}\n{text}")
            choices = re.search(r"^\s*\{([a-z,-]+)\}", text, re.MULTILINE)
            if choices:
                pending.extend((*words, word) for word in choices.group(1).split(","))

    def listings(self) -> None:
        commands: list[tuple[str, ...]] = [("scenarios",), ("scenarios", "--format", "json"), ("rules",),
                                           ("rules", "--format", "json"), ("docs",)]
        commands += [("rules", "--front", front) for front in DIALECTS]
        for command in commands:
            code, text = self.cli(*command)
            self.write(f"listings/{'_'.join(word.lstrip('-') for word in command)}.txt", f"exit {code}\n{text}")

    def run(self, run: Run) -> str:
        folder = self.out / "runs" / run.name
        folder.mkdir(parents=True, exist_ok=True)
        args = [arg.replace("{python}", self.python) for arg in run.args]
        code, text = self.cli("run", *args, "--list-cases")
        self.write(f"runs/{run.name}/plan.txt", f"exit {code}\n{text}")
        raw = folder / "raw.json"
        code, text = self.cli("run", "-n", self.workers, *args, "--report", str(raw))
        self.write(f"runs/{run.name}/exit.txt", f"{code}\n")
        closing = text.split("= callproof =", 1)[-1] if "= callproof =" in text else text[-4000:]
        self.write(f"runs/{run.name}/summary.txt", normalise_summary(closing, self.roots))
        if raw.exists():
            report = normalise_report(json.loads(raw.read_text(encoding="utf-8")), self.roots)
            normal = folder / "report.json"
            normal.write_text(json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                              encoding="utf-8")
            raw.unlink()
            _, markdown = self.cli("report", str(normal), "--format", "md")
            self.write(f"runs/{run.name}/report.md", markdown)
        for leftover in folder.glob("raw.*"):  # the JSON Lines file of a run cut off
            leftover.unlink()
        return code


def take(out: Path, checkout: Path = HERE, only: Sequence[str] = (), timeout: float = 900.0,
         workers: str = "2") -> int:
    """Write the snapshot of `checkout` under `out` (emptied first); 0, or 2 when the checkout has no .venv."""
    checkout, out = checkout.resolve(), out.resolve()
    if not (checkout / ".venv" / "bin" / "callproof").exists():
        print(f"tests.snapshot: {checkout} has no .venv/bin/callproof; run `make venv` there first", file=sys.stderr)
        return 2
    if out.exists():
        for path in sorted(out.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    out.mkdir(parents=True, exist_ok=True)
    taker = _Taker(checkout, out, timeout, workers)
    began = time.monotonic()
    if not only:
        taker.helps()
        taker.listings()
        print(f"tests.snapshot: help and listings in {time.monotonic() - began:.0f} s", flush=True)
    for run in RUNS:
        if only and not any(fnmatch.fnmatch(run.name, pattern) for pattern in only):
            continue
        started = time.monotonic()
        code = taker.run(run)
        print(f"tests.snapshot: {run.name}: exit {code} in {time.monotonic() - started:.0f} s", flush=True)
    print(f"tests.snapshot: {out} written in {time.monotonic() - began:.0f} s")
    return 0


def _renormalised(path: Path) -> str:
    """A snapshot file's text under today's normalisation (which is idempotent): a snapshot taken before a pattern
    was added compares as if taken with it."""
    text = path.read_text(encoding="utf-8")
    if path.name == "report.json":
        report = normalise_report(json.loads(text), ())
        return json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return normalise_summary(text) if path.name == "summary.txt" else normalise_text(text)


def compare(before: Path, after: Path, context: int = 3, limit: int = 200) -> int:
    """Print how `after` differs from `before` (files on one side only, a unified diff of each changed file, at most
    `limit` lines each); 1 if anything differs, else 0."""
    names = sorted({str(path.relative_to(root)) for root in (before, after) for path in root.rglob("*")
                    if path.is_file()})
    differing = 0
    for name in names:
        old, new = before / name, after / name
        if not old.exists() or not new.exists():
            print(f"only in {'after' if not old.exists() else 'before'}: {name}")
            differing += 1
            continue
        a, b = _renormalised(old), _renormalised(new)
        if a == b:
            continue
        differing += 1
        lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), f"before/{name}", f"after/{name}",
                                          n=context, lineterm=""))
        print("\n".join(lines[:limit]))
        if len(lines) > limit:
            print(f"... {len(lines) - limit} more lines of diff in {name}")
    print(f"tests.snapshot: {len(names)} files, {differing} differ")
    return 1 if differing else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.snapshot", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    taking = commands.add_parser("take", help="write the normalised outputs of a checkout")
    taking.add_argument("out", type=Path)
    taking.add_argument("--checkout", type=Path, default=HERE, help="the checkout (with its .venv) (default: this)")
    taking.add_argument("--only", nargs="+", default=[], metavar="GLOB",
                        help="only the runs whose names match (no help, no listings); e.g. 'gateway-chat-*'")
    taking.add_argument("--timeout", type=float, default=900.0, help="seconds one command may take (default 900)")
    taking.add_argument("-n", dest="workers", default="2", help="workers of each run (default 2)")
    comparing = commands.add_parser("compare", help="print the differences of two snapshots; exit 1 if any")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    options = parser.parse_args(argv)
    if options.command == "take":
        return take(options.out, options.checkout, options.only, options.timeout, options.workers)
    return compare(options.before, options.after)


if __name__ == "__main__":
    sys.exit(main())
