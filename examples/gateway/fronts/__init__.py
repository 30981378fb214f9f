"""The front dialects: each parses its requests into the neutral model and renders neutral events as its
stream, its body and its errors."""

from .anthropic import AnthropicFront
from .base import Front, RequestShapeError
from .chat import ChatFront
from .responses import ResponsesFront

__all__ = ["AnthropicFront", "ChatFront", "Front", "RequestShapeError", "ResponsesFront"]
