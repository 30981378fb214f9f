"""A client adapter template for `callproof run --client-cmd 'python adapter_template.py'` (docs/adapters.md: the
client adapter protocol). Replace `call_your_client` with your client library; keep the rest.

stdin: one JSON object, the request body of the case in the client's dialect (`--client-dialect`, default
responses; the program also gets it as $CALLPROOF_DIALECT). stdout: exactly one result object. Exit 0 even
when your client failed: report the failure in `error` (a crash is a failed case, CLI-001).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def call_your_client(request: dict[str, Any], base_url: str, api_key: str, max_retries: int) -> dict[str, Any]:
    """Run your client on `request` against `base_url`; return what it produced:
    {"text": str, "tool_calls": [{"call_id": str, "name": str, "arguments": str}], "incomplete": bool}.
    Raise on any failure your client detects (HTTP error, response.failed, error event, cut stream)."""
    raise NotImplementedError("call your client library here")


def run(request: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The in-process form (`callproof run --client adapter_template:run`)."""
    result: dict[str, Any] = {"text": "", "tool_calls": [], "error": None, "incomplete": False}
    try:
        produced = call_your_client({**request, "stream": request.get("stream", True)}, base_url,
                                    os.environ.get("OPENAI_API_KEY", "callproof"),
                                    int(os.environ.get("CALLPROOF_MAX_RETRIES", "0")))
    except Exception as exc:  # every failure is reported, never raised: callproof judges it
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    return {**result, **produced}


def main() -> int:
    request = json.load(sys.stdin)
    base_url = os.environ["CALLPROOF_BASE_URL"]
    sys.stdout.write(json.dumps(run(request, base_url)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
