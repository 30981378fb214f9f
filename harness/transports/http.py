"""SSE over HTTP: a streamed answer is a `text/event-stream` body (or a JSON body when not streamed), its events
read from the real bytes, so the SSE framing rules (`event:` lines, `[DONE]`, blank lines) apply."""

from __future__ import annotations

from ._transport_spec import TransportSpec

__all__ = ["HTTP"]

HTTP = TransportSpec("http", "HTTP", "sse", "SSE over HTTP", sse_framing=True)
