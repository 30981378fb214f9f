"""The dialect renderers the mock serves: one module per dialect, behind the `Renderer` protocol of `_render`."""

from __future__ import annotations

from ._anthropic import AnthropicRenderer
from ._chat import ChatRenderer
from ._render import Dialect, Frame, RenderContext, Rendered, Renderer, openai_error_body, sse
from ._responses import ResponsesRenderer

__all__ = [
    "AnthropicRenderer",
    "ChatRenderer",
    "Dialect",
    "Frame",
    "RENDERERS",
    "RenderContext",
    "Rendered",
    "Renderer",
    "ResponsesRenderer",
    "openai_error_body",
    "sse",
]

#: The mock's renderers, one per row of the dialect table (tests/harness/dialects/test_tables.py binds them).
RENDERERS: dict[Dialect, Renderer] = {
    "responses": ResponsesRenderer(),
    "chat": ChatRenderer(),
    "anthropic": AnthropicRenderer(),
}
