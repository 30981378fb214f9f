"""A gateway fake whose error path leaks credentials (GW-FAULT-005, docs/spec/contracts.md §7.8.1), listed in
gateways.py's `DEFECTS`: a Chat upstream reader that holds a key of its own for the upstream, as most gateways do,
and passes an upstream's error message on verbatim. Against an upstream that echoes the request in its errors
(`fault_http_401_echoes_key`, `fault_http_500_echoes_headers`), the key reaches every caller.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from examples.gateway import ChatUpstream, UpstreamHTTPError
from examples.gateway.upstreams.base import ERROR_HEADERS

__all__ = ["LEAK_DEFECTS", "UPSTREAM_KEY", "LeaksUpstreamErrorBody"]

#: The key the leaking gateway holds for its upstream.
UPSTREAM_KEY = "sk-callproof-gateway-own-key-0123456789abcdef"


class LeaksUpstreamErrorBody(ChatUpstream):
    """leaks_upstream_error_body: sends its own key upstream and hands the upstream's error message (which may
    echo that key and every header) to the front unredacted (GW-FAULT-005)."""

    def headers(self, authorization: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {UPSTREAM_KEY}"}

    def http_error(self, response: httpx.Response, content: bytes) -> UpstreamHTTPError:
        payload: Any = json.loads(content)
        error = payload["error"]
        headers = {name: response.headers[name] for name in ERROR_HEADERS if name in response.headers}
        return UpstreamHTTPError(response.status_code, str(error.get("message")), str(error.get("type")),
                                 error.get("code"), error.get("param"), headers)


LEAK_DEFECTS = {"leaks_upstream_error_body": LeaksUpstreamErrorBody}
