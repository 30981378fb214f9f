"""`callproof fuzz` end to end, as a user runs it from a shell: it finds a broken gateway's defect, shrinks it to a
minimal scenario file that `callproof run --scenarios` replays to the same rule, finds nothing in a conformant IUT
within its bounds, and exits 2 on usage errors. Plus the generator: every scenario it draws passes the scenario
loader, and its expectation is the one the output implies."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from callproof.harness.fuzz import expect_of, parse_generated, scenario_documents
from callproof.harness.scenario import FunctionCall
from callproof.mock_server import Scenario, load_scenarios
from tests import fakes

ROOT = Path(__file__).resolve().parents[3]
CALLPROOF = Path(sys.executable).parent / "callproof"
#: A seeded search finds these defects within this many of the 100 examples it may draw (14 and 34 with these seeds):
#: hypothesis replays a seed exactly, so the count, unlike a wall-clock bound, does not depend on the machine's load.
EXAMPLE_BOUND = 50


PASSTHROUGH = fakes.launch("passthrough")


def callproof(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = fakes.run_env()
    return subprocess.run([str(CALLPROOF), *args], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600, check=False)


def found_rule(stdout: str) -> str:
    match = re.search(r"^  rule: +(\S+)", stdout, re.MULTILINE)
    assert match is not None, stdout
    return match.group(1)


def the_scenario(folder: Path) -> tuple[Path, Scenario]:
    files = sorted(folder.glob("fuzz_*.json"))
    assert len(files) == 1, files
    scenarios = load_scenarios(files)
    assert len(scenarios) == 1
    return files[0], next(iter(scenarios.values()))


def interleaved(scenario: Scenario) -> bool:
    """Whether an item's fragment goes out after a later item's first fragment (two items open at once)."""
    first: dict[int, int] = {}
    for position, step in enumerate(scenario.steps):
        first.setdefault(step.output, position)
    later_starts = [min((first[j] for j in first if j > i), default=len(scenario.steps)) for i in range(len(first))]
    return any(later_starts[step.output] < position for position, step in enumerate(scenario.steps))


def replayed_rules(tmp_path: Path, launch: str, path: Path, scenario_id: str) -> tuple[int, set[str]]:
    """`callproof run` on the written file only: its exit status and the MUST rules that failed."""
    done = callproof(tmp_path, "run", "--launch", launch, "--scenarios", str(path), "-k", scenario_id,
                     "--report", "replay.json")
    report = json.loads((tmp_path / "replay.json").read_text(encoding="utf-8"))
    assert {c["scenario"] for c in report["cases"]} == {scenario_id}
    failed = {r["rule"] for c in report["cases"] for r in c["results"] if r["outcome"] == "failed"
              and r["level"] == "MUST"}
    return done.returncode, failed


# Seeds make the runs reproducible (hypothesis replays a seed exactly); any seed finds these defects.
@pytest.mark.parametrize(("defect", "seed", "rules"), [
    ("mixed_interleaved_args", 1, {"RSP-ARGS-004", "EXP-002"}),
    ("first_name_fragment", 2, {"EXP-001"}),
])
def test_fuzz_finds_and_shrinks_a_gateway_defect(tmp_path: Path, defect: str, seed: int, rules: set[str]) -> None:
    launch = fakes.launch("gateways", defect)
    # the search stops at its finding (14 and 34 examples): --time only leaves a loaded machine room to get there
    done = callproof(tmp_path, "fuzz", "--launch", launch, "--seed", str(seed), "--time", "240", "--out", "found")
    assert done.returncode == 1, done.stdout + done.stderr
    examples = re.search(r"failure found after (\d+) examples", done.stdout)
    assert examples is not None and int(examples.group(1)) <= EXAMPLE_BOUND, done.stdout
    rule = found_rule(done.stdout)
    assert rule in rules, done.stdout

    path, scenario = the_scenario(tmp_path / "found")
    assert path.name == f"fuzz_{rule.lower()}_{scenario.id.removeprefix('fuzz_')}.json"
    assert str(Path("found") / path.name) in done.stdout and "message:" in done.stdout
    assert scenario.expect.status == "completed"
    assert [(c["name"], c["arguments"]) for c in scenario.expect.tool_calls] == [
        (c.name, json.loads(c.arguments)) for c in scenario.calls]
    calls = scenario.calls
    assert all(len(c.arguments) <= 4 for c in calls), calls  # shrunk to `{}`-sized arguments
    if defect == "mixed_interleaved_args":  # its defect shows only with two calls open at once
        assert len(calls) == 2 and len(scenario.output) == 2 and interleaved(scenario), scenario
    else:  # only with a name split across chat deltas
        assert len(calls) == 1 and len(scenario.output) == 1, scenario
        assert len(calls[0].name_fragments) == 2 and len(calls[0].name) == 2, calls[0]

    status, failed = replayed_rules(tmp_path, launch, path, scenario.id)
    assert status == 1 and rule in failed, failed


def test_fuzz_finds_nothing_in_a_conformant_gateway(tmp_path: Path) -> None:
    """A pass-through proxy on a Responses upstream forwards the mock's conformant streams: nothing to find when
    the generated upstream streams follow their spec (--no-quirks; with quirks it forwards their breakage)."""
    done = callproof(tmp_path, "fuzz", "--launch", PASSTHROUGH, "--upstream-dialect", "responses", "--no-quirks",
                     "--max-examples", "15", "--seed", "0", "--out", "found")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^callproof fuzz: no failure found in 15 examples / [0-9.]+ s \(seed 0\)$", done.stdout,
                     re.MULTILINE), done.stdout
    assert not (tmp_path / "found").exists()
    assert not (tmp_path / ".hypothesis").exists()  # hypothesis keeps its caches out of the user's folder


def test_fuzz_finds_nothing_in_the_reference_gateway(tmp_path: Path) -> None:
    done = callproof(tmp_path, "fuzz", "--launch", fakes.launch(), "--max-examples", "15", "--seed", "1",
                     "--out", "found")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no failure found in 15 examples" in done.stdout


def test_fuzz_stops_generating_after_time(tmp_path: Path) -> None:
    done = callproof(tmp_path, "fuzz", "--launch", PASSTHROUGH, "--upstream-dialect", "responses", "--no-quirks",
                     "--max-examples", "100000", "--time", "1", "--seed", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    match = re.search(r"no failure found in (\d+) examples / ([0-9.]+) s", done.stdout)
    assert match is not None, done.stdout
    assert 0 < int(match.group(1)) < 100000 and float(match.group(2)) < 10


def test_fuzz_usage_and_setup_errors_exit_2(tmp_path: Path) -> None:
    done = callproof(tmp_path, "fuzz")
    assert done.returncode == 2 and "one of the arguments --launch --target --app --client-cmd --client" in done.stderr
    done = callproof(tmp_path, "fuzz", "--launch", fakes.launch(), "--max-examples", "0")
    assert done.returncode == 2 and "--max-examples: must be at least 1, got 0" in done.stderr
    done = callproof(tmp_path, "fuzz", "--target", "http://127.0.0.1:9/v1/responses")
    assert done.returncode == 2 and "--target needs --mock-port PORT" in done.stderr
    (tmp_path / "a_file").write_text("", encoding="utf-8")
    done = callproof(tmp_path, "fuzz", "--launch", fakes.launch(), "--out", "a_file")
    assert done.returncode == 2 and "--out a_file is a file; give a folder" in done.stderr
    dies = f"{sys.executable} -c \"raise SystemExit('no config file')\" {{port}}"
    done = callproof(tmp_path, "fuzz", "--launch", dies)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("callproof fuzz: the IUT did not start: it exited before it was ready")
    assert "Traceback" not in done.stderr


@settings(max_examples=60, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_documents())
def test_every_generated_scenario_loads_and_expects_what_its_output_yields(document: dict[str, Any]) -> None:
    scenario = parse_generated(document)  # the schema and the loader's invariants (fragments join, order complete)
    assert scenario.id == document["id"] and 1 <= len(scenario.output) <= 4
    assert expect_of(document["output"]) == document["expect"]
    calls = [o for o in scenario.output if isinstance(o, FunctionCall)]
    assert [c["name"] for c in scenario.expect.tool_calls] == [c.name for c in calls]
    assert scenario.expect.text == "".join(o.text for o in scenario.output
                                           if not isinstance(o, FunctionCall) and o.type == "text")
    given_ids = [c.call_id for c in calls if c.call_id is not None]
    assert len(given_ids) == len(set(given_ids))  # repeated ids are a quirk the generator does not draw
    order = [step.output for step in scenario.steps]
    starts = [i for i in sorted(set(order), key=order.index) if isinstance(scenario.output[i], FunctionCall)]
    assert starts == sorted(starts)  # calls start in output order (chat numbers them as they start)
    texts = [i for i in order if not isinstance(scenario.output[i], FunctionCall)]
    assert texts == sorted(texts)  # text and reasoning items never interleave with each other
    assert {"request", "expect", "output"} <= set(document) and "timing" not in document and "faults" not in document
    assert "timing" not in scenario.tags
