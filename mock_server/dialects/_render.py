"""What every dialect renderer shares: the render context (deterministic ids and clock), the rendered stream,
and the `Renderer` protocol that `_responses`, `_chat` and `_anthropic` implement."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from callproof.harness import Dialect
from callproof.harness.scenario import Scenario

__all__ = [
    "Dialect", "Frame", "RenderContext", "Rendered", "Renderer", "openai_error_body", "openai_tool_name_error", "sse",
]



@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE event as written to the wire (a complete block ending in a blank line).

    `content` marks frames that carry model output (a text, reasoning or argument delta): time-to-first-token
    and tokens-per-second pacing apply to them; `tokens` is their approximate size (4 characters a token).
    `ending` marks the frames that end a normal stream where that takes more than the last frame (Chat: the finish
    chunk, the usage chunk and `[DONE]`): a `truncate` fault cuts them all."""

    data: bytes
    content: bool = False
    tokens: float = 0.0
    ending: bool = False


@dataclass(frozen=True, slots=True)
class Rendered:
    """A scenario rendered as a stream in one dialect."""

    dialect: Dialect
    frames: tuple[Frame, ...]

    @property
    def body(self) -> bytes:
        return b"".join(f.data for f in self.frames)


@dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything a renderer takes from outside the scenario; equal contexts render byte-identical output.

    `seed` (with the scenario id) derives every id the renderer invents; `created` is the unix time put in
    created/created_at fields; `model` is echoed back as the model name; `request` is the decoded upstream
    request (renderers may echo tools, tool_choice, instructions from it)."""

    seed: str = "callproof"
    created: int = 1_767_225_600
    model: str = "callproof-mock"
    request: dict[str, Any] = field(default_factory=dict)

    def ident(self, scenario: Scenario, kind: str, index: int = 0, length: int = 24) -> str:
        """A deterministic id fragment: hex of sha256(seed, scenario, kind, index)."""
        digest = hashlib.sha256(f"{self.seed}\0{scenario.id}\0{kind}\0{index}".encode()).hexdigest()
        return digest[:length]


class Renderer(Protocol):
    """Renders scenarios in one dialect: as an SSE stream, as a non-stream body, and error bodies."""

    dialect: Dialect

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        """Every frame of the stream, in order, ending as the scenario's `ending` says."""
        ...

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        """The non-stream JSON response for the same turn."""
        ...

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The provider-shaped HTTP error body for `status`."""
        ...

    def tool_name_error(self, index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
        """The real upstream's 400 for tool `index` whose name (at `field`) is `missing`, `empty` or of another
        type: its message, and the fields it adds to the error object."""
        ...


def sse(payload: dict[str, Any], event: str | None = None) -> bytes:
    """One SSE block: optional `event:` line, one compact `data:` line, blank line."""
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {data}\n\n".encode()


#: HTTP status -> (error type, error code) as the OpenAI API answers them (Responses and Chat Completions alike).
_OPENAI_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    408: ("server_error", "timeout"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    502: ("server_error", None),
    503: ("server_error", None),
}


def openai_tool_name_error(index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
    """OpenAI's 400 for a tool without a usable name (Responses and Chat Completions alike): its message, and its
    `param` (the field's path) and `code`."""
    param = f"tools[{index}].{field}"
    if problem == "missing":
        return f"Missing required parameter: '{param}'.", {"param": param, "code": "missing_required_parameter"}
    if problem == "empty":
        return (f"Invalid '{param}': empty string. Expected a string with minimum length 1, but got an empty string "
                "instead.", {"param": param, "code": "empty_string"})
    return f"Invalid type for '{param}': expected a string.", {"param": param, "code": "invalid_type"}


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's HTTP error body {"error": {message, type, param, code}} for `status`."""
    kind, code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
