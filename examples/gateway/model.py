"""The neutral model every front and upstream translates to and from: one `Request`, a stream of `Event`s, and
the three ways an upstream fails (`UpstreamHTTPError` before streaming, `UpstreamError` and `UpstreamCut` after).

A front parses its request body into a `Request` and renders `Event`s as its own stream; an upstream renders a
`Request` as its body and reads its answer back as `Event`s. Neither side knows the other's dialect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Annotation", "ArgumentsDelta", "Call", "CallDone", "CallKind", "CallStart", "Event", "Finish", "FinishReason",
    "Json", "Message", "Opaque", "OpaqueEvent", "OutputFormat", "Part", "Reasoning", "ReasoningDelta", "ReasoningDone",
    "ReasoningStart", "RefusalDelta", "Request", "Result", "TextDelta", "Tool", "ToolChoice", "Untranslatable",
    "Usage", "UsageUpdate", "UpstreamCut", "UpstreamError", "UpstreamHTTPError",
]

Json = dict[str, Any]
#: A function call (JSON arguments) or a custom (freeform) tool call (raw input text).
CallKind = Literal["function", "custom"]

# -- the request ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """User or assistant text."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class Call:
    """An earlier call of the assistant: `arguments` is its JSON text (a function call) or its raw input (a custom
    tool call, `kind` "custom")."""

    id: str
    name: str
    arguments: str
    kind: CallKind = "function"


@dataclass(frozen=True)
class Result:
    """The output of an earlier call, for the call `call_id`; `is_error`: the tool failed (an Anthropic front's
    `is_error`, kept where the upstream can say it: an Anthropic upstream)."""

    call_id: str
    output: str
    is_error: bool = False
    kind: CallKind = "function"  # "custom": a Responses custom_tool_call_output


@dataclass(frozen=True, eq=False)
class Reasoning:
    """An earlier reasoning item carried back by a client, as it sent it: a Responses reasoning item
    (`encrypted_content`: only the issuing provider can read it) or an Anthropic thinking / redacted_thinking block
    (its signature: the same), `issuer` the dialect that made it. Passed on unchanged to an upstream of that dialect
    and left out for the others, which cannot read it (docs/spec/stateful.md §3)."""

    item: Json
    issuer: str = "responses"


@dataclass(frozen=True, eq=False)
class Opaque:
    """An earlier input item of a type the model does not translate (an MCP call, a shell call and its output, a
    code interpreter call ...), as a Responses client sent it: passed on unchanged to a Responses upstream, left out
    for the others, which have no such item."""

    item: Json


Part = Message | Call | Result | Reasoning | Opaque


@dataclass(frozen=True)
class Tool:
    """A function tool (`parameters` its JSON schema, `strict` as the client set it) or, `kind` "custom", a custom
    (freeform) tool whose call input is raw text in `format` (text or a grammar; None: unconstrained)."""

    name: str
    description: str | None = None
    parameters: Json | None = None
    strict: bool | None = None
    kind: CallKind = "function"
    format: Json | None = None


@dataclass(frozen=True)
class OutputFormat:
    """Structured output: `type` json_schema (`schema`, and `name`, `strict`, `description` where the front has
    them) or json_object (any JSON object)."""

    type: Literal["json_schema", "json_object"]
    schema: Json | None = None
    name: str | None = None
    strict: bool | None = None
    description: str | None = None


@dataclass(frozen=True)
class ToolChoice:
    """`mode` auto | none | required; `name` set when one function is required by name (mode "required")."""

    mode: Literal["auto", "none", "required"]
    name: str | None = None


@dataclass
class Request:
    """What the client asked for, in no dialect. `system` holds the system prompt parts (instructions, system and
    developer messages) in order; `history` the conversation."""

    model: str | None = None
    system: list[str] = field(default_factory=list)
    history: list[Part] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)
    #: Responses built-in tools (web_search, file_search, custom) as the Responses front got them: only a Responses
    #: upstream takes them; the others drop them (docs/spec/contracts.md §7.12).
    builtin_tools: list[Json] = field(default_factory=list)
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    max_tokens: int | None = None
    stream: bool = False
    include_usage: bool = False  # Chat front: stream_options.include_usage
    front: Json = field(default_factory=dict)  # the front body as it came (the Responses front echoes fields)
    #: Responses `store` and `include` (docs/spec/stateful.md §3, §4): passed on to a Responses upstream.
    store: bool | None = None
    include: list[str] = field(default_factory=list)
    #: Structured output the client asked for (Responses text.format, Chat response_format, Anthropic
    #: output_config.format); None: free text.
    output_format: OutputFormat | None = None


# -- the answer -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class CallStart:
    """A call starts, its name whole; `key` names it in later events, `id` is the upstream's id (None: none).
    `kind` custom: a custom tool call, whose `ArgumentsDelta`s are its raw input (never JSON-checked)."""

    key: int
    id: str | None
    name: str
    kind: CallKind = "function"


@dataclass(frozen=True)
class ArgumentsDelta:
    key: int
    fragment: str


@dataclass(frozen=True)
class CallDone:
    """The upstream says call `key` is complete (upstreams that cannot tell leave calls open until `Finish`)."""

    key: int


@dataclass(frozen=True)
class RefusalDelta:
    """A fragment of the model's refusal (Responses refusal part, Chat delta.refusal): not answer text."""

    text: str


@dataclass(frozen=True)
class Annotation:
    """An annotation of the text so far (a Responses output_text annotation, as the upstream sent it)."""

    annotation: Json


@dataclass(frozen=True)
class ReasoningStart:
    """A reasoning item (Responses) or thinking block (Anthropic) starts; `key` names it, `issuer` is the
    upstream's dialect."""

    key: int
    issuer: str = ""
    id: str | None = None  # the upstream's item id (a Responses reasoning item's, which a continuation sends back)


@dataclass(frozen=True)
class ReasoningDelta:
    """Reasoning fragment: of summary part `summary_index` (Responses summary, Anthropic thinking: part 0), or of
    the reasoning text (`summary_index` None: Responses reasoning_text)."""

    key: int
    fragment: str
    summary_index: int | None = 0


@dataclass(frozen=True)
class ReasoningDone:
    """The reasoning ends; `sealed` is its opaque proof (Responses encrypted_content, Anthropic signature), only
    meaningful to the `issuer` dialect: a front of another dialect leaves it out."""

    key: int
    sealed: str | None = None
    issuer: str = ""


@dataclass(frozen=True)
class OpaqueEvent:
    """A Responses event of an item the model does not translate (mcp_call, shell_call, code_interpreter_call and
    other built-in tool items), as the upstream sent it: a Responses front carries it on (its own output_index and
    sequence_number), the others drop it or fail (`client_run`: a call the client must run, which it cannot)."""

    key: int
    event: Json
    item_type: str
    client_run: bool = False


FinishReason = Literal["stop", "length", "content_filter"]


@dataclass(frozen=True)
class Finish:
    """The upstream ended properly: "stop" (including after tool calls), or cut by "length" / "content_filter".
    `refusal`: the model refused (an Anthropic stop_reason "refusal" with its stop_details, which say so only at
    the end, after the text streamed), the stop_details as the upstream sent them."""

    reason: FinishReason
    refusal: Json | None = None


@dataclass(frozen=True)
class UsageUpdate:
    """The usage so far (cumulative: the latest replaces the earlier)."""

    usage: Usage


Event = (TextDelta | CallStart | ArgumentsDelta | CallDone | Finish | UsageUpdate | RefusalDelta | Annotation
         | ReasoningStart | ReasoningDelta | ReasoningDone | OpaqueEvent)


# -- failures ---------------------------------------------------------------------------------------------------


class Untranslatable(ValueError):
    """A request the gateway cannot carry to its upstream (a custom tool toward an upstream without them, a
    structured output it has no equivalent for): refused with HTTP 400 in the front's error shape, before any
    upstream request; the message names what and why."""


class UpstreamError(Exception):
    """The upstream failed after answering 200 (an error object, unusable data): the answer fails."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class UpstreamCut(UpstreamError):
    """The upstream stream ended before its end (the connection dropped, or no end marker)."""

    def __init__(self, message: str) -> None:
        super().__init__("upstream_disconnected", message)


@dataclass
class UpstreamHTTPError:
    """An upstream HTTP error status (or no answer at all: 502/504), to answer with the same status at the front.
    `type` and `code` are OpenAI-style; `headers` the ones a client needs to retry (Retry-After)."""

    status: int
    message: str
    type: str
    code: Any = None
    param: Any = None
    headers: dict[str, str] = field(default_factory=dict)
