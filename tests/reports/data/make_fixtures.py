"""Regenerate the report fixtures of tests/reports/ from real `callproof run`s (run from anywhere):

    .venv/bin/python tests/reports/data/make_fixtures.py

- `failing.json`: the cases of the runs in `FAILING` merged into one report (metadata of the first run, summary
  recomputed): a failure in every rule family (framing, schema, sequence, lifecycle, identity, reassembly,
  expected, gateway, client), a SHOULD-only failure, a baseline-covered (xfailed) case, a stale baseline entry, an
  error (a gateway that crashes), a skipped case and passing cases. Gateway and client cases come from different
  runs, so `target` describes the first run only.
- `passing.json`: the reference gateway (examples/gateway/) on a few scenarios: every case passes.
- `incomplete.jsonl`: the JSON Lines report of the first failing run as a killed run leaves it: no footer, and
  the last case line cut in the middle.

Every fixture is what the harness wrote; only the merge is done here. tests/reports/test_load.py checks
that they validate against schemas/report.schema.json and still cover every rule family.

The schema family needs an IUT that no fake in tests/fakes/ is: `make_fixtures.py serve --upstream URL --port N`
runs it, a proxy to a Responses upstream that renames the status of `response.in_progress` events to one the
schema does not know (RSP-SCHEMA-001, nothing else).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PYTHON = os.path.relpath(sys.executable, ROOT) if Path(sys.executable).is_relative_to(ROOT) else sys.executable
UPSTREAM = "--upstream {upstream} --port {port}"


@dataclass(frozen=True)
class Run:
    """One `callproof run`: how the IUT is given, extra options, the exact case ids it runs."""

    target: list[str]
    cases: list[str]
    options: list[str] = field(default_factory=list)
    baseline: str = ""  # the text of a --baseline file, when not empty


def _launch(script: str, *args: str) -> list[str]:
    return ["--launch", " ".join([PYTHON, script, *args, UPSTREAM])]


def _client(defect: str) -> list[str]:
    return ["--client-cmd", f"{PYTHON} -m tests.fakes.clients --defect {defect}"]


FAILING = [
    # A pass-through proxy over a Responses upstream hands the mock's fault and quirk scenarios to the front as
    # they are: framing, sequence, lifecycle, identity, reassembly, expected and gateway rules fail.
    Run(_launch("-m tests.fakes.passthrough"), options=["--upstream-dialect", "responses"],
        baseline="duplicate_call_ids::identity RSP-ID-008\ntext_only::identity  # fixed since: a stale entry\n",
        cases=["fault_disconnect_after_bytes::framing", "fault_disconnect_after_bytes::lifecycle",
               "fault_malformed::framing", "fault_malformed::sequence", "fault_malformed::reassembly",
               "fault_malformed::faults", "fault_malformed::expected", "missing_call_id::identity",
               "missing_call_id::ids", "duplicate_call_ids::identity", "empty_args_no_delta::reassembly",
               "fault_slow_first_byte::streaming", "text_only::identity", "one_call::framing",
               "one_call::identity", "text_only::expected"]),
    Run(_launch("tests/reports/data/make_fixtures.py serve"), options=["--upstream-dialect", "responses"],
        cases=["one_call::schema"]),
    Run(_launch("-m tests.fakes.gateways", "--defect no_sequence_numbers"), cases=["one_call::sequence"]),
    Run(_launch("-m tests.fakes.gateways", "--defect drops_retry_after"), cases=["fault_http_429::faults"]),
    Run(_launch("-m tests.fakes.gateways", "--defect drops_parallel_flag"),
        cases=["parallel_calls_disabled::translation"]),
    Run(_launch("-m tests.fakes.gateways", "--defect dies_on_large_arguments"), cases=["large_arguments::expected"]),
    Run(_client("drops_call_id"), cases=["one_call::client"]),
    Run(_client("swallows_errors"), cases=["fault_http_500::client"]),
    Run(_client("first_call_only"), cases=["parallel_two_calls::expected"]),
]

PASSING = Run(_launch("-m examples.gateway"), cases=[
    f"{scenario}::{group}" for scenario in ("one_call", "parallel_two_calls")
    for group in ("framing", "schema", "sequence", "lifecycle", "identity", "reassembly", "expected")])


def _run(run: Run, workdir: Path, name: str) -> Path:
    report = workdir / f"{name}.json"
    command = [sys.executable, "-m", "callproof.harness.cli", "run", *run.target, *run.options,
               "-k", " or ".join(run.cases), "--report", str(report)]
    if run.baseline:
        baseline = workdir / f"{name}.baseline.txt"
        baseline.write_text(run.baseline, encoding="utf-8")
        command += ["--baseline", str(baseline)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if not report.exists():
        sys.exit(f"make_fixtures: {name}: no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return report


def _cases(report: Path, wanted: Sequence[str]) -> list[dict[str, Any]]:
    cases = {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    missing = sorted(set(wanted) - set(cases))
    if missing:
        sys.exit(f"make_fixtures: {report.name}: the run did not report {missing}")
    return [cases[c] for c in wanted]


def _merge(first: Path, cases: list[dict[str, Any]]) -> dict[str, Any]:
    from callproof.harness.report_model import Case, Summary

    report: dict[str, Any] = json.loads(first.read_text(encoding="utf-8"))
    report["command"] = ["python", "tests/reports/data/make_fixtures.py"]
    report["summary"] = Summary.of(Case.from_json(c) for c in cases).to_json()
    report["cases"] = sorted(cases, key=lambda c: str(c["id"]))
    return report


def _cut(report: Path) -> bytes:
    """The JSON Lines report of a run as a run killed mid-write leaves it: no footer, the last case line cut in half.
    Written by the harness's own writers from the run's JSON report (a run that ends removes its .jsonl)."""
    import io

    from callproof.harness.report_model import write_jsonl_case, write_jsonl_header

    data = json.loads(report.read_text(encoding="utf-8"))
    out = io.StringIO()
    write_jsonl_header(out, data)
    for case in data["cases"]:
        write_jsonl_case(out, case)
    lines = out.getvalue().encode("utf-8").splitlines()
    return b"\n".join([*lines[:-1], lines[-1][: len(lines[-1]) // 2]])


def _write(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"make_fixtures: wrote {path.relative_to(ROOT)} ({len(report['cases'])} cases, {report['summary']})")


def make() -> None:
    with tempfile.TemporaryDirectory(prefix="callproof-fixtures-") as tmp:
        workdir = Path(tmp)
        reports = [_run(run, workdir, f"failing{i}") for i, run in enumerate(FAILING)]
        cases = [case for run, report in zip(FAILING, reports, strict=True) for case in _cases(report, run.cases)]
        _write(HERE / "failing.json", _merge(reports[0], cases))
        passing = _run(PASSING, workdir, "passing")
        _write(HERE / "passing.json", _merge(passing, _cases(passing, PASSING.cases)))
        (HERE / "incomplete.jsonl").write_bytes(_cut(reports[0]))
        print("make_fixtures: wrote tests/reports/data/incomplete.jsonl")


# -- the schema-breaking IUT --------------------------------------------------------------------------------------


def serve(upstream: str, port: int) -> None:
    """A Responses front that forwards to a Responses upstream and gives `response.in_progress` an unknown status."""
    import httpx
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    def mutate(body: bytes) -> bytes:
        events = body.split(b"\n\n")
        for i, event in enumerate(events):
            if b'"type":"response.in_progress"' in event:
                events[i] = event.replace(b'"status":"in_progress"', b'"status":"warming_up"', 1)
        return b"\n\n".join(events)

    async def responses(request: Request) -> Response:
        async with httpx.AsyncClient(timeout=30.0) as client:
            answer = await client.post(f"{upstream}/responses", content=await request.body(),
                                       headers={"content-type": "application/json"})
        return Response(mutate(answer.content), status_code=answer.status_code,
                        media_type=answer.headers.get("content-type"))

    app = Starlette(routes=[Route("/v1/responses", responses, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command")
    server = sub.add_parser("serve", help="run the schema-breaking IUT (FAILING uses it)")
    server.add_argument("--upstream", required=True)
    server.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args.upstream, args.port)
    else:
        make()
    return 0


if __name__ == "__main__":
    sys.exit(main())
