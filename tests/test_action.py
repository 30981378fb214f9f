"""The GitHub Action (action.yml): its own script steps, run locally with bash exactly as the runner would, with
`${{ inputs.* }}` and `${{ steps.* }}` replaced. GitHub's own actions (setup-python, upload-artifact) are not run.
The install step is, with its default input: it installs callproof from `$GITHUB_ACTION_PATH` (here a copy of this
checkout, as the runner's checkout of `uses: <owner>/callproof@<ref>` is) into a fresh venv, whose `callproof` the
other steps then run: no package index has callproof."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from callproof.harness.cli import ExitCode
from tests import fakes
from tests.fresh_venv import PIP_ENV, fresh_venv
from tests.lockfile import LOCK, pins, pyproject

#: Minutes of installing in fresh venvs whose module fixtures its tests share: collected first (tests/conftest.py).
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
GATEWAY = fakes.command("gateways")
_EXPR = re.compile(r"\$\{\{\s*(inputs|steps)\.([\w-]+)(?:\.outputs\.([\w-]+))?\s*\}\}")


def _step(step_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    for step in ACTION["runs"]["steps"]:
        if (step_id and step.get("id") == step_id) or (name and step.get("name") == name):
            return dict(step)
    raise AssertionError(f"action.yml has no step {step_id or name}")


def _run_step(step: dict[str, Any], inputs: dict[str, str], outputs: dict[str, dict[str, str]], cwd: Path,
              bin_dir: Path, action_path: Path | None = None, extra_env: dict[str, str] | None = None,
              ) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()} | inputs

    def expand(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            kind, name, output = match.groups()
            return values[name] if kind == "inputs" else outputs.get(name, {}).get(output or "", "")
        return _EXPR.sub(one, text)

    github_output, summary = cwd / "github_output", cwd / "step_summary"
    github_output.write_text("", encoding="utf-8")
    summary.touch()
    env = fakes.env({k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    env |= {k: expand(str(v)) for k, v in step.get("env", {}).items()}
    env |= {"GITHUB_OUTPUT": str(github_output), "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_ACTION_PATH": str(action_path or ROOT), "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}
    env |= extra_env or {}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(["bash", "-e", "-c", expand(step["run"])], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    written = dict(line.split("=", 1) for line in github_output.read_text(encoding="utf-8").splitlines() if line)
    return done, written, summary.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a fresh venv into which the action's install step, default inputs, put callproof."""
    base = tmp_path_factory.mktemp("action")
    checkout = base / "callproof"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
        ".git", ".venv", "out", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "tests"))
    bin_dir = fresh_venv(base / "venv")
    done, _, _ = _run_step(_step(name="Install callproof"), {}, {}, base, bin_dir, checkout, PIP_ENV)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.split() == ["callproof", _version()], done.stdout
    assert (bin_dir / "callproof").is_file()
    return bin_dir


def _version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def test_the_install_step_installs_the_versions_of_the_lock(installed: Path) -> None:
    """The default install takes callproof's dependencies at the action's lock (constraints.txt), the versions its
    ref was tested with, not whatever is newest on the day of the run."""
    locked = pins(LOCK.read_text(encoding="utf-8"))
    names = sorted({canonicalize_name(Requirement(r).name) for r in pyproject()["project"]["dependencies"]})
    done = subprocess.run([str(installed / "python"), "-c", "import json, sys, importlib.metadata as m; "
                           "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))", *names],
                          capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == {name: locked[name] for name in names}


def test_the_action_runs_the_suite_and_posts_the_summary(tmp_path: Path, installed: Path) -> None:
    inputs = {"launch": f"{GATEWAY} --upstream {{upstream}} --port {{port}}", "args": "-n 0 -k 'one_call'"}
    done, outputs, summary = _run_step(_step("run"), inputs, {}, tmp_path, installed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs == {"exit-code": "0", "report": "callproof-report/report.json"}
    for name in ("report.json", "report.md", "junit.xml", "report.html", "badge.svg"):
        assert (tmp_path / "callproof-report" / name).is_file(), name
    assert not (tmp_path / "callproof-report" / "report.jsonl").exists()  # removed once report.json was written
    assert summary == (tmp_path / "callproof-report" / "report.md").read_text(encoding="utf-8")
    verdict, _, _ = _run_step(_step(name="Verdict"), {}, {"run": outputs}, tmp_path, installed)
    assert verdict.returncode == 0


def test_a_failing_run_is_reported_and_fails_the_verdict_step(tmp_path: Path, installed: Path) -> None:
    inputs = {"launch": f"{GATEWAY} --defect drops_retry_after --upstream {{upstream}} --port {{port}}",
              "args": "-k fault_http_429::faults"}
    done, outputs, summary = _run_step(_step("run"), inputs, {}, tmp_path, installed)
    assert done.returncode == 0, "the run step records the exit code; the verdict step fails the job"
    assert outputs["exit-code"] == "1"
    assert "GW-FAULT-002" in summary
    verdict, _, _ = _run_step(_step(name="Verdict"), {}, {"run": outputs}, tmp_path, installed)
    assert verdict.returncode == 1
    assert "::error title=callproof::callproof run exited 1" in verdict.stdout


def test_the_example_workflow_uses_the_action_inputs() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "workflows" / "callproof.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["conformance"]["steps"]
    uses = next(s for s in steps if re.fullmatch(r"<owner>/callproof@<ref>", str(s.get("uses", ""))))
    assert set(uses["with"]) <= set(ACTION["inputs"])


def test_the_exit_code_output_and_docs_ci_md_name_every_exit_code() -> None:
    """What each exit code of `callproof run` means, in the action's `exit-code` output and in docs/ci.md: the
    same codes as docs/cli.md#exit-codes (3: interrupted, e.g. a cancelled job)."""
    codes = sorted(str(int(code)) for code in ExitCode)
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    output = re.search(r"Outputs: `exit-code`\s+\(the exit code of `callproof run`: ([^)]*)\)", ci)
    listed = re.search(r"The exit codes are the ones of \[`callproof run`\]\(cli.md#exit-codes\): (.*?)\n\n", ci,
                       re.DOTALL)
    assert output is not None and listed is not None, "docs/ci.md names the exit codes of `callproof run`"
    for where, text in [("action.yml's exit-code output", ACTION["outputs"]["exit-code"]["description"]),
                        ("docs/ci.md's outputs", output.group(1)), ("docs/ci.md's exit codes", listed.group(1))]:
        assert sorted(re.findall(r"(?<![\w.])(\d) [a-z]", text)) == codes, f"{where}: {text}"
