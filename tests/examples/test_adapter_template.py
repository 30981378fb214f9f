"""examples/adapter_template.py keeps the adapter protocol before it is filled in: one result object with the
failure in `error`, exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from callproof.harness.judge import protocol_problem

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "adapter_template.py"


def test_the_template_reports_its_missing_client_as_an_error() -> None:
    done = subprocess.run([sys.executable, str(TEMPLATE)], input=json.dumps({"model": "m", "input": []}),
                          capture_output=True, text=True, timeout=60, check=False,
                          env={"CALLPROOF_BASE_URL": "http://127.0.0.1:9/v1", "PATH": ""})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert protocol_problem(result) is None
    assert result["error"].startswith("NotImplementedError: call your client library here")
