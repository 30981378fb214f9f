"""callproof client adapter for the official `openai` Python SDK over the Responses API's WebSocket mode
(docs/adapters.md: over WebSocket; `--client-transport websocket`).

    callproof run --client-transport websocket --client-cmd 'python -m callproof.examples.client_openai_ws'
    callproof run --client-transport websocket --client callproof.examples.client_openai_ws:run

It reads the Responses request body on stdin, opens `client.responses.connect()` (the SDK derives the
`ws://.../v1/responses` URL from `base_url`; `CALLPROOF_WS_URL`, when set, is its `websocket_base_url`), sends the
body as one `response.create` client event (without `stream`: over WebSocket every response streams, and the SDK
says not to send it) and reads the server events the SDK parses (`ResponsesServerEvent`) until the response's
terminal event. The SDK has no accumulator for this mode, so the result is read as its users read it: the terminal
event's `response` (its `output_text`, its `function_call` items that are not "incomplete", its `custom_tool_call`
items with their raw input, its refusal parts and its reasoning summary), or, when that response
carries no output, the items of the `response.output_item.done` events in output order. Nothing is repaired.

Every failure becomes the result's `error`, never a traceback: an `error` event (its code and message),
`response.failed`, a socket the server closes before the terminal event, a connection refused.

Loops and retries (docs/adapters.md#loops-and-retries), on the one connection, as the mode intends: in a tool-loop
case (`CALLPROOF_TOOL_LOOP=1`, or `tool_loop=True`) each call is run through the deterministic tool and the next
`response.create` carries the whole conversation again (the input, the calls, one `function_call_output` per
call), until an answer has no calls (at most `CALLPROOF_MAX_TURNS` turns); the result is the last answer's. It sends
no `previous_response_id`: the mock selects each turn's scenario by the markers of the first user message, so a
continuation must carry them (a client on the real API may continue by id instead). The SDK retries no
`response.create` over WebSocket (its `max_retries` is about reconnecting), so a user who wants retries writes
them: with `CALLPROOF_MAX_RETRIES=N` (or `max_retries=N`) an error event with a retryable status (408, 409, 429,
5xx) is retried up to N times on the same connection, after the `retry-after-ms` (else `retry-after`) its headers
give, capped at 10 s.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import time
from collections.abc import Mapping
from typing import Any

import openai

#: One TLS context for every client this process makes (`verify=` of the SDK's HTTP client): by default the SDK builds
#: one per client, loading the CA bundle, 35 ms of CPU: more than a whole request to a local mock.
_TLS = ssl.create_default_context()

__all__ = ["main", "run"]


def _result(text: str, calls: list[dict[str, Any]], error: str | None, incomplete: bool = False) -> dict[str, Any]:
    return {"layer": "raw",  # the SDK's `arguments: str`, never parsed (docs/adapters.md#layers)
            "text": text, "tool_calls": [] if error else calls, "error": error, "incomplete": incomplete}


def _calls(output: list[Any]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for item in output:
        kind = getattr(item, "type", None)
        if kind == "function_call" and item.status != "incomplete":
            calls.append({"call_id": item.call_id, "name": item.name, "arguments": item.arguments})
        elif kind == "custom_tool_call":  # the item's raw `input`
            calls.append({"type": "custom", "call_id": item.call_id, "name": item.name, "input": item.input})
    return calls


def _said(output: list[Any]) -> dict[str, Any]:
    """The result's `refusal` (the messages' refusal parts, or null) and `reasoning` (the reasoning items' summary
    parts joined with a blank line)."""
    refusals = [part.refusal for item in output if getattr(item, "type", None) == "message"
                for part in item.content if getattr(part, "type", None) == "refusal"]
    summary = [part.text for item in output if getattr(item, "type", None) == "reasoning" for part in item.summary]
    return {"refusal": "".join(refusals) if refusals else None, "reasoning": "\n\n".join(summary)}


def _text(output: list[Any]) -> str:
    return "".join(part.text for item in output if getattr(item, "type", None) == "message"
                   for part in item.content if getattr(part, "type", None) == "output_text")


_RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504})
_MAX_WAIT_S = 10.0


def tool_output(name: str, arguments: str, call_id: str) -> tuple[str, bool]:
    """The deterministic tool of the adapter protocol (docs/adapters.md#loops-and-retries): `"<name> ok <call_id>"`,
    or `"<name> error <call_id>"` (failed) when the arguments are not a JSON object or say `"fail": true`."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}", failed


def _retry_wait(error: Any) -> float:
    """The pause an error event asks for: its headers' retry-after-ms, else retry-after (seconds), capped."""
    headers: Any = getattr(error, "headers", None)
    if not isinstance(headers, Mapping):
        headers = (getattr(error, "model_extra", None) or {}).get("headers")
    if not isinstance(headers, Mapping):
        return 0.0
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return min(float(headers[name]) * scale, _MAX_WAIT_S)
        except (KeyError, TypeError, ValueError):
            continue
    return 0.0


def _loop(connection: Any, body: dict[str, Any], tool_loop: bool, max_turns: int, retries: int) -> dict[str, Any]:
    """The case on one connection: its request, then (a tool loop) one continuation per answer with calls; an
    error event with a retryable status is retried while `retries` last."""
    result: dict[str, Any] = _result("", [], "no response")
    for _ in range(max_turns if tool_loop else 1):
        result, response_id, status, error = _converse(connection, body)
        while status in _RETRYABLE and retries > 0:
            retries -= 1
            time.sleep(_retry_wait(error))
            result, response_id, status, error = _converse(connection, body)
        if not tool_loop or result["error"] is not None or not result["tool_calls"] or response_id is None:
            return result
        items = list(body["input"]) if isinstance(body.get("input"), list) else [
            {"type": "message", "role": "user", "content": body.get("input", "")}]
        for call in result["tool_calls"]:
            custom = call.get("type") == "custom"
            items.append({"type": "custom_tool_call", "call_id": call["call_id"], "name": call["name"],
                          "input": call["input"]} if custom else
                         {"type": "function_call", "call_id": call["call_id"], "name": call["name"],
                          "arguments": call["arguments"]})
        for call in result["tool_calls"]:
            output, _failed = tool_output(call["name"], call.get("arguments", call.get("input", "")), call["call_id"])
            kind = "custom_tool_call_output" if call.get("type") == "custom" else "function_call_output"
            items.append({"type": kind, "call_id": call["call_id"], "output": output})
        body = {**body, "input": items}
    return result


def _converse(connection: Any, body: dict[str, Any]) -> tuple[dict[str, Any], str | None, int | None, Any]:
    """One `response.create` on an open connection, read to its terminal event: the result, the response's id,
    and for an error event its status and error object."""
    connection.send({"type": "response.create", **body})
    done: dict[int, Any] = {}
    for event in connection:
        kind = event.type
        if kind == "response.output_item.done":
            done[event.output_index] = event.item
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event.response
            output = list(response.output) or [done[i] for i in sorted(done)]
            if kind == "response.failed":
                detail = response.error.message if response.error is not None else "no error object"
                return _result(_text(output), [], f"response.failed: {detail}"), response.id, None, None
            result = _result(_text(output), _calls(output), None, incomplete=kind == "response.incomplete")
            return {**result, **_said(output)}, response.id, None, None
        elif kind == "error":
            error = getattr(event, "error", None)
            code = getattr(error, "code", None) or getattr(event, "code", None)
            message = getattr(error, "message", None) or getattr(event, "message", None)
            status = getattr(event, "status", None)
            shown = f" (status {status})" if status is not None else ""
            return _result("", [], f"error event{shown}: {code}: {message}"), None, status, error
    return _result("", [], "the server closed the WebSocket before the response's terminal event"), None, None, None


def run(request: dict[str, Any], base_url: str | None = None, transport: str = "websocket", *,
        tool_loop: bool | None = None, max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.client_openai_ws:run`): one request in, one result out, over a
    WebSocket whatever `transport` says (this adapter speaks only that mode); `tool_loop` and `max_retries` as the
    harness passes them for a sequence case (else from the environment)."""
    body = {key: value for key, value in request.items() if key != "stream"}
    if tool_loop is None:
        tool_loop = os.environ.get("CALLPROOF_TOOL_LOOP") == "1"
    if max_retries is None:
        max_retries = int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0)
    max_turns = int(os.environ.get("CALLPROOF_MAX_TURNS") or 8)
    url = base_url or os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    ws_url = os.environ.get("CALLPROOF_WS_URL") if base_url is None else None
    try:
        client = openai.OpenAI(base_url=url, websocket_base_url=ws_url,
                               api_key=os.environ.get("OPENAI_API_KEY", "callproof"), max_retries=max_retries,
                               http_client=openai.DefaultHttpxClient(verify=_TLS))
        with client, client.responses.connect() as connection:  # both closed on the way out, whatever happened
            return _loop(connection, body, tool_loop, max_turns, max_retries)
    except Exception as exc:  # connection refused or closed, a message the SDK could not parse
        return _result("", [], f"{type(exc).__name__}: {exc}")


def main() -> int:
    try:
        request = json.load(sys.stdin)
        if not isinstance(request, dict):
            raise ValueError(f"got {type(request).__name__}")
    except ValueError as exc:
        result = _result("", [], f"stdin is not one JSON object: {exc}")
    else:
        result = run(request)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
