"""callproof client adapter for `litellm.responses(...)` (docs/spec/contracts.md §5; docs/interop.md).

    callproof run --client examples.clients.litellm_responses:run
    callproof run --client-cmd 'python examples/clients/litellm_responses.py'

It sends the request through LiteLLM's Responses API bridge, `litellm.responses(model="openai/<model>", ...,
stream=True, api_base=CALLPROOF_BASE_URL, num_retries=CALLPROOF_MAX_RETRIES)`, and reads the event objects its
iterator yields: the result is the terminal event's response (message text, `function_call` items, `custom_tool_call`
items with their input, refusal parts, the reasoning items' summary),
`response.failed` and `error` events become `error`, and so does a stream that ends without a terminal event.
LiteLLM fakes streaming (one non-stream request, then a lone `response.completed`) for a model that is not in its
model map, so the adapter registers the request's model as an OpenAI Responses model with native streaming, as a
user of a custom model name does. Whatever LiteLLM raises becomes the result's `error`, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no model map download at import
import litellm

__all__ = ["main", "run"]

litellm.suppress_debug_info = True  # its hints ("Provider List: ...") go to stdout, which the protocol owns
litellm.telemetry = False
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _result(response: Any, error: str | None = None) -> dict[str, Any]:
    output = (_get(response, "output") or []) if response is not None else []
    text = "".join(_get(part, "text") or "" for item in output if _get(item, "type") == "message"
                   for part in _get(item, "content") or [] if _get(part, "type") == "output_text")
    calls: list[dict[str, Any]] = []
    for item in output:
        if _get(item, "type") == "function_call" and _get(item, "status") != "incomplete":
            calls.append({"call_id": _get(item, "call_id"), "name": _get(item, "name"),
                          "arguments": _get(item, "arguments")})
        elif _get(item, "type") == "custom_tool_call":  # the input as LiteLLM gives it
            calls.append({"type": "custom", "call_id": _get(item, "call_id"), "name": _get(item, "name"),
                          "input": _get(item, "input")})
    refusals = [_get(part, "refusal") or "" for item in output if _get(item, "type") == "message"
                for part in _get(item, "content") or [] if _get(part, "type") == "refusal"]
    summary = [_get(part, "text") or "" for item in output if _get(item, "type") == "reasoning"
               for part in _get(item, "summary") or []]
    return {"layer": "raw",  # the items' `arguments` strings, never parsed (docs/adapters.md#layers)
            "text": text, "tool_calls": [] if error else calls, "error": error,
            "incomplete": _get(response, "status") == "incomplete" if response is not None else False,
            "refusal": "".join(refusals) if refusals else None,
            "reasoning": "\n\n".join(summary) if response is not None else None}


def _call(request: dict[str, Any], base_url: str, retries: int = 0) -> dict[str, Any]:
    body = dict(request)
    model = str(body.pop("model", "callproof-model"))
    streaming = body.pop("stream", True) is not False
    litellm.register_model({f"openai/{model}": {"litellm_provider": "openai", "mode": "responses",
                                                "supports_native_streaming": True}})
    # read duck-typed, as the adapter reads every object LiteLLM gives: its declared return type is a union that
    # changes between releases (1.110.2 adds a coroutine and an iterator base class without __iter__ to it)
    answer: Any = litellm.responses(model=f"openai/{model}", **body, stream=streaming, api_base=base_url,
                                    api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                                    num_retries=retries)
    if not streaming:
        failed = _get(answer, "status") == "failed"
        return _result(answer, f"response.failed: {_get(answer, 'error')}" if failed else None)
    for event in answer:
        kind = str(getattr(event.type, "value", event.type))
        if kind in _TERMINAL:
            failed = kind == "response.failed"
            return _result(event.response, f"response.failed: {_get(event.response, 'error')}" if failed else None)
        if kind == "error":
            return _result(None, f"error event: {_get(event, 'code')}: {_get(event, 'message')}")
    return _result(None, "the stream ended without a terminal event")



def tool_output(name: str, arguments: str, call_id: str) -> str:
    """The adapter protocol's deterministic tool (docs/adapters.md, "Loops and retries")."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}"


def _next_request(request: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An agent loop's next request: the input so far, this turn's calls, one output per call id (arguments an
    object where the library parsed them: sent back as their JSON text)."""
    calls = [{**c, "arguments": c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"])}
             for c in calls]
    given = request["input"]
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
    items += [{"type": "function_call", "call_id": c["call_id"], "name": c["name"], "arguments": c["arguments"]}
              for c in calls]
    items += [{"type": "function_call_output", "call_id": c["call_id"],
               "output": tool_output(c["name"], c["arguments"], c["call_id"])} for c in calls]
    return {**request, "input": items}


def run(request: dict[str, Any], base_url: str | None = None, tool_loop: bool | None = None,
        max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.clients.litellm_responses:run`): one case in, one result out. An
    agent-loop case (`tool_loop`, else CALLPROOF_TOOL_LOOP=1) sends every call's output back until an answer has no
    call; the library retries `max_retries` times (else CALLPROOF_MAX_RETRIES)."""
    loop = os.environ.get("CALLPROOF_TOOL_LOOP") == "1" if tool_loop is None else tool_loop
    retries = int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0) if max_retries is None else max_retries
    result = _run_once(request, base_url, retries)
    for _ in range(int(os.environ.get("CALLPROOF_MAX_TURNS") or 8) - 1):
        if not loop or not result["tool_calls"] or result["error"] is not None:
            break
        request = _next_request(request, result["tool_calls"])
        result = _run_once(request, base_url, retries)
    return result


def _run_once(request: dict[str, Any], base_url: str | None, retries: int) -> dict[str, Any]:
    """One request (the library's retries included)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return _call(request, base_url or os.environ["CALLPROOF_BASE_URL"], retries)
    except Exception as exc:
        return _result(None, f"{type(exc).__name__}: {exc}")


def main() -> int:
    try:
        request = json.load(sys.stdin)
        result = run(request) if isinstance(request, dict) else _result(None, "stdin is not one JSON object")
    except ValueError as exc:
        result = _result(None, f"stdin is not one JSON object: {exc}")
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
