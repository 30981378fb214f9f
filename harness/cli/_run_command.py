"""`callproof run`: the bundled suite from the command line. It drives pytest in this process (so `-k`, `-n` and
the JUnit/xdist machinery are pytest's own), isolated from any pytest configuration in the current directory and
from the pytest plugins installed beside it (no entry-point autoloading: a plugin such as langsmith's costs a second
of start-up in every worker and could change how cases run; pytest-xdist is loaded by name), then reads
the report the run wrote to decide the exit code (docs/cli.md#exit-codes): 0 conformant, or only baseline-listed
failures; 1 a MUST rule failed, a case could not be judged, or no case was judged at all; 2 usage
or setup error (bad option, the IUT never started, `-k` matched nothing); 3 interrupted by SIGINT or SIGTERM (the
launched IUT stopped, the report and every requested format written, marked incomplete). With --strict-baseline,
a stale baseline entry (a listed case or rule that now passes) also exits 1, one line each naming the file and line.

Setup problems are found before pytest starts (harness/run/_preflight.py), each one line; then the IUT is
started once (the preflight), and handed to the plugin so it is not started again in this process. A run that
stops early (`--max-consecutive-errors`) exits 1 with one line saying why. `--write-baseline` exits 0 once it wrote
the baseline: adopting callproof on a gateway with bugs is the point of it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from callproof import reports
from callproof.harness._doc_refs import terminal_refs
from callproof.harness.report_model import (
    BaselineError,
    Case,
    format_baseline,
    load_baseline,
    nothing_judged,
    stale_entries,
    tally_line,
)
from callproof.harness.run import (
    ConfigError,
    Preflight,
    interrupted_by,
    interruptible,
    iut_groups,
    preflight,
    setup_problem,
    workers_problem,
)

from ._cases import keyword_problem, list_cases
from ._exit import ExitCode
from ._flags import add_options, pytest_argv
from ._outputs import refuse_outputs
from ._report_command import write_formats
from ._run_config import run_config

__all__ = ["add_arguments", "run"]

_PYTEST_USAGE = {pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Run every scenario against the implementation under test, one case per scenario and rule "
                          "group (ids like parallel_two_calls::identity), and write a JSON report.")
    add_options(parser, "run")


def _pytest_args(args: argparse.Namespace) -> list[str]:
    # Of pytest's own plugins, those that serve test code and not a callproof case are left out: the log capture and
    # the unraisable-exception hook (its full garbage collections at the end take 0.3 s after a full run).
    argv = ["-c", os.devnull, "--rootdir", os.getcwd(), "--disable-plugin-autoload", "-p", "callproof", "-p", "xdist",
            "-p", "no:cacheprovider", "-p", "no:logging", "-p", "no:unraisableexception", "--import-mode=importlib",
            "--assert=plain", "--pyargs", "callproof.suite", "-q" if not args.verbose else "-v", "-rfE",
            *pytest_argv(args)]
    if args.keyword:
        argv += ["-k", args.keyword]
    if args.workers not in ("0", ""):
        argv += ["-n", args.workers, "--dist", "loadgroup"]
    return argv


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    """The files a run writes, by flag: the JSON report, each format of the registry it was asked for, the
    baseline, and the JSON Lines file beside the report."""
    formats = [(f.flag, getattr(args, f.option)) for f in reports.run_formats(reports.FORMATS)]
    return [("--report", args.report), *formats, ("--write-baseline", args.write_baseline),
            ("--report", args.report.with_suffix(".jsonl"))]


def _workers(args: argparse.Namespace) -> int:
    return os.cpu_count() or 1 if args.workers in ("auto", "logical") else int(args.workers or 0)


def _setup_problem(args: argparse.Namespace) -> str | None:
    """The first reason this run cannot start, found before anything is started."""
    try:
        config = run_config(args)  # the plugin builds the same configuration: its problems are reported here
    except ConfigError as exc:
        return str(exc)
    problem = workers_problem(args.workers)
    if problem is not None:
        return problem
    if args.strict_baseline and args.baseline is None:
        return "--strict-baseline needs --baseline FILE: the baseline whose stale entries fail the run"
    if args.baseline is not None:
        try:
            load_baseline(args.baseline)
        except BaselineError as exc:
            return str(exc)
    return setup_problem(config, (), _workers(args))


def run(args: argparse.Namespace) -> int:
    if args.list_cases:
        return list_cases(args)
    refused = refuse_outputs("run", _outputs(args))
    if refused is not None:
        return refused
    problem = _setup_problem(args) or keyword_problem(args)
    if problem is not None:
        print(f"callproof run: {terminal_refs(problem)}", file=sys.stderr)
        return ExitCode.USAGE
    if args.report.exists():
        args.report.unlink()
    with interruptible(), iut_groups():  # SIGTERM ends the run as Ctrl-C does; no launched IUT outlives it
        harness, problem = preflight(run_config(args), keep=_workers(args) == 0)
        if problem is not None:
            print(f"callproof run: {problem}", file=sys.stderr)
            return ExitCode.USAGE
        try:
            code = int(pytest.main(_pytest_args(args), plugins=[Preflight(harness)]))
        finally:
            if harness is not None:  # the plugin closes it at the end of the session; not if pytest never got there
                harness.close()
        if code == pytest.ExitCode.INTERRUPTED:
            return _interrupted(args)
        if code in _PYTEST_USAGE:
            print(f"callproof run: pytest stopped with exit status {code} (see above)", file=sys.stderr)
            return ExitCode.USAGE
        if code == pytest.ExitCode.NO_TESTS_COLLECTED and args.shard:  # shards hold whole scenarios
            print(f"callproof run: shard {args.shard} got no case: the run selects fewer scenarios than there are "
                  "shards; use fewer shards", file=sys.stderr)
            return ExitCode.USAGE
        if code == pytest.ExitCode.NO_TESTS_COLLECTED:
            print(f"callproof run: no case matched -k {args.keyword!r} (add --list-cases to this command to list "
                  "the cases)", file=sys.stderr)
            return ExitCode.USAGE
        report = _read(args.report)
        if report is None:
            print(f"callproof run: no report at {args.report} (pytest exit status {code})", file=sys.stderr)
            return ExitCode.USAGE
        return _verdict(report, args)


def _formats(args: argparse.Namespace) -> dict[str, Path | None]:
    """The file of each format of the registry `callproof run` can write (None: not asked for), in flag order."""
    return {f.name: getattr(args, f.option) for f in reports.run_formats(reports.FORMATS)}


def _interrupted(args: argparse.Namespace) -> int:
    """The run was cut short: every requested format of what was judged so far, marked incomplete."""
    report = _read(args.report)
    written = [] if report is None else write_formats(report, _formats(args))
    files = ", ".join(str(p) for p in [args.report, *written]) if report is not None else "no report"
    done = "" if report is None else f" after {report['summary']['cases']} cases"
    print(f"callproof run: interrupted by {interrupted_by() or 'SIGINT'}{done}; the launched IUT was stopped; "
          f"written, marked incomplete: {files}", file=sys.stderr)
    return ExitCode.INTERRUPTED


def _verdict(report: dict[str, Any], args: argparse.Namespace) -> int:
    cases = report["cases"]
    summary = report["summary"]
    for path in write_formats(report, _formats(args)):
        print(f"callproof run: wrote {path}")
    if args.write_baseline:
        failures = [(c["id"], [r["rule"] for r in c["results"] if r["outcome"] in ("failed", "flaky")])
                    for c in cases if c["outcome"] in ("failed", "error", "xfailed", "flaky")]
        flaky = {c["id"] for c in cases if c["outcome"] == "flaky"}
        args.write_baseline.write_text(format_baseline(failures, flaky=flaky), encoding="utf-8")
        print(f"callproof run: wrote {len(failures)} known failures to {args.write_baseline}")
    judged = [Case.from_json(c) for c in cases]
    # in the words of pytest's last line and the callproof section above it (report_model.tally)
    many = "" if summary["cases"] == 1 else "s"
    print(f"callproof run: {summary['cases']} case{many}: {tally_line(judged)}; report: {args.report}")
    if report.get("stopped"):
        print(f"callproof run: stopped early: {report['stopped']}; the cases it did not reach are not in the report",
              file=sys.stderr)
        return ExitCode.FAILED
    setup = [c for c in cases if c["details"].get("setup_error")]
    if setup:
        first = setup[0]["message"].splitlines()[0]
        print(f"callproof run: setup error in {len(setup)} case(s): {terminal_refs(first)}", file=sys.stderr)
        return ExitCode.USAGE
    nothing = nothing_judged(judged)
    if nothing is not None:
        print(f"callproof run: no case was judged: {terminal_refs(nothing)}", file=sys.stderr)
        return ExitCode.FAILED
    if args.write_baseline:  # its failures are now the baseline: adopting callproof is not a failed run
        return ExitCode.OK
    blocking = [c for c in judged if c.blocking]
    stale = stale_entries(load_baseline(args.baseline), judged) \
        if args.strict_baseline and args.baseline is not None else []
    for line in stale:
        print(f"callproof run: {line}", file=sys.stderr)
    if stale:
        print(f"callproof run: --strict-baseline: {len(stale)} stale baseline "
              f"{'entry fails' if len(stale) == 1 else 'entries fail'} the run", file=sys.stderr)
    return ExitCode.FAILED if blocking or stale else ExitCode.OK
