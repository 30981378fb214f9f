"""`callproof run`: the bundled suite from the command line. It drives pytest in this process (so `-k`, `-n` and
the JUnit/xdist machinery are pytest's own), isolated from any pytest configuration in the current directory,
then reads the report the run wrote to decide the exit code (docs/spec/contracts.md §4):

0 conformant, or only baseline-listed failures; 1 a MUST rule failed or a case could not be run; 2 usage or setup
error (bad option, the IUT never started, `-k` matched nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from callproof.harness.report import format_baseline

from ._report_cli import write_formats

__all__ = ["add_run_parser", "run"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_PYTEST_USAGE = {2, 3, 4}  # interrupted, internal error, usage error
_NO_TESTS = 5


def add_run_parser(sub: Any) -> None:
    run = sub.add_parser(
        "run", help="run the conformance suite against a gateway or client",
        description="Run every scenario against the implementation under test, one case per scenario and rule group "
                    "(ids like parallel_two_calls::identity), and write a JSON report.",
    )
    iut = run.add_mutually_exclusive_group(required=True)
    iut.add_argument("--launch", metavar="CMD", help="gateway command with {upstream}, {upstream_root} and {port}")
    iut.add_argument("--target", metavar="URL", help="front URL of a gateway already running (see --mock-port)")
    iut.add_argument("--app", metavar="MODULE:ATTR", help="ASGI gateway app, served in-process on uvicorn")
    iut.add_argument("--client-cmd", metavar="CMD", help="client adapter program (docs/adapters.md)")
    iut.add_argument("--client", metavar="MODULE:FUNCTION", help="in-process client adapter function")
    run.add_argument("--front", choices=("responses",), default="responses", help="the front dialect (responses)")
    run.add_argument("--upstream-dialect", choices=("chat", "responses", "anthropic"), default="chat",
                     help="dialect the mock serves the gateway (default chat)")
    run.add_argument("--front-url", default="http://127.0.0.1:{port}/v1/responses", metavar="TEMPLATE",
                     help="where a launched gateway serves the front (default %(default)s)")
    run.add_argument("--ready-url", metavar="TEMPLATE", help="URL answering 2xx once a launched gateway is ready")
    run.add_argument("--case-timeout", type=float, default=30.0, metavar="S", help="seconds per case (default 30)")
    run.add_argument("--model", default="callproof-model", metavar="NAME", help="model name sent to the IUT")
    run.add_argument("--mock-port", type=int, default=0, metavar="PORT", help="port of the mock (default: free)")
    run.add_argument("-k", dest="keyword", metavar="EXPR", help="only cases matching this pytest -k expression")
    run.add_argument("-n", dest="workers", default="0", metavar="N", help="parallel workers (pytest-xdist; auto)")
    run.add_argument("--scenarios", nargs="+", action="extend", type=Path, metavar="PATH",
                     help="your scenario files or folders, besides the bundled corpus")
    run.add_argument("--profile", choices=("openai", "open-responses", "lenient"), default="openai",
                     help="rules and schema variant (default openai)")
    run.add_argument("--baseline", type=Path, metavar="FILE", help="known failures that do not fail the run")
    run.add_argument("--write-baseline", type=Path, metavar="FILE",
                     help="write this run's failures as a baseline file (to adopt callproof on a gateway with bugs)")
    run.add_argument("--report", type=Path, default=Path("report.json"), metavar="OUT.json",
                     help="JSON report path (default report.json); OUT.jsonl beside it is written as cases finish")
    run.add_argument("--md", type=Path, metavar="OUT.md", help="also write the Markdown report (PR comment)")
    run.add_argument("--junit", type=Path, metavar="OUT.xml", help="also write JUnit XML")
    run.add_argument("--html", type=Path, metavar="OUT.html", help="also write the self-contained HTML report")
    run.add_argument("--badge", type=Path, metavar="OUT.svg", help="also write an SVG badge")
    run.add_argument("-v", "--verbose", action="store_true", help="one line per case")


def _pytest_args(args: argparse.Namespace) -> list[str]:
    argv = ["-c", os.devnull, "--rootdir", os.getcwd(), "-p", "no:cacheprovider", "--import-mode=importlib",
            "--assert=plain",
            "-p", "callproof", "--pyargs", "callproof.suite", "-q" if not args.verbose else "-v", "-rfE",
            "--callproof-report", str(args.report), "--callproof-profile", args.profile,
            "--callproof-upstream-dialect", args.upstream_dialect, "--callproof-front-url", args.front_url,
            "--callproof-case-timeout", str(args.case_timeout), "--callproof-model", args.model,
            "--callproof-mock-port", str(args.mock_port)]
    for name in ("launch", "target", "app", "client_cmd", "client"):
        value = getattr(args, name)
        if value:
            argv += [f"--callproof-{name.replace('_', '-')}", value]
    if args.ready_url:
        argv += ["--callproof-ready-url", args.ready_url]
    for path in args.scenarios or ():
        argv += ["--callproof-scenarios", str(path.resolve())]
    if args.baseline:
        argv += ["--callproof-baseline", str(args.baseline)]
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
    import pytest

    if args.workers not in ("auto", "logical") and not args.workers.isdigit():
        print(f"callproof run: -n {args.workers!r}: give a number of workers or auto", file=sys.stderr)
        return EXIT_USAGE
    if args.target and args.workers not in ("0", "1"):
        print("callproof run: --target runs one mock on --mock-port, shared by one worker: drop -n", file=sys.stderr)
        return EXIT_USAGE
    if args.report.exists():
        args.report.unlink()
    code = int(pytest.main(_pytest_args(args)))
    if code in _PYTEST_USAGE:
        print(f"callproof run: pytest stopped with exit status {code} (see above)", file=sys.stderr)
        return EXIT_USAGE
    if code == _NO_TESTS:
        print(f"callproof run: no case matched -k {args.keyword!r}; list them with `callproof scenarios`",
              file=sys.stderr)
        return EXIT_USAGE
    report = _read(args.report)
    if report is None:
        print(f"callproof run: no report at {args.report} (pytest exit status {code})", file=sys.stderr)
        return EXIT_USAGE
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
        return EXIT_USAGE
    blocking = [c for c in cases if c["outcome"] == "error"
                or (c["outcome"] == "failed" and any(r["outcome"] == "failed" and r["level"] == "MUST"
                                                     for r in c["results"]))]
    return EXIT_FAILED if blocking else EXIT_OK
