"""The dialect renderers the mock serves, by dialect (see `_render.Renderer`)."""

from __future__ import annotations

import importlib

from ._anthropic import AnthropicRenderer
from ._chat import ChatRenderer
from ._render import Dialect, Renderer

__all__ = ["RENDERERS"]


def _optional(module: str, name: str) -> Renderer | None:
    """A renderer whose module may not exist yet (while the dialects are being written)."""
    try:
        renderer: Renderer = getattr(importlib.import_module(module, __package__), name)()
    except (ImportError, AttributeError):
        return None
    return renderer


def _renderers() -> dict[Dialect, Renderer]:
    found: dict[Dialect, Renderer] = {}
    responses = _optional("._responses", "ResponsesRenderer")
    if responses is not None:
        found["responses"] = responses
    found["chat"] = ChatRenderer()
    found["anthropic"] = AnthropicRenderer()
    return found


RENDERERS: dict[Dialect, Renderer] = _renderers()
