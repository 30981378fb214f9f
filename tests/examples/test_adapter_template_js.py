"""examples/adapter_template.js (openai-node) keeps the adapter protocol and runs against the mock in the Responses
and Chat dialects: a few cases through the harness pass, a request it cannot speak is reported in `error`.

It needs node >= 18 and openai-node installed in examples/node_modules (`make node` does both where allowed). A
missing one skips with the reason, except under CI (CI=true), where it fails: CI must run this test."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from callproof.harness import Dialect
from callproof.harness.judge import CaseSpec, protocol_problem
from callproof.harness.run import Harness, RunConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TEMPLATE = EXAMPLES / "adapter_template.js"
CASES = ["one_call::client", "one_call::expected", "parallel_two_calls::expected", "fault_http_500::client",
         "text_before_call::expected", "agent_loop_three_turns::loop", "agent_loop_parallel_results::loop",
         "agent_loop_failed_tool::expected", "retry_429_waits_retry_after::loop"]


def _unavailable() -> str | None:
    """Why the template cannot run here, or None."""
    node = shutil.which("node")
    if node is None:
        return "node is not on PATH: `make node` installs Debian's nodejs and openai-node (CALLPROOF_INSTALL_NODE=1)"
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < 18:
        return f"node {version or '(no version)'} is older than 18, which openai-node needs"
    if not (EXAMPLES / "node_modules" / "openai" / "package.json").is_file():
        return "openai-node is not installed in examples/node_modules: run `make node` (npm ci --prefix examples)"
    return None


@pytest.fixture
def node() -> str:
    why = _unavailable()
    if why is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI=true and {why}", pytrace=False)
        pytest.skip(why)
    found = shutil.which("node")
    assert found is not None
    return found


@pytest.mark.parametrize("dialect", ["responses", "chat"])
def test_the_js_template_passes_cases_against_the_mock(node: str, dialect: Dialect) -> None:
    config = RunConfig(client_cmd=f"{node} {TEMPLATE}", client_dialect=dialect, case_timeout=30)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*case.split("::"))) for case in CASES]
    assert [(r.spec.id, r.outcome, r.message) for r in results] == [(case, "passed", "") for case in CASES]


def test_the_js_template_reports_a_dialect_it_does_not_speak_as_an_error(node: str) -> None:
    env = {**os.environ, "CALLPROOF_BASE_URL": "http://127.0.0.1:9/v1", "CALLPROOF_DIALECT": "anthropic"}
    done = subprocess.run([node, str(TEMPLATE)], input=json.dumps({"model": "m", "messages": []}),
                          capture_output=True, text=True, timeout=60, check=False, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert protocol_problem(result) is None
    assert result["error"] == ("Error: this template speaks responses and chat, not anthropic: use @anthropic-ai/sdk "
                               "for anthropic")
