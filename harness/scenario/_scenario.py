"""Scenarios: dialect-neutral scripted model turns, as values (see scenarios/README.md for the terminology);
`_loader` reads them from JSON files validated by schemas/scenario.schema.json."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from callproof.harness._errors import CallproofError
from callproof.harness._types import Dialect

from ._legs import Leg
from ._match import Match

if TYPE_CHECKING:
    from ._faults import FaultKind

__all__ = [
    "ChatEnding",
    "Chunked",
    "CodeInterpreterCall",
    "CustomToolCall",
    "Ending",
    "Expect",
    "Fault",
    "FunctionCall",
    "McpCall",
    "Output",
    "RawFrame",
    "Scenario",
    "ScenarioError",
    "ShellCall",
    "ShellCallOutput",
    "ShellOutput",
    "Step",
    "Timing",
    "Usage",
]

Ending = Literal["completed", "length", "content_filter", "failed"]


class ScenarioError(CallproofError):
    """A scenario file is malformed; the message names the file, the scenario, the JSON path and the fix."""


@dataclass(frozen=True, slots=True)
class Chunked:
    """A text, reasoning or refusal output: the whole string and the fragments it streams as.

    Reasoning may carry `summary` parts (each streamed as `summary_fragments[i]`) and an `encrypted_content`;
    text may carry `annotations` (each an annotation object as the SDK types it, e.g. url_citation)."""

    type: Literal["text", "reasoning", "refusal"]
    text: str
    fragments: tuple[str, ...]
    summary: tuple[str, ...] = ()
    summary_fragments: tuple[tuple[str, ...], ...] = ()
    encrypted_content: str | None = None
    annotations: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class CustomToolCall:
    """A call of a custom (freeform) tool: `input` is raw text, never JSON-wrapped."""

    name: str
    call_id: str | None
    input: str
    fragments: tuple[str, ...]
    type: Literal["custom_tool_call"] = "custom_tool_call"


@dataclass(frozen=True, slots=True)
class McpCall:
    """A remote MCP tool call the provider ran (Responses only): its arguments stream, its output arrives whole."""

    server_label: str
    name: str
    arguments: str
    output: str | None
    fragments: tuple[str, ...]
    type: Literal["mcp_call"] = "mcp_call"


@dataclass(frozen=True, slots=True)
class ShellCall:
    """A shell tool call (Responses only): its commands stream one after the other; `fragments` are the pieces
    of every command in order and `command_of[i]` the index of the command fragment i belongs to."""

    commands: tuple[str, ...]
    call_id: str | None
    fragments: tuple[str, ...]
    command_of: tuple[int, ...]
    type: Literal["shell_call"] = "shell_call"


@dataclass(frozen=True, slots=True)
class ShellOutput:
    """What one command of a hosted shell call printed, and its exit code."""

    stdout: str
    stderr: str
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class ShellCallOutput:
    """The output of a shell call the provider ran in a hosted environment (Responses only): one `ShellOutput` per
    command; `fragments` are the stdout then stderr pieces of every command in order, `piece_of[i]` says whose."""

    call_id: str
    outputs: tuple[ShellOutput, ...]
    fragments: tuple[str, ...]
    piece_of: tuple[tuple[int, Literal["stdout", "stderr"]], ...]
    type: Literal["shell_call_output"] = "shell_call_output"


@dataclass(frozen=True, slots=True)
class CodeInterpreterCall:
    """A code interpreter call (Responses only): its code streams."""

    code: str
    fragments: tuple[str, ...]
    container_id: str = "cntr_callproof"
    type: Literal["code_interpreter_call"] = "code_interpreter_call"


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A function call output and the quirks of how it streams."""

    name: str
    call_id: str | None
    arguments: str
    fragments: tuple[str, ...]
    name_fragments: tuple[str, ...]
    id_on: Literal["first", "every"] = "first"
    name_on_later: Literal["omit", "empty", "repeat"] = "omit"
    arguments_before_name: bool = False
    arguments_in_done_only: bool = False
    name_never_sent: bool = False
    type: Literal["function_call"] = "function_call"


Output = Chunked | FunctionCall | CustomToolCall | McpCall | ShellCall | ShellCallOutput | CodeInterpreterCall


@dataclass(frozen=True, slots=True)
class Step:
    """One fragment on the wire: fragment `fragment` of output item `output`."""

    output: int
    fragment: int


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Timing:
    """Scripted delays in milliseconds (see schemas/scenario.schema.json#/$defs/timing)."""

    first_byte_ms: float = 0.0
    ttft_ms: float = 0.0
    gap_ms: float = 0.0
    tokens_per_s: float | None = None
    jitter_ms: float = 0.0
    delays_ms: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault; `params` holds its kind-specific fields as written in the scenario (harness/scenario/_faults.py
    declares each kind's)."""

    kind: FaultKind
    probability: float = 1.0
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RawFrame:
    """One verbatim write of a raw scenario."""

    data: bytes
    delay_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class Expect:
    """What a correct implementation yields (docs/spec/contracts.md §7.7)."""

    status: Literal["completed", "incomplete", "failed", "error"]
    text: str | None = None
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    http_status: int | None = None
    retry_after: float | None = None
    #: A failed response is correct too (a call's arguments are not JSON: pass them through unchanged, or fail).
    may_fail: bool = False
    #: Gateway mode: a 4xx rejection in the front's error shape naming the offending built-in tool types, sent
    #: without calling the upstream, is correct too (GW-REQ-008, docs/spec/contracts.md §7.12).
    may_reject: bool = False
    #: The refusal a correct client holds (as a refusal, not as answer text: EXP-005).
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class ChatEnding:
    """How a Chat stream ends, and how it keys its tool calls, where OpenAI-compatible servers differ from OpenAI:
    `finish_reason` of a completed turn (None: tool_calls with calls, else stop); where usage goes (None: a trailing
    chunk when the request asks stream_options.include_usage; `finish_chunk` / `trailing_chunk`: there, whatever
    the request says); `done_after_error`: a failed ending's error object is followed by `data: [DONE]` (as vLLM
    ends a failed stream); `tool_call_index` "omitted": no tool-call delta carries `index`, every delta of a call
    carries its id instead (as Gemini's OpenAI-compatible endpoint streams parallel calls)."""

    finish_reason: Literal["stop", "tool_calls"] | None = None
    usage: Literal["finish_chunk", "trailing_chunk"] | None = None
    done_after_error: bool = False
    tool_call_index: Literal["sent", "omitted"] = "sent"


@dataclass(frozen=True, slots=True)
class Scenario:
    """One scripted model turn, the request the harness sends and the expected result."""

    id: str
    feature: str
    description: str
    output: tuple[Output, ...]
    steps: tuple[Step, ...]
    request: Mapping[str, Any]
    expect: Expect
    tags: tuple[str, ...] = ()
    spec: str | None = None
    usage: Usage = Usage()
    ending: Ending = "completed"
    error: Mapping[str, str] | None = None
    timing: Timing = Timing()
    faults: tuple[Fault, ...] = ()
    raw: Mapping[Dialect, tuple[RawFrame, ...]] = field(default_factory=dict)
    breaks: Mapping[Dialect, tuple[str, ...]] = field(default_factory=dict)
    match: Match | None = None
    raw_body: Mapping[Dialect, Mapping[str, Any]] = field(default_factory=dict)
    #: A sequence's legs, played on successive requests of a case; the fields above are then its last leg's.
    legs: tuple[Leg, ...] = ()
    #: The dialects whose runs play the scenario (empty: all three); the mock renders it in every dialect.
    dialects: tuple[Dialect, ...] = ()
    chat: ChatEnding = ChatEnding()

    def plays_in(self, dialect: str) -> bool:
        """Whether a run served in `dialect` plays the scenario (its `dialects`, default all)."""
        return not self.dialects or dialect in self.dialects

    @property
    def calls(self) -> tuple[FunctionCall, ...]:
        return tuple(o for o in self.output if isinstance(o, FunctionCall))

    @property
    def custom_calls(self) -> tuple[CustomToolCall, ...]:
        return tuple(o for o in self.output if isinstance(o, CustomToolCall))
