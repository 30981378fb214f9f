"""The Chat and Anthropic SDK adapters (examples/client_openai_chat.py, examples/client_anthropic.py) as programs
(`--client-cmd`, the form `make interop` does not use for them): with `--client-dialect` the harness hands them a
body of their dialect and the environment they read (the anthropic one strips the /v1 of CALLPROOF_BASE_URL), and
they pass a call, a parallel turn and an HTTP error. tests/examples/test_interop.py runs them in-process against
their baselines. Without the `interop` extra they skip, except under CI (CI=true), where they fail."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from callproof.harness import Dialect
from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = ["one_call::client", "one_call::expected", "parallel_two_tools::expected", "fault_http_429::client",
         "fault_http_429::expected"]


@pytest.mark.parametrize(("dialect", "module", "script"), [
    ("chat", "openai", "client_openai_chat.py"),
    ("anthropic", "anthropic", "client_anthropic.py"),
])
def test_the_sdk_adapter_runs_as_a_program_in_its_dialect(dialect: Dialect, module: str, script: str) -> None:
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed: pip install -e '.[interop]' (make test does)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    config = RunConfig(client_cmd=f"{sys.executable} {EXAMPLES / script}", client_dialect=dialect, case_timeout=60)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*case.split("::"))) for case in CASES]
    assert [(r.spec.id, r.outcome, r.message) for r in results] == [(case, "passed", "") for case in CASES]
