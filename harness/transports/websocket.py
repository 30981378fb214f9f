"""The Responses API's WebSocket mode (docs/spec/gateway-websocket.md): each `response.create` message is a turn
whose events arrive as JSON text messages. No SSE framing and no non-stream twin: the `framing` and `equivalence`
groups have nothing to judge; the transcript rules (RSP-WS-*) and the `websocket` group's rules are its own."""

from __future__ import annotations

from ._transport_spec import TransportSpec

__all__ = ["WEBSOCKET"]

WEBSOCKET = TransportSpec(
    "websocket", "WebSocket", "websocket", "the Responses API's WebSocket mode", dialects=frozenset({"responses"}),
    rule_prefix="RSP-WS-",
    excludes=frozenset({"framing", "equivalence"}), adds=("websocket",), streams_only=True,
    schemes=(("https", "wss"), ("http", "ws")), url_env="CALLPROOF_WS_URL",
)
