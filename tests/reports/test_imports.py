"""`import callproof.reports` stays light: the report model and the renderers, no runner, server or test tool."""

from __future__ import annotations

import json
import subprocess
import sys

#: What a fresh interpreter must not have loaded after `import callproof.reports`.
HEAVY = ("httpx", "starlette", "uvicorn", "pytest", "hypothesis", "callproof.mock_server", "callproof.harness.run",
         "callproof.harness.judge", "callproof.harness.plugin", "callproof.harness.cli", "callproof.harness.fuzz")


def test_import_loads_no_runner_server_or_test_tool() -> None:
    code = "import json, sys; import callproof.reports; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = set(json.loads(done.stdout))
    assert "callproof.reports" in loaded and "callproof.harness.report_model" in loaded
    found = sorted(m for m in loaded for heavy in HEAVY if m == heavy or m.startswith(heavy + "."))
    assert not found, f"import callproof.reports loads {found}; import them inside the function that needs them"
