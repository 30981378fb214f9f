"""The gateway as an ASGI app for `callproof run --app callproof.examples.gateway.asgi:app`: its upstream is
`$CALLPROOF_UPSTREAM` (the harness sets it to the mock's URL with `/v1` before it imports the app), in the
Chat Completions dialect unless `$CALLPROOF_UPSTREAM_DIALECT` says `responses` or `anthropic`."""

from __future__ import annotations

import os

from .app import create_app

__all__ = ["app"]

app = create_app(os.environ.get("CALLPROOF_UPSTREAM", "http://127.0.0.1:8911/v1"),
                 dialect=os.environ.get("CALLPROOF_UPSTREAM_DIALECT", "chat"))
