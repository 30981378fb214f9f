"""The JavaScript example (examples/js/mock.test.mjs): node's built-in test runner and openai-node drive `callproof
mock` (this venv's binary) over HTTP: a scenario registered at run time, a sequence retried by the SDK.

It needs node >= 18 and openai-node in examples/node_modules (`make node` installs both where allowed, as for
examples/adapter_template.js). A missing one skips with the reason, except under CI (CI=true), where it fails: CI
must run this test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CALLPROOF = Path(sys.executable).parent / "callproof"


def _unavailable() -> str | None:
    """Why the example cannot run here, or None."""
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


def test_the_javascript_example_drives_the_mock_with_openai_node() -> None:
    why = _unavailable()
    if why is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI=true and {why}", pytrace=False)
        pytest.skip(why)
    env = {**os.environ, "CALLPROOF_BIN": str(CALLPROOF)}
    ran = subprocess.run(["node", "--test", str(EXAMPLES / "js" / "mock.test.mjs")], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output
    assert "# pass 2" in output and "# fail 0" in output, output
