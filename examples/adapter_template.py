"""A client adapter template for `callproof run --client-cmd 'python adapter_template.py'` (docs/adapters.md: the
client adapter protocol). Replace `call_your_client` with your client library; keep the rest.

stdin: one JSON object, the request body of the case in the client's dialect (`--client-dialect`, default
responses; the program also gets it as $CALLPROOF_DIALECT). stdout: exactly one result object. Exit 0 even
when your client failed: report the failure in `error` (a crash is a failed case, CLI-001).

Loops and retries (docs/adapters.md): with CALLPROOF_TOOL_LOOP=1 the case is an agent loop: run `tool_output` for
every call and send the calls and their outputs back (`next_request`) until an answer has no call; with
CALLPROOF_MAX_RETRIES=N let your client retry N times, after the answer's Retry-After.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

#: What the result reports (docs/adapters.md#layers): "parsed" when your client hands its caller calls ready to run
#: (arguments parsed or checked), "raw" when it hands on each call's arguments as the string the stream carried,
#: never parsed (as openai-python does), "executing" when it runs the tools itself. The layer decides what CLI-008
#: asks of a call whose arguments are not JSON: only a raw layer may hand it on, as it came.
LAYER = "parsed"


def call_your_client(request: dict[str, Any], base_url: str, api_key: str, max_retries: int) -> dict[str, Any]:
    """Run your client on `request` against `base_url`; return what it produced:
    {"text": str, "tool_calls": [{"call_id": str, "name": str, "arguments": str}], "incomplete": bool}.
    A custom tool call (Responses `custom_tool_call`) is {"type": "custom", "call_id": str, "name": str, "input": str}
    with the raw input as streamed; if your client exposes them, add "refusal" (str or None) and "reasoning" (the
    summary parts joined with a blank line). Raise on any failure your client detects (HTTP error, response.failed,
    error event, cut stream)."""
    raise NotImplementedError("call your client library here")


def tool_output(name: str, arguments: str, call_id: str) -> tuple[str, bool]:
    """The deterministic tool of the protocol: `"<name> ok <call_id>"`, or `"<name> error <call_id>"` and is_error
    when the arguments are not a JSON object or their `fail` member is true."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}", failed


def next_request(dialect: str, request: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The loop's next request: the request so far, then this turn's calls and one output per call id."""
    outputs = [(c, *tool_output(c["name"], c.get("arguments", c.get("input", "")), c["call_id"])) for c in calls]
    if dialect == "chat":
        assistant = {"role": "assistant", "content": None, "tool_calls": [
            {"id": c["call_id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls]}
        tools = [{"role": "tool", "tool_call_id": c["call_id"], "content": out} for c, out, _ in outputs]
        return {**request, "messages": [*request["messages"], assistant, *tools]}
    if dialect == "anthropic":
        uses = [{"type": "tool_use", "id": c["call_id"], "name": c["name"], "input": json.loads(c["arguments"])}
                for c in calls]
        results = [{"type": "tool_result", "tool_use_id": c["call_id"], "content": out,
                    **({"is_error": True} if failed else {})} for c, out, failed in outputs]
        return {**request, "messages": [*request["messages"], {"role": "assistant", "content": uses},
                                        {"role": "user", "content": results}]}
    given = request["input"]
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
    items += [{"type": "custom_tool_call", "call_id": c["call_id"], "name": c["name"], "input": c["input"]}
              if c.get("type") == "custom" else
              {"type": "function_call", "call_id": c["call_id"], "name": c["name"], "arguments": c["arguments"]}
              for c in calls]
    items += [{"type": "custom_tool_call_output" if c.get("type") == "custom" else "function_call_output",
               "call_id": c["call_id"], "output": out} for c, out, _ in outputs]
    return {**request, "input": items}


def run_once(request: dict[str, Any], base_url: str) -> dict[str, Any]:
    """One request through your client: its result object."""
    result: dict[str, Any] = {"layer": LAYER, "text": "", "tool_calls": [], "error": None, "incomplete": False}
    try:
        produced = call_your_client({**request, "stream": request.get("stream", True)}, base_url,
                                    os.environ.get("OPENAI_API_KEY", "callproof"),
                                    int(os.environ.get("CALLPROOF_MAX_RETRIES", "0")))
    except Exception as exc:  # every failure is reported, never raised: callproof judges it
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    return {**result, **produced}


def run(request: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The in-process form (`callproof run --client adapter_template:run`): one case, the loop included."""
    result = run_once(request, base_url)
    dialect = os.environ.get("CALLPROOF_DIALECT", "responses")
    for _ in range(int(os.environ.get("CALLPROOF_MAX_TURNS", "8")) - 1):
        if os.environ.get("CALLPROOF_TOOL_LOOP") != "1" or not result["tool_calls"] or result["error"] is not None:
            break
        request = next_request(dialect, request, result["tool_calls"])
        result = run_once(request, base_url)
    return result


def main() -> int:
    request = json.load(sys.stdin)
    base_url = os.environ["CALLPROOF_BASE_URL"]
    sys.stdout.write(json.dumps(run(request, base_url)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
