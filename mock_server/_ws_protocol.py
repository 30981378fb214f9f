"""The mock's WebSocket server protocol: uvicorn's `websockets` sans-I/O protocol, plus the ASGI extension
`callproof.websocket.send_many`: a `websocket.send` message with `utf8` (a list of UTF-8 texts) sends them as that many
text messages in one write to the socket, as the HTTP player sends the frames due at the same instant in one write
(framed here, as `websockets` frames them, unless an extension such as permessage-deflate was negotiated). The
mock's WebSocket mode uses it when the scope offers it (served by `MockServer`), and sends message by message
elsewhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.protocol import State

__all__ = ["SEND_MANY", "BatchingWebSocketProtocol"]

#: The scope extension naming the batched send.
SEND_MANY = "callproof.websocket.send_many"


def _text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented server text frame (RFC 6455 §5.2), as `websockets` frames it without extensions."""
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 65536:
        return b"\x81\x7e" + size.to_bytes(2, "big") + payload
    return b"\x81\x7f" + size.to_bytes(8, "big") + payload


class BatchingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with `callproof.websocket.send_many`."""

    async def run_asgi(self) -> None:
        extensions = cast(dict[str, Any], self.scope.setdefault("extensions", {}))
        extensions[SEND_MANY] = {}
        await super().run_asgi()

    async def send(self, message: Mapping[str, Any]) -> None:  # an ASGI send event, or the batch's own (`utf8`)
        texts = message.get("utf8") if message.get("type") == "websocket.send" else None
        if texts is None or not self.handshake_complete or self.close_sent or self.initial_response is not None:
            await super().send(cast(Any, message))
            return
        await self.writable.wait()
        if self.disconnected:
            raise ClientDisconnected()
        if self.conn.state is not State.OPEN:
            raise ClientDisconnected()
        if self.conn.extensions:  # a negotiated extension (permessage-deflate) transforms frames: the library frames
            try:
                for text in texts:
                    self.conn.send_text(text)
            except InvalidState:
                raise ClientDisconnected() from None
            self.transport.write(b"".join(self.conn.data_to_send()))
            return
        self.transport.write(b"".join(_text_frame(text) for text in texts))
