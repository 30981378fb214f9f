"""The reference gateway as an ASGI app attribute, for `--app tests.fakes.gateway_app:app`: the harness sets
CALLPROOF_UPSTREAM to the mock's URL before importing this module."""

from __future__ import annotations

import os

from tests.fakes.gateways import gateway_app

app = gateway_app(os.environ["CALLPROOF_UPSTREAM"])
