"""The front dialects: each parses its requests into the neutral model and renders neutral events as its
stream, its body and its errors."""

from .anthropic import AnthropicFront
from .base import Front, RequestShapeError
from .chat import ChatFront
from .responses import ResponsesFront
from .websocket import Connection, WebSocketFront

__all__ = [
    "AnthropicFront", "ChatFront", "Connection", "Front", "RequestShapeError", "ResponsesFront", "WebSocketFront",
]
