"""What every upstream dialect provides: its path and headers, the request body for a neutral `Request`, and its
answer (an SSE stream, a JSON body or an HTTP error) read back as neutral events."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import httpx

from callproof.harness import is_credential_name

from ..custom_tools import CallsBack, offered
from ..model import Event, Json, Request, UpstreamHTTPError

__all__ = ["ERROR_HEADERS", "Upstream"]

#: Upstream error headers the client needs to retry well.
ERROR_HEADERS = ("retry-after", "retry-after-ms")


def redact_credentials(text: str, request: httpx.Request) -> str:
    """`text` (an upstream's error message) without the credentials `request` carried: some upstreams echo the
    key or every header back in their errors, and the client must not see the key this gateway holds. A credential
    is what callproof's judge takes for one (`callproof.harness.is_credential_name`: the auth headers and parameters,
    names ending in `-key`, `-token`, `-secret`; not a routing header such as `x-portkey-provider`)."""
    values = [v for name, value in request.headers.items() if is_credential_name(name)
              for v in (value, value.partition(" ")[2])]
    values += [value for name, value in request.url.params.multi_items() if is_credential_name(name)]
    for value in sorted((v.strip() for v in values if len(v.strip()) >= 4), key=len, reverse=True):
        text = text.replace(value, "[redacted]")
    return text


class Upstream:
    """One upstream dialect. Stateless: whatever one answer needs lives in the reader of that answer."""

    dialect: ClassVar[str]
    path: ClassVar[str]
    #: Whether the dialect has custom (freeform) tools and can stream their calls (only the Responses API).
    takes_custom_tools: ClassVar[bool] = False
    #: `--custom-tools`: refuse (default) or convert custom tools toward an upstream without them (custom_tools.py).
    custom_tools: str = "refuse"

    def offered(self, request: Request) -> Request:
        """`request` as this upstream can take it: custom tools kept, converted or refused (Untranslatable)."""
        return request if self.takes_custom_tools else offered(request, self.dialect, self.custom_tools)

    def calls_back(self, request: Request) -> CallsBack | None:
        """What turns the calls of converted custom tools back into custom calls (None: nothing converted)."""
        if self.takes_custom_tools or self.custom_tools != "convert":
            return None
        names = frozenset(tool.name for tool in request.tools if tool.kind == "custom")
        return CallsBack(names) if names else None

    def headers(self, authorization: str | None) -> dict[str, str]:
        """The client's credentials (its Authorization header), passed on."""
        return {"authorization": authorization} if authorization else {}

    def translate_request(self, request: Request) -> Json:
        raise NotImplementedError

    def events(self, response: httpx.Response) -> AsyncIterator[Event]:
        """The neutral events of a streamed answer, as they arrive; raises UpstreamError / UpstreamCut."""
        raise NotImplementedError

    def body_events(self, body: Any) -> list[Event]:
        """The neutral events of a non-stream answer (the same as its stream's); raises UpstreamError."""
        raise NotImplementedError

    def http_error(self, response: httpx.Response, content: bytes) -> UpstreamHTTPError:
        """An upstream HTTP error: its status, message, type and code, and the headers to retry by."""
        status = response.status_code
        try:
            payload: Any = json.loads(content)
        except ValueError:
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        if not isinstance(error, dict):
            text = error if isinstance(error, str) else content.decode("utf-8", "replace")[:500]
            error = {"message": text or f"The upstream answered HTTP {status}."}
        kind = error.get("type") or ("server_error" if status >= 500 else "invalid_request_error")
        headers = {name: response.headers[name] for name in ERROR_HEADERS if name in response.headers}
        message = str(error.get("message"))
        with contextlib.suppress(RuntimeError):  # a response built by hand (tests) has no request
            message = redact_credentials(message, response.request)
        return UpstreamHTTPError(status, message, str(kind), error.get("code"), error.get("param"), headers)
