"""Shards from the command line: `callproof run --shard I/N` (and the plugin's `--callproof-shard`) checked in one
line, `callproof report --merge` in every format, and three shards of a run against the bundled reference gateway
merging into the report one unsharded run writes, apart from timings."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from callproof import reports
from callproof.harness.cli import main
from callproof.harness.report_model import write_report
from tests import fakes
from tests.harness.report_model.test_shard import three

ROOT = Path(__file__).resolve().parents[3]
CALLPROOF = Path(sys.executable).parent / "callproof"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
GATEWAY = f"{sys.executable} -m examples.gateway --upstream {{upstream}} --port {{port}}"
#: A small selection: scenarios with calls, and the run-wide concurrent::isolation case.
SELECTION = "one_call or parallel_two or text_before or concurrent"


@pytest.mark.parametrize(("value", "error"), [
    ("0/3", "argument --shard: shard 0/3: I must be between 1 and N (1/3 to 3/3)"),
    ("4/3", "argument --shard: shard 4/3: I must be between 1 and N (1/3 to 3/3)"),
    ("1/0", "argument --shard: shard 1/0: I must be between 1 and N (1/1 to 1/1)"),
    ("2", "argument --shard: expected I/N, shard I of N shards (e.g. 2/3), got '2'"),
    ("a/b", "argument --shard: expected I/N, shard I of N shards (e.g. 2/3), got 'a/b'"),
])
def test_a_bad_shard_is_one_line_and_exit_2(value: str, error: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["run", "--launch", "gw {port}", "--shard", value])
    assert caught.value.code == 2
    assert capsys.readouterr().err == f"callproof: error: {error} (see `callproof run --help`)\n"


def test_a_bad_durations_report_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["run", "--launch", "gw {port}", "--shard", "1/2", "--shard-durations", str(tmp_path / "no.json")])
    assert caught.value.code == 2
    assert capsys.readouterr().err == (f"callproof: error: argument --shard-durations: {tmp_path / 'no.json'}: no "
                                       "such file; give the path of a report.json or report.jsonl (see `callproof "
                                       "run --help`)\n")


def test_the_plugin_checks_its_shard_the_same_way(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "callproof", "-p", "no:cacheprovider", "--pyargs", "callproof.suite",
                                "--callproof-launch", "gw {port}", "--callproof-shard", "3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --callproof-shard: shard 3/2: I must be between 1 and N (1/2 to 2/2)"])


def test_an_empty_shard_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = _run(tmp_path, "run", "--launch", GATEWAY, "-k", "text_before_call", "--shard", "2/2")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == ("callproof run: shard 2/2 got no case: the run selects fewer scenarios than there are "
                           "shards; use fewer shards\n")


def test_the_plugin_runs_a_shard_of_what_k_chose(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])  # `python -m tests.fakes...` from pytester's folder
    ran: list[set[str]] = []
    for index in (1, 2):
        result = pytester.runpytest("-p", "callproof", "-p", "no:cacheprovider", "--pyargs", "callproof.suite",
                                    "--callproof-launch", fakes.launch("gateways"), "-k", "one_call or text_only",
                                    "--callproof-shard", f"{index}/2", "--callproof-report", f"s{index}.json")
        report = json.loads((pytester.path / f"s{index}.json").read_text(encoding="utf-8"))
        assert report["shard"]["index"] == index and report["shard"]["count"] == 2
        ids = {c["id"] for c in report["cases"]}
        outcomes = result.parseoutcomes()
        assert outcomes["passed"] == len(ids) and outcomes["deselected"] > 0
        ran.append(ids)
    assert not ran[0] & ran[1] and len(ran[0] | ran[1]) == 21  # `callproof run -k 'one_call or text_only'`: 21
    assert {i.split("::")[0] for i in ran[0]}.isdisjoint(i.split("::")[0] for i in ran[1])  # whole scenarios


def _shards(tmp_path: Path) -> list[str]:
    paths = []
    for name, report in three():
        write_report(tmp_path / name, report)
        paths.append(str(tmp_path / name))
    return paths


@pytest.mark.parametrize("fmt", [f.name for f in reports.FORMATS])
def test_report_merge_writes_every_format(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"merged-{fmt}"
    assert main(["report", "--merge", *_shards(tmp_path), "--format", fmt, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8")


def test_a_shards_pages_say_it_is_a_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _shards(tmp_path)[0]
    assert main(["report", first, "--format", "md"]) == 0
    assert " · **shard** 1/3" in capsys.readouterr().out
    assert main(["report", first, "--format", "html"]) == 0
    assert "<dt>shard</dt><dd>1/3 (a slice of the run;" in capsys.readouterr().out
    assert main(["report", "--merge", *_shards(tmp_path), "--format", "md"]) == 0
    assert "**shard**" not in capsys.readouterr().out  # the merge is the whole run


def test_report_merge_writes_json_by_default(tmp_path: Path) -> None:
    assert main(["report", "--merge", *_shards(tmp_path), "-o", str(tmp_path / "merged.json")]) == 0
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    jsonschema.validate(merged, SCHEMA)
    assert merged["summary"]["cases"] == 5 and "shard" not in merged


def test_report_merge_of_an_incomplete_set_names_the_missing_shards(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    first, _, third = _shards(tmp_path)
    assert main(["report", "--merge", first, third, "-o", str(tmp_path / "merged.json")]) == 2
    assert capsys.readouterr().err == ("callproof report: shard 2/3 missing: merge the reports of all 3 shards "
                                       "(given: 1/3, 3/3)\n")
    assert not (tmp_path / "merged.json").exists()


def test_report_without_format_or_merge_is_one_line_and_exit_2(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", *_shards(tmp_path)[:1]]) == 2
    assert capsys.readouterr().err == ("callproof report: give --format (one of md, html, junit, badge, badge-json, "
                                       "json), or --merge to join the reports of shards\n")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = fakes.run_env()
    return subprocess.run([str(CALLPROOF), *args], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300, check=False)


#: What differs between two runs of the same cases: timings, timestamps, how many of the isolation case's concurrent
#: streams were in flight at the same moment (`overlapped`: timing, measured), where the run wrote its report and
#: the free ports it picked (the front URL's port in the cases' details).
#: What differs between two runs of the same cases: timings, and the isolation case's `solo` (each scenario's case tag
#: alone, drawn afresh by each run).
_TIMING = {"duration_s", "started_at", "t_ms", "seconds", "latency_ms", "cpu_wait_ms", "overlapped", "solo"}
_PORT = re.compile(r"127\.0\.0\.1:\d+")
_OUTPUT = ("--report", "--shard-durations")


def normalised(report: dict[str, Any]) -> Any:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _TIMING}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return _PORT.sub("127.0.0.1:PORT", value) if isinstance(value, str) else value

    data = strip(report)
    command = data["command"]  # where each run wrote its report, and what balanced the shards
    data["command"] = [a for i, a in enumerate(command) if a not in _OUTPUT and command[i - 1] not in _OUTPUT]
    return data


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, as paths (the assertion's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r:.200} != {b!r:.200}"]


def test_three_shards_merge_into_the_report_of_one_run(tmp_path: Path) -> None:
    whole = _run(tmp_path, "run", "--launch", GATEWAY, "-k", SELECTION, "--report", "whole.json")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    sizes = []
    for index in (1, 2, 3):  # balanced by the durations the whole run recorded
        done = _run(tmp_path, "run", "--launch", GATEWAY, "-k", SELECTION, "--shard", f"{index}/3",
                    "--shard-durations", "whole.json", "--report", f"shard{index}.json")
        assert done.returncode == 0, done.stdout + done.stderr
        shard = json.loads((tmp_path / f"shard{index}.json").read_text(encoding="utf-8"))
        jsonschema.validate(shard, SCHEMA)
        assert (shard["shard"]["index"], shard["shard"]["count"]) == (index, 3)
        sizes.append(shard["summary"]["cases"])
    assert all(sizes)  # every shard ran some of the selection
    merged = _run(tmp_path, "report", "--merge", "shard1.json", "shard2.json", "shard3.json", "-o", "merged.json")
    assert merged.returncode == 0, merged.stderr
    one = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    union = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    jsonschema.validate(union, SCHEMA)
    assert "concurrent::isolation" in {c["id"] for c in union["cases"]}
    assert normalised(union) == normalised(one), differences(normalised(union), normalised(one))
    md = _run(tmp_path, "report", "--merge", "shard3.json", "shard1.json", "shard2.json", "--format", "md")
    assert md.returncode == 0 and f"{one['summary']['cases']} cases: " in md.stdout


def _ci_workflow() -> dict[str, Any]:
    """The sharded workflow docs/ci.md shows (its `## Shards` section's YAML block)."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8").split("## Shards", 1)[1]
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow: dict[str, Any] = yaml.safe_load(block)
    return workflow


def test_the_documented_matrix_runs_each_shard_through_the_action() -> None:
    jobs = _ci_workflow()["jobs"]
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert jobs["conformance"]["strategy"]["matrix"]["shard"] == [1, 2, 3]
    step = next(s for s in jobs["conformance"]["steps"] if "callproof" in s["uses"])
    assert set(step["with"]) <= set(action["inputs"])
    assert "--shard ${{ matrix.shard }}/3" in step["with"]["args"]
    download = next(s for s in jobs["report"]["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"]["pattern"] == step["with"]["artifact-name"].replace("${{ matrix.shard }}", "*")


def test_the_documented_merge_step_runs_as_written(tmp_path: Path) -> None:
    step = next(s for s in _ci_workflow()["jobs"]["report"]["steps"] if s.get("name") == "Merge the shards")
    for index, (_, report) in enumerate(three(), start=1):  # as download-artifact lays the shards out
        (tmp_path / "shards" / f"callproof-shard-{index}").mkdir(parents=True)
        write_report(tmp_path / "shards" / f"callproof-shard-{index}" / "report.json", report)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary),
           "PATH": f"{CALLPROOF.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", step["run"]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "callproof-report" / "report.json").read_text(encoding="utf-8"))
    assert merged["summary"]["cases"] == 5 and (tmp_path / "callproof-report" / "junit.xml").exists()
    assert "5 cases: " in summary.read_text(encoding="utf-8")
