"""callproof client adapter for the official `anthropic` Python SDK (`--client-dialect anthropic`).

    callproof run --client-dialect anthropic --client-cmd 'python -m callproof.examples.client_anthropic'
    callproof run --client-dialect anthropic --client callproof.examples.client_anthropic:run

It reads the Messages request body on stdin and streams it with `client.messages.stream(...)`, the SDK's streaming
helper, whose accumulator builds the `Message` SDK users read their tool calls from (`get_final_message()`). The
result is that message as the SDK gives it: the text of its text blocks, every `tool_use` block (its id, name and
`input`, which the SDK has already parsed into an object, sent as JSON text), the thinking of its thinking blocks
as `reasoning`, and `incomplete` when the stop_reason is `max_tokens` or `refusal`; a `refusal` whose message has
`stop_details` (a RefusalStopDetails: the model refused) is the answer instead, its text reported as `refusal`.
Nothing is filtered or normalised: the adapter reports the SDK, not a repaired SDK. A request with `"stream":
false` goes through `messages.create(...)`.

The SDK appends `/v1/messages` to its base URL, so the adapter gives it callproof's base URL without the `/v1`.
Every failure becomes the result's `error`, never a traceback: HTTP errors (`APIStatusError`), connection errors,
an `error` event (the SDK raises it as an `APIStatusError`), and whatever its accumulator raises.
"""

from __future__ import annotations

import inspect
import json
import os
import ssl
import sys
from typing import Any

import anthropic
from anthropic.types import Message

#: One TLS context for every client this process makes (`verify=` of the SDK's HTTP client): by default the SDK builds
#: one per client, loading the CA bundle, 35 ms of CPU: more than a whole request to a local mock.
_TLS = ssl.create_default_context()

__all__ = ["main", "run"]

#: stop_reason values of a turn that did not finish: the adapter protocol's `incomplete`.
_INCOMPLETE = ("max_tokens", "refusal", "model_context_window_exceeded")


def _result(message: Message | None, error: str | None) -> dict[str, Any]:
    blocks = message.content if message is not None else []
    calls = [
        {"call_id": block.id, "name": block.name, "arguments": json.dumps(block.input)}
        for block in (blocks if error is None else [])
        if block.type == "tool_use"
    ]
    text = "".join(block.text for block in blocks if block.type == "text")
    # a refusal the model gave says so in stop_details; a stop_reason refusal without it is a content filter's cut
    refused = message is not None and message.stop_reason == "refusal" and message.stop_details is not None
    return {
        "layer": "parsed",  # the SDK's `input` is an object it parsed (docs/adapters.md#layers)
        "text": "" if refused else text,
        "refusal": text if refused else None,
        "tool_calls": calls,
        "error": error,
        "incomplete": message is not None and message.stop_reason in _INCOMPLETE and not refused,
        "reasoning": "\n\n".join(block.thinking for block in blocks if block.type == "thinking")
        if message is not None else None,
    }


def _call(client: anthropic.Anthropic, request: dict[str, Any]) -> dict[str, Any]:
    body = dict(request)
    streaming = body.pop("stream", True) is not False
    known = inspect.signature(client.messages.stream).parameters
    kwargs = {key: value for key, value in body.items() if key in known}
    extra = {key: value for key, value in body.items() if key not in known}
    if not streaming:
        message: Message = client.messages.create(**kwargs, extra_body=extra or None)
        return _result(message, None)
    with client.messages.stream(**kwargs, extra_body=extra or None) as stream:
        for _ in stream:  # the helper's events; the accumulated message is what its users read
            pass
        return _result(stream.get_final_message(), None)



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
    """The loop's next request: the messages so far, the assistant's tool_use blocks, then one tool_result block per
    call id (is_error for a failed tool)."""
    uses = [{"type": "tool_use", "id": c["call_id"], "name": c["name"], "input": json.loads(c["arguments"] or "{}")}
            for c in calls]
    results = []
    for c in calls:
        output, failed = tool_output(c["name"], c["arguments"], c["call_id"])
        results.append({"type": "tool_result", "tool_use_id": c["call_id"], "content": output,
                        **({"is_error": True} if failed else {})})
    return {**request, "messages": [*request["messages"], {"role": "assistant", "content": uses},
                                    {"role": "user", "content": results}]}


def run(request: dict[str, Any], base_url: str | None = None, tool_loop: bool | None = None,
        max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.client_anthropic:run`): one case in, one result out. In an agent-loop
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
    base = base_url or os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL") or ""
    try:
        with anthropic.Anthropic(
            base_url=base.rstrip("/").removesuffix("/v1"),
            api_key=os.environ.get("ANTHROPIC_API_KEY", "callproof"),
            max_retries=retries, http_client=anthropic.DefaultHttpxClient(verify=_TLS),
        ) as client:
            return _call(client, request)
    except anthropic.APIStatusError as exc:
        retry = exc.response.headers.get("retry-after")
        return _result(None, f"{type(exc).__name__}: {exc.message}" + (f" (retry-after {retry})" if retry else ""))
    except anthropic.APIConnectionError as exc:
        return _result(None, f"{type(exc).__name__}: {exc.message} ({exc.__cause__!r})")
    except Exception as exc:  # SSE parse and accumulator errors
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
