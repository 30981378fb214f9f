"""callproof client adapter for the official `openai` Python SDK over the Responses API's WebSocket mode
(docs/adapters.md: over WebSocket; `--client-transport websocket`).

    callproof run --client-transport websocket --client-cmd 'python -m callproof.examples.client_openai_ws'
    callproof run --client-transport websocket --client callproof.examples.client_openai_ws:run

It reads the Responses request body on stdin, opens `client.responses.connect()` (the SDK derives the
`ws://.../v1/responses` URL from `base_url`; `CALLPROOF_WS_URL`, when set, is its `websocket_base_url`), sends the
body as one `response.create` client event (without `stream`: over WebSocket every response streams, and the SDK
says not to send it) and reads the server events the SDK parses (`ResponsesServerEvent`) until the response's
terminal event. The SDK has no accumulator for this mode, so the result is read as its users read it: the terminal
event's `response` (its `output_text`, its `function_call` items that are not "incomplete"), or, when that response
carries no output, the items of the `response.output_item.done` events in output order. Nothing is repaired.

Every failure becomes the result's `error`, never a traceback: an `error` event (its code and message),
`response.failed`, a socket the server closes before the terminal event, a connection refused.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import openai

__all__ = ["main", "run"]


def _result(text: str, calls: list[dict[str, Any]], error: str | None, incomplete: bool = False) -> dict[str, Any]:
    return {"text": text, "tool_calls": [] if error else calls, "error": error, "incomplete": incomplete}


def _calls(output: list[Any]) -> list[dict[str, Any]]:
    return [{"call_id": item.call_id, "name": item.name, "arguments": item.arguments}
            for item in output if getattr(item, "type", None) == "function_call" and item.status != "incomplete"]


def _text(output: list[Any]) -> str:
    return "".join(part.text for item in output if getattr(item, "type", None) == "message"
                   for part in item.content if getattr(part, "type", None) == "output_text")


def _converse(connection: Any, body: dict[str, Any]) -> dict[str, Any]:
    """One `response.create` on an open connection, read to its terminal event."""
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
                return _result(_text(output), [], f"response.failed: {detail}")
            return _result(_text(output), _calls(output), None, incomplete=kind == "response.incomplete")
        elif kind == "error":
            error = getattr(event, "error", None)
            code = getattr(error, "code", None) or getattr(event, "code", None)
            message = getattr(error, "message", None) or getattr(event, "message", None)
            return _result("", [], f"error event: {code}: {message}")
    return _result("", [], "the server closed the WebSocket before the response's terminal event")


def run(request: dict[str, Any], base_url: str | None = None, transport: str = "websocket") -> dict[str, Any]:
    """The in-process form (`--client examples.client_openai_ws:run`): one request in, one result out, over a
    WebSocket whatever `transport` says (this adapter speaks only that mode)."""
    body = {key: value for key, value in request.items() if key != "stream"}
    url = base_url or os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    ws_url = os.environ.get("CALLPROOF_WS_URL") if base_url is None else None
    try:
        client = openai.OpenAI(base_url=url, websocket_base_url=ws_url,
                               api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                               max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0))
        with client, client.responses.connect() as connection:  # both closed on the way out, whatever happened
            return _converse(connection, body)
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
