"""The upstream dialects: each renders a neutral request as its body and reads its answer as neutral events."""

from .anthropic import AnthropicUpstream
from .base import Upstream
from .chat import ChatUpstream
from .responses import ResponsesUpstream
from .websocket import WebSocketUpstream

__all__ = ["AnthropicUpstream", "ChatUpstream", "ResponsesUpstream", "Upstream", "WebSocketUpstream"]
