"""The reference gateway behind a front that wants credentials, for `--app tests.fakes.auth_gateway_app:app` with
`--header`: every front request needs `Authorization: Bearer s3cret-front` and `X-Tenant: t1` (401 otherwise).
The harness sets CALLPROOF_UPSTREAM to the mock's URL before importing this module."""

from __future__ import annotations

import json
import os

from starlette.types import ASGIApp, Receive, Scope, Send

from tests.fakes.gateways import create_app

WANTED = {b"authorization": b"Bearer s3cret-front", b"x-tenant": b"t1"}


def require_headers(inner: ASGIApp) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            missing = [name.decode() for name, value in WANTED.items() if headers.get(name) != value]
            if missing:
                body = json.dumps({"error": {"message": f"missing or wrong {missing}", "type": "auth"}}).encode()
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        await inner(scope, receive, send)

    return app


app = require_headers(create_app(os.environ["CALLPROOF_UPSTREAM"]))
