"""callproof client adapter for the official `openai` Python SDK (docs/spec/contracts.md §5, `--client-cmd`).

    callproof run --client-cmd 'python -m callproof.examples.client_openai'
    callproof run --client callproof.examples.client_openai:run

It reads the Responses request body on stdin and streams it with `client.responses.stream(...)`, the SDK's
documented streaming helper. Its accumulator builds the `Response` from the events, and that is what SDK users
rely on for tool calls (`get_final_response()`), so a failing case points at the SDK, not at hand-written glue.
`responses.create(stream=True)` yields the same events raw and leaves the accumulation to the caller
(tests/fakes/clients.py models that style). The result comes from the terminal event's `response`: the SDK's
`output_text` and, unless the turn failed, the `function_call` items whose status is not "incomplete" and the
`custom_tool_call` items (`{"type": "custom", "input"}`), the `refusal` parts of the messages and the reasoning
items' `summary` parts (joined with a blank line), passed through as the SDK gives them: no normalisation, the
adapter reports the SDK and not a repaired SDK. The SDK hands a call's `arguments` on as the string the stream
carried, never parsed (for a tool without `strict`), so the result declares `"layer": "raw"`
(docs/adapters.md#layers). A request with `"stream": false` goes through `responses.create(...)`.

Every failure becomes the result's `error`, never a traceback: HTTP errors (`APIStatusError`), connection
errors, parse errors the SDK raises, `response.failed`, an `error` event, and a stream that ends without a
terminal event.
"""

from __future__ import annotations

import inspect
import json
import os
import ssl
import sys
from typing import Any

import openai
from openai.types.responses import Response

#: One TLS context for every client this process makes (`verify=` of the SDK's HTTP client): by default the SDK builds
#: one per client, loading the CA bundle, 35 ms of CPU: more than a whole request to a local mock.
_TLS = ssl.create_default_context()

__all__ = ["main", "run"]


def _result(response: Response | None, error: str | None) -> dict[str, Any]:
    output = response.output if response is not None else []
    calls: list[dict[str, Any]] = []
    for item in output if error is None else []:
        if item.type == "function_call" and item.status != "incomplete":
            calls.append({"call_id": item.call_id, "name": item.name, "arguments": item.arguments})
        elif item.type == "custom_tool_call":  # the SDK's `input`, as it gives it
            calls.append({"type": "custom", "call_id": item.call_id, "name": item.name, "input": item.input})
    refusals = [part.refusal for item in output if item.type == "message" for part in item.content
                if part.type == "refusal"]
    summary = [part.text for item in output if item.type == "reasoning" for part in item.summary]
    return {
        "layer": "raw",  # the SDK's `arguments: str`, never parsed (docs/adapters.md#layers)
        "text": response.output_text if response is not None else "",
        "tool_calls": calls,
        "error": error,
        "incomplete": response is not None and response.status == "incomplete",
        "refusal": "".join(refusals) if refusals else None,
        "reasoning": "\n\n".join(summary) if response is not None else None,
    }


def _failure(response: Response) -> str:
    detail = response.error.message if response.error is not None else "no error object"
    return f"response.failed: {detail}"


def _call(client: openai.OpenAI, request: dict[str, Any]) -> dict[str, Any]:
    body = dict(request)
    streaming = body.pop("stream", True) is not False
    known = inspect.signature(client.responses.stream).parameters
    kwargs = {key: value for key, value in body.items() if key in known}
    extra = {key: value for key, value in body.items() if key not in known}
    if not streaming:
        response: Response = client.responses.create(**kwargs, extra_body=extra or None)
        return _result(response, _failure(response) if response.status == "failed" else None)
    with client.responses.stream(**kwargs, extra_body=extra or None) as stream:
        for event in stream:
            if event.type == "response.completed" or event.type == "response.incomplete":
                return _result(event.response, None)
            if event.type == "response.failed":
                return _result(event.response, _failure(event.response))
            if event.type == "error":
                return _result(None, f"error event: {event.code}: {event.message}")
    return _result(None, "the stream ended without a terminal event")



def tool_output(name: str, arguments: str, call_id: str) -> tuple[str, bool]:
    """The adapter protocol's deterministic tool (docs/adapters.md, "Loops and retries"): `"<name> ok <call_id>"`,
    or `"<name> error <call_id>"` and is_error when the arguments are not a JSON object or their `fail` is true."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}", failed


def _next_request(request: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The loop's next request: the input so far, then this turn's calls and one output per call id."""
    given = request["input"]
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
    for c in calls:
        if c.get("type") == "custom":
            items.append({"type": "custom_tool_call", "call_id": c["call_id"], "name": c["name"], "input": c["input"]})
        else:
            items.append({"type": "function_call", "call_id": c["call_id"], "name": c["name"],
                          "arguments": c["arguments"]})
    items += [{"type": f"{'custom_tool_call' if c.get('type') == 'custom' else 'function_call'}_output",
               "call_id": c["call_id"],
               "output": tool_output(c["name"], c.get("arguments", c.get("input", "")), c["call_id"])[0]}
              for c in calls]
    return {**request, "input": items}


def run(request: dict[str, Any], base_url: str | None = None, tool_loop: bool | None = None,
        max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.client_openai:run`): one case in, one result out. In an agent-loop
    case (`tool_loop`, else CALLPROOF_TOOL_LOOP=1) it runs the deterministic tool for every call and sends the
    outputs back until an answer has no call (at most CALLPROOF_MAX_TURNS requests, default 8); the SDK retries
    `max_retries` times (else CALLPROOF_MAX_RETRIES, default 0), after the answer's Retry-After."""
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
    """One request (the SDK's retries included): its result object."""
    try:
        with openai.OpenAI(
            base_url=base_url or os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("OPENAI_BASE_URL"),
            api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
            max_retries=retries, http_client=openai.DefaultHttpxClient(verify=_TLS),
        ) as client:  # closes its connection pool: an in-process run leaves no socket behind
            return _call(client, request)
    except openai.APIStatusError as exc:  # its message reads "Error code: 429 - ..."
        retry = exc.response.headers.get("retry-after")
        return _result(None, f"{type(exc).__name__}: {exc.message}" + (f" (retry-after {retry})" if retry else ""))
    except openai.APIConnectionError as exc:  # APITimeoutError included
        return _result(None, f"{type(exc).__name__}: {exc.message} ({exc.__cause__!r})")
    except Exception as exc:  # APIError from an in-stream error body, SSE parse and accumulator errors
        return _result(None, f"{type(exc).__name__}: {exc}")


def main() -> int:
    try:
        request = json.load(sys.stdin)
        if not isinstance(request, dict):
            raise ValueError(f"got {type(request).__name__}")
    except ValueError as exc:
        result = _result(None, f"stdin is not one JSON object: {exc}")
    else:
        result = run(request)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
