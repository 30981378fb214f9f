"""callproof client adapter for the official `openai` Python SDK on Chat Completions (`--client-dialect chat`).

    callproof run --client-dialect chat --client-cmd 'python -m callproof.examples.client_openai_chat'
    callproof run --client-dialect chat --client callproof.examples.client_openai_chat:run

It reads the Chat Completions request body on stdin and streams it with `client.chat.completions.stream(...)`, the
SDK's streaming helper, whose accumulator builds the `ChatCompletion` that SDK users read their tool calls from
(`get_final_completion()`); a failing case points at the SDK, not at hand-written glue. The result is that
completion's first choice as the SDK gives it: the message's content, every entry of `message.tool_calls` (id,
function name, function arguments, unrepaired; a custom call's raw input), its `refusal`, and `incomplete` when the
finish_reason is `length` or `content_filter` (`reasoning` is null: Chat has no reasoning field). Nothing is
filtered or normalised: the adapter reports the SDK, not a repaired SDK. A request with `"stream": false` goes
through `chat.completions.create(...)`.

Every failure becomes the result's `error`, never a traceback: HTTP errors (`APIStatusError`), connection errors,
an error chunk (the SDK raises `APIError`), and whatever its accumulator raises.
"""

from __future__ import annotations

import inspect
import json
import os
import ssl
import sys
from typing import Any

import openai
from openai.types.chat import ChatCompletion

#: One TLS context for every client this process makes (`verify=` of the SDK's HTTP client): by default the SDK builds
#: one per client, loading the CA bundle, 35 ms of CPU: more than a whole request to a local mock.
_TLS = ssl.create_default_context()

__all__ = ["main", "run"]

#: finish_reason values of a turn that did not finish: the adapter protocol's `incomplete`.
_INCOMPLETE = ("length", "content_filter")


def _result(completion: ChatCompletion | None, error: str | None) -> dict[str, Any]:
    choice = completion.choices[0] if completion is not None and completion.choices else None
    calls: list[dict[str, Any]] = []
    for call in (choice.message.tool_calls or []) if choice is not None and error is None else []:
        if call.type == "function":
            # a name the stream never sent is None in the SDK's (unvalidated) accumulated message: reported as "",
            # which is what the caller gets to run
            calls.append({"call_id": call.id, "name": call.function.name or "", "arguments": call.function.arguments})
        elif call.type == "custom":  # a non-stream message's custom call: its raw input
            calls.append({"type": "custom", "call_id": call.id, "name": call.custom.name, "input": call.custom.input})
    return {
        "layer": "raw",  # the SDK's `function.arguments: str`, never parsed (docs/adapters.md#layers)
        "text": (choice.message.content or "") if choice is not None else "",
        "tool_calls": calls,
        "error": error,
        "incomplete": choice is not None and choice.finish_reason in _INCOMPLETE,
        "refusal": choice.message.refusal if choice is not None else None,
        "reasoning": None,  # Chat Completions has no reasoning field
    }


def _call(client: openai.OpenAI, request: dict[str, Any]) -> dict[str, Any]:
    body = dict(request)
    streaming = body.pop("stream", True) is not False
    if not streaming:
        body.pop("stream_options", None)  # only valid with stream: true
    known = inspect.signature(client.chat.completions.stream).parameters
    kwargs = {key: value for key, value in body.items() if key in known}
    extra = {key: value for key, value in body.items() if key not in known}
    if not streaming:
        completion: ChatCompletion = client.chat.completions.create(**kwargs, extra_body=extra or None)
        return _result(completion, None)
    with client.chat.completions.stream(**kwargs, extra_body=extra or None) as stream:
        for _ in stream:  # the helper's events; the accumulated completion is what its users read
            pass
        return _result(stream.get_final_completion(), None)



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
    """The loop's next request: the messages so far, the assistant's tool_calls, one tool message per call id."""
    assistant = {"role": "assistant", "content": None, "tool_calls": [
        {"id": c["call_id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
        for c in calls]}
    results = [{"role": "tool", "tool_call_id": c["call_id"],
                "content": tool_output(c["name"], c["arguments"], c["call_id"])[0]} for c in calls]
    return {**request, "messages": [*request["messages"], assistant, *results]}


def run(request: dict[str, Any], base_url: str | None = None, tool_loop: bool | None = None,
        max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.client_openai_chat:run`): one case in, one result out. In an agent-loop
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
        ) as client:
            return _call(client, request)
    except openai.APIStatusError as exc:
        retry = exc.response.headers.get("retry-after")
        return _result(None, f"{type(exc).__name__}: {exc.message}" + (f" (retry-after {retry})" if retry else ""))
    except openai.APIConnectionError as exc:
        return _result(None, f"{type(exc).__name__}: {exc.message} ({exc.__cause__!r})")
    except Exception as exc:  # APIError from an error chunk, SSE parse and accumulator errors
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
