"""`callproof run`: the bundled suite from the command line. It drives pytest in this process (so `-k`, `-n` and
the JUnit/xdist machinery are pytest's own), isolated from any pytest configuration in the current directory,
then reads the report the run wrote to decide the exit code (docs/cli.md#exit-codes): 0 conformant, or only
baseline-listed failures; 1 a MUST rule failed, a case could not be judged, or no case was judged at all; 2 usage
or setup error (bad option, the IUT never started, `-k` matched nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from callproof.harness.report import Case, format_baseline, nothing_judged
from callproof.harness.run import ConfigError

from ._exit import ExitCode
from ._options import Subparsers, add_options, pytest_argv, run_config
from ._report import write_formats

__all__ = ["add_parser", "run"]

_PYTEST_USAGE = {pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR}


def add_parser(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "run", help="run the conformance suite against a gateway or client",
        description="Run every scenario against the implementation under test, one case per scenario and rule group "
                    "(ids like parallel_two_calls::identity), and write a JSON report.",
    )
    add_options(parser, "run")


def _pytest_args(args: argparse.Namespace) -> list[str]:
    argv = ["-c", os.devnull, "--rootdir", os.getcwd(), "-p", "no:cacheprovider", "--import-mode=importlib",
            "--assert=plain", "-p", "callproof", "--pyargs", "callproof.suite", "-q" if not args.verbose else "-v",
            "-rfE", *pytest_argv(args)]
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


def run(args: argparse.Namespace) -> int:
    try:
        run_config(args)  # the plugin builds the same configuration: its problems are reported here, in one line
    except ConfigError as exc:
        print(f"callproof run: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.workers not in ("auto", "logical") and not args.workers.isdigit():
        print(f"callproof run: -n {args.workers!r}: give a number of workers or auto", file=sys.stderr)
        return ExitCode.USAGE
    if args.target and args.workers not in ("0", "1"):
        print("callproof run: --target runs one mock on --mock-port, shared by one worker: drop -n", file=sys.stderr)
        return ExitCode.USAGE
    if args.report.exists():
        args.report.unlink()
    code = int(pytest.main(_pytest_args(args)))
    if code in _PYTEST_USAGE:
        print(f"callproof run: pytest stopped with exit status {code} (see above)", file=sys.stderr)
        return ExitCode.USAGE
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        print(f"callproof run: no case matched -k {args.keyword!r}; list them with `callproof scenarios`",
              file=sys.stderr)
        return ExitCode.USAGE
    report = _read(args.report)
    if report is None:
        print(f"callproof run: no report at {args.report} (pytest exit status {code})", file=sys.stderr)
        return ExitCode.USAGE
    return _verdict(report, args)


def _verdict(report: dict[str, Any], args: argparse.Namespace) -> int:
    cases = report["cases"]
    summary = report["summary"]
    for path in write_formats(report, {"md": args.md, "junit": args.junit, "html": args.html, "badge": args.badge}):
        print(f"callproof run: wrote {path}")
    if args.write_baseline:
        failures = [(c["id"], [r["rule"] for r in c["results"] if r["outcome"] == "failed"])
                    for c in cases if c["outcome"] in ("failed", "error", "xfailed")]
        args.write_baseline.write_text(format_baseline(failures), encoding="utf-8")
        print(f"callproof run: wrote {len(failures)} known failures to {args.write_baseline}")
    counts = ", ".join(f"{summary[k]} {k}" for k in ("passed", "failed", "error", "xfailed", "skipped") if summary[k])
    print(f"callproof run: {summary['cases']} cases: {counts}; report: {args.report}")
    setup = [c for c in cases if c["details"].get("setup_error")]
    if setup:
        first = setup[0]["message"].splitlines()[0]
        print(f"callproof run: setup error in {len(setup)} case(s): {first}", file=sys.stderr)
        return ExitCode.USAGE
    nothing = nothing_judged(Case.from_json(c) for c in cases)
    if nothing is not None:
        print(f"callproof run: no case was judged: {nothing}", file=sys.stderr)
        return ExitCode.FAILED
    blocking = [c for c in cases if c["outcome"] == "error"
                or (c["outcome"] == "failed" and any(r["outcome"] == "failed" and r["level"] == "MUST"
                                                     for r in c["results"]))]
    return ExitCode.FAILED if blocking else ExitCode.OK
