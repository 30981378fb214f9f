"""callproof client adapter for the official `anthropic` Python SDK (`--client-dialect anthropic`).

    callproof run --client-dialect anthropic --client-cmd 'python -m callproof.examples.client_anthropic'
    callproof run --client-dialect anthropic --client callproof.examples.client_anthropic:run

It reads the Messages request body on stdin and streams it with `client.messages.stream(...)`, the SDK's streaming
helper, whose accumulator builds the `Message` SDK users read their tool calls from (`get_final_message()`). The
result is that message as the SDK gives it: the text of its text blocks, every `tool_use` block (its id, name and
`input`, which the SDK has already parsed into an object, sent as JSON text), and `incomplete` when the stop_reason
is `max_tokens` or `refusal`. Nothing is filtered or normalised: the adapter reports the SDK, not a repaired SDK. A
request with `"stream": false` goes through `messages.create(...)`.

The SDK appends `/v1/messages` to its base URL, so the adapter gives it callproof's base URL without the `/v1`.
Every failure becomes the result's `error`, never a traceback: HTTP errors (`APIStatusError`), connection errors,
an `error` event (the SDK raises it as an `APIStatusError`), and whatever its accumulator raises.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from typing import Any

import anthropic
from anthropic.types import Message

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
    return {
        "text": "".join(block.text for block in blocks if block.type == "text"),
        "tool_calls": calls,
        "error": error,
        "incomplete": message is not None and message.stop_reason in _INCOMPLETE,
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


def run(request: dict[str, Any], base_url: str | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.client_anthropic:run`): one request in, one result out."""
    base = base_url or os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("ANTHROPIC_BASE_URL") or ""
    try:
        with anthropic.Anthropic(
            base_url=base.rstrip("/").removesuffix("/v1"),
            api_key=os.environ.get("ANTHROPIC_API_KEY", "callproof"),
            max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0),
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
