"""A cancellation over a gateway's Responses WebSocket front (docs/spec/gateway-websocket.md §5,
docs/spec/cancellation.md §1): the client's close is the socket's close. `close_socket` is the WebSocket twin of
`_cancel_exchange.close_front`, passed to `judge_cancellation` over `--front-transport websocket`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ._cancel_exchange import Closed
from ._http_exchange import Limits
from ._ws_play import WebSocketPlay

__all__ = ["close_socket"]


def close_socket(url: str, body: Mapping[str, Any], headers: Mapping[str, str], *, timeout: float,
                 after_events: int, upstream_called: Callable[[], bool] | None = None) -> Closed:
    """A cancellation over a WebSocket front (docs/spec/gateway-websocket.md §5): `body`'s `response.create` on a
    socket of its own, then the socket closed after `after_events` messages, or (with `upstream_called`, before the
    first byte) as soon as it says the gateway called its upstream. The `Closed` of run/_cancel_exchange."""
    play = WebSocketPlay(url, headers, timeout, Limits(), "openai", "", "", lambda _: {}, lambda _: [])
    sent = time.monotonic()
    closed, read, problem = play.cancel(body, 0 if upstream_called is not None else after_events,
                                        upstream_called or (lambda: True))
    return Closed(sent, closed, None, read, 0, problem)
