"""Fake clients over the Responses WebSocket mode (`callproof run --client-transport websocket`): one correct, the
others broken on purpose (docs/spec/websocket-clients.md).

    python -m tests.fakes.ws_clients                       # the correct reference client
    python -m tests.fakes.ws_clients --defect pipelines_creates

Each run reads one Responses request body on stdin, connects to `$CALLPROOF_WS_URL/responses` (else the
`CALLPROOF_BASE_URL` with a ws scheme) with the `websockets` client, sends the body as one `response.create`
message (without `stream`) and reads the server messages with `clients.ReferenceClient`'s event handling (no SDK),
until the response's terminal event. An `error` event with a status reads as that HTTP error (so the protocol's
`Driver` retries a 429/5xx as over HTTP); tool loops resend the whole conversation on a fresh connection per turn.
Every defect names, in its docstring, the rule that must catch it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import connect
from websockets.sync.connection import Connection

from .clients import Driver, ReferenceClient, _obj

__all__ = ["DEFECTS", "WebSocketReferenceClient", "main", "run"]

IN_FLIGHT = "response_already_in_flight"


def _member(value: dict[str, Any], key: str) -> dict[str, Any]:
    """`value[key]` when it is an object, else {}."""
    member = value.get(key)
    return member if isinstance(member, dict) else {}


def ws_base(base_url: str) -> str:
    """`CALLPROOF_WS_URL`, else the HTTP base URL with a ws scheme."""
    given = os.environ.get("CALLPROOF_WS_URL")
    if given:
        return given
    scheme, sep, rest = base_url.partition("://")
    return f"{'wss' if scheme == 'https' else 'ws'}{sep}{rest}"


class WebSocketReferenceClient(ReferenceClient):
    """The correct client: one `response.create` per connection turn, read to its terminal event."""

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self.items, self.error, self.incomplete, self.usage = {}, None, False, None
        try:
            self.send(request)
        except (httpx.HTTPError, ValueError, OSError, WebSocketException) as exc:
            self.fail(f"{type(exc).__name__}: {exc}")
        return self.result()

    def envelope(self, request: dict[str, Any]) -> dict[str, Any]:
        """The `response.create` message of a request body: its fields without `stream`."""
        return {"type": "response.create", **{k: v for k, v in request.items() if k != "stream"}}

    def create(self, socket: Connection, message: dict[str, Any]) -> None:
        socket.send(json.dumps(message))

    def send(self, request: dict[str, Any]) -> None:
        headers = {"authorization": f"Bearer {self.api_key}"}
        url = ws_base(self.base_url).rstrip("/") + "/responses"
        with connect(url, additional_headers=headers, proxy=None, open_timeout=self.timeout, max_size=None) as socket:
            self.create(socket, self.envelope(request))
            while True:
                try:
                    data = socket.recv(timeout=self.timeout)
                except (ConnectionClosed, TimeoutError):
                    break
                event = _obj(json.loads(data), "message")
                if event.get("type") == "error":
                    if self.on_error(event):
                        return
                elif self.on_event(event):
                    return
        self.fail("the socket closed before the response's terminal event")

    def on_error(self, event: dict[str, Any]) -> bool:
        """An error event: the failure it reports (in the HTTP form when it carries a status, with the retry-after
        of its headers); True when it ends the response."""
        error = _member(event, "error")
        code, message, status, headers = error.get("code"), error.get("message"), event.get("status"), _member(
            error, "headers")
        if isinstance(status, int):
            waits = ", ".join(f"{n} {headers[n]}" for n in ("retry-after", "retry-after-ms") if n in headers)
            self.fail(f"HTTP {status}{f' ({waits})' if waits else ''}: {code}: {message}")
        else:
            self.fail(f"error event: {code}: {message}")
        return True


# -- the defects -------------------------------------------------------------------------------------------


class PipelinesCreates(WebSocketReferenceClient):
    """Sends its `response.create` twice at once (a double submit on one socket), then reads the first response
    and takes the server's `response_already_in_flight` refusal of the second for noise. Its result is right.
    Caught by CLI-016 (one response in flight per connection)."""

    def create(self, socket: Connection, message: dict[str, Any]) -> None:
        socket.send(json.dumps(message))
        socket.send(json.dumps(message))

    def on_error(self, event: dict[str, Any]) -> bool:
        if _member(event, "error").get("code") == IN_FLIGHT:
            return False
        return super().on_error(event)


class SendsStream(WebSocketReferenceClient):
    """Sends the HTTP body as it is, `"stream": true` included, as its `response.create` (as openai-agents'
    transport does). Caught by CLI-017 (the response.create envelope carries no stream)."""

    def envelope(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"type": "response.create", **request, "stream": True}


#: Defect name -> the broken client (`--defect NAME`).
DEFECTS: dict[str, type[WebSocketReferenceClient]] = {
    "pipelines_creates": PipelinesCreates,
    "sends_stream": SendsStream,
}


def run(request: dict[str, Any], base_url: str, transport: str = "websocket", tool_loop: bool = False,
        max_retries: int = 0) -> dict[str, Any]:
    """The reference client in-process (`--client tests.fakes.ws_clients:run --client-transport websocket`)."""
    key = os.environ.get("OPENAI_API_KEY", "callproof")
    return Driver(lambda body: WebSocketReferenceClient(base_url, key).run(body), "responses", tool_loop=tool_loop,
                  max_retries=max_retries).run(request)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--defect", choices=sorted(DEFECTS), help="run a broken client instead of the reference")
    args = parser.parse_args(argv)
    base_url = os.environ.get("CALLPROOF_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        parser.error("set CALLPROOF_BASE_URL (or OPENAI_BASE_URL) to the mock's URL including /v1")
    kind = DEFECTS[args.defect] if args.defect else WebSocketReferenceClient
    key = os.environ.get("OPENAI_API_KEY", "callproof")
    try:
        request = _obj(json.load(sys.stdin), "stdin")
    except ValueError as exc:
        client = kind(base_url, key)
        client.fail(f"stdin is not one JSON object: {exc}")
        result = client.result()
    else:
        result = Driver(lambda body: kind(base_url, key).run(body), "responses",
                        tool_loop=os.environ.get("CALLPROOF_TOOL_LOOP") == "1",
                        max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0)).run(request)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
