"""The control API's guards: no cross-origin (browser) request, and the control token when the mock has one. A
web page the operator visits could otherwise read the journal (full prompts) or reset it, even with a `text/plain`
POST that needs no CORS preflight."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

__all__ = ["Handler", "guarded", "openai_error"]

Handler: TypeAlias = Callable[[Request], Awaitable[Response]]


def openai_error(message: str, code: str) -> dict[str, Any]:
    """An error body in the OpenAI shape, for the mock's own errors (bad URL, control API)."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


def guarded(handler: Handler, token: str | None) -> Handler:
    """`handler`, refusing cross-origin requests (403) and, when `token` is set, requests without it (401)."""

    async def guard(request: Request) -> Response:
        problem = _cross_origin(request)
        if problem is not None:
            return JSONResponse(openai_error(problem, "cross_origin"), status_code=403)
        if token is not None and not _token_matches(request, token):
            message = ("The control API needs the mock's control token: send `Authorization: Bearer <token>` "
                       "(the token given to callproof mock --control-token).")
            return JSONResponse(openai_error(message, "unauthorized"), status_code=401,
                                headers={"www-authenticate": "Bearer"})
        return await handler(request)

    return guard


def _cross_origin(request: Request) -> str | None:
    """Why a control request comes from another web origin, or None. Browsers send `Origin` (and modern ones
    `Sec-Fetch-Site`) on cross-origin requests; command-line clients and SDKs send neither."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"The control API refuses cross-site requests (Sec-Fetch-Site: {site})."
    origin = request.headers.get("origin")
    if origin is None:
        return None
    host = request.headers.get("host", "")
    if origin.lower() in (f"http://{host}".lower(), f"https://{host}".lower()):
        return None
    return f"The control API refuses requests from another origin ({origin}); call it from a test or a script."


def _token_matches(request: Request, token: str) -> bool:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())
