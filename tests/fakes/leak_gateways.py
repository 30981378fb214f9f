"""Gateway fakes of the credentials in error bodies (GW-FAULT-005, docs/spec/contracts.md §7.8.1), listed in
gateways.py's `DEFECTS`: Chat upstream readers of the reference gateway.

- `leaks_upstream_error_body` holds a key of its own for the upstream, as most gateways do, and passes an upstream's
  error message on verbatim: against an upstream that echoes the request in its errors (`fault_http_401_echoes_key`,
  `fault_http_500_echoes_headers`), the key reaches every caller.
- `echoes_caller_key` names the key its caller sent in its own error messages, as real gateways' auth errors do
  ("Received API Key = sk-..."): caught because the run sends a key of its own by default (docs/spec/verdicts.md §10).
- `routes_by_provider_header` is correct: it sends its upstream a routing header whose vendor name holds "key"
  (`x-keyvendor-provider: anthropic`, as Portkey's gateway sends `x-portkey-provider`) and names the provider in its
  errors; neither is a credential, and GW-FAULT-005 passes it (docs/spec/verdicts.md §8).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import httpx

from examples.gateway import ChatUpstream, UpstreamHTTPError
from examples.gateway.upstreams.base import ERROR_HEADERS

__all__ = ["LEAK_DEFECTS", "PROVIDER", "ROUTING_HEADER", "UPSTREAM_KEY", "EchoesCallerKey", "LeaksUpstreamErrorBody",
           "RoutesByProviderHeader"]

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


class EchoesCallerKey(ChatUpstream):
    """echoes_caller_key: adds the key its caller sent (and it passed on) to the message of every upstream error it
    answers, "(request made with key sk-...)", so the caller's key lands in every error body and log (GW-FAULT-005)."""

    def http_error(self, response: httpx.Response, content: bytes) -> UpstreamHTTPError:
        error = super().http_error(response, content)
        key = response.request.headers.get("authorization", "").partition(" ")[2]
        return replace(error, message=f"{error.message} (request made with key {key})")


#: The routing header of `routes_by_provider_header`, and the provider it names (in its errors too).
ROUTING_HEADER, PROVIDER = "x-keyvendor-provider", "anthropic"


class RoutesByProviderHeader(ChatUpstream):
    """routes_by_provider_header (correct): sends `x-keyvendor-provider: anthropic` upstream beside the caller's key,
    and prefixes the upstream's (redacted) error message with the provider's name; not a credential (GW-FAULT-005
    passes)."""

    def headers(self, authorization: str | None) -> dict[str, str]:
        return {**super().headers(authorization), ROUTING_HEADER: PROVIDER}

    def http_error(self, response: httpx.Response, content: bytes) -> UpstreamHTTPError:
        error = super().http_error(response, content)
        return replace(error, message=f"{PROVIDER} answered HTTP {error.status}: {error.message}")


LEAK_DEFECTS = {"leaks_upstream_error_body": LeaksUpstreamErrorBody, "echoes_caller_key": EchoesCallerKey,
                "routes_by_provider_header": RoutesByProviderHeader}
