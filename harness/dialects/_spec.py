"""`DialectSpec`: everything the core knows about one wire dialect, as data and pure-JSON hooks.

A row is data where the harness only picks a name, a path or a wording, and a hook (a function over a decoded
request or response body) where reading the body differs. Parts that live on a higher floor (the stream checkers
of `check`, the outcome readers of `outcome`, the mock's renderers) are bound to the row by its `name` in one
table per floor; docs/spec/dialects.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeAlias

__all__ = ["Body", "Dialect", "DialectSpec", "Entry", "ToolEntry", "ToolRead"]

#: A dialect's name, as the CLI takes it: the key of its row in `DIALECTS` (a new dialect adds its name here).
Dialect: TypeAlias = Literal["responses", "chat", "anthropic"]
#: A decoded request or response body, read defensively (the hooks check every shape they touch).
Body = Mapping[str, Any]


class ToolRead(NamedTuple):
    """One tool of a request body (at `position` in its `tools`) read into a common shape: its kind (`function`,
    `custom` or a built-in tool's type), its definition with a `parameters` schema (Anthropic's `input_schema` as
    `parameters`), its JSON path."""

    position: int
    kind: str
    tool: Mapping[str, Any]
    path: str


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """A call or a tool result a request body carries (the history of a tool loop), in the body's order."""

    kind: str  # "call" | "result"
    call_id: str
    path: str
    output: str | None = None
    is_error: bool = False


#: A conversational entry of a request body: (role, text) for a user or assistant message, ("call", id, name,
#: arguments), ("output", id, output) or ("reasoning", encrypted_content).
Entry = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class DialectSpec:
    """One row of the dialect table (`DIALECTS`): facts, then hooks (docs/spec/dialects.md).

    Names and places: `name` (the CLI's word, every table's key), `display` and `short` (how messages name it),
    `front_path` (where an API serves it under /v1), `route_suffix` (the path end the mock routes to it, under any
    prefix), `key_prefix` (the run's own credential looks like a key of the dialect), `schema_set` (the manifest
    of schemas/fronts/ its checker loads, and the catalogue front whose rules it has). Which transports
    carry it is the transport row's (`callproof.harness.transports`: `TransportSpec.dialects`).

    Requests: `messages_key` (the conversation list: `input` or `messages`; `bare_string_input`: it may be one
    string), `system_path` (where its system prompt sits, for a message), `schema_field` (a function tool's
    schema field), `default_tool_type` (a tool without a `type`), `nested_tools` (a tool's definition sits under
    its type's key), `stream_options` (what a streaming request adds so usage comes; None: usage comes unasked),
    `parallel_off` (the field that turns parallel calls off, and its value), `no_tools_means_none` (leaving the
    tools out says tool_choice none), `custom_tools` (it has custom tools), `custom_tools_carried` (a gateway
    carries a custom tool to it as one, whatever the policy), `builtin_tools` (built-in tool row -> its types of
    that tool), `format_named` (a structured output format has a name and `strict`), `always_strict` (its
    structured outputs are always strict), `strict_target` (whose strict normal form applies), `sealed_reasoning`
    (a request carries encrypted reasoning back), `stores_by_default` (True: stores unless `store: false`; False:
    only when asked; None: no `store`), `previous_response_id` (continues a stored response by id),
    `tool_result_errors` (a tool result says whether the tool failed: `is_error`), `tool_result_shape` and
    `assistant_turn_shape` (how a request carries a tool result, and an assistant text before calls; None: as
    items, nothing to judge).

    Answers: `event_type_key` (the stream event field naming its kind; `typed_events`: every event must carry
    it), `done_sentinel` (`data: [DONE]` ends a stream and a client stops reading there), `error_envelope_type`
    (an error body's top-level `type`; None: none), `error_shape` (its error body, for a message),
    `ratelimit_headers` (what its 429 adds), `usage_where` (where an answer reports usage),
    `carries_custom_calls` (an answer can carry a custom or shell call), `call_item_ids` (a
    call is an output item with an id of its own beside its call id), `terminal_restates_output` (its stream
    numbers events and its terminal event restates the output: a stream cut short rewrites it), `opaque_items`
    (items a same-dialect gateway passes through byte for byte), `reasoning` (what a reasoning part is called:
    the part, its text, its sealed field; None: an answer carries none), `refusal_where` (where an answer carries
    a refusal), `refusal_at_end` (it says refusal only as the stop reason, after the text streamed),
    `content_filter_ending` (the ending a refusal given as text takes at this front), `failed_end` (how it ends a
    failed response), `incomplete_at` and `incomplete_reasons` (where it says a response was cut short, streamed
    and in a body, and its word per Responses incomplete reason), `refusal_at` and `refusal_forms` (where and how
    it says the model refused, streamed and in a body), `filter_form` (how it says a content filter instead),
    `bad_arguments_rule` (the stream rule a relayed non-JSON argument text fails), `format_field` (where a request
    asks for structured output), `max_tokens_fields` (where it takes the output token limit), `tool_result_form`
    (what a tool result is, for a message).

    Hooks, pure functions over decoded bodies: `system_texts`, `tools` (every tool, read into one shape),
    `function_tools` (name -> description, schema, path, strict), `tool_entries` (calls and results in order),
    `entries` (the conversation in order), `assistant_turn` (the message carrying a call, and its text before the
    call), `tool_choice_ok` (whether the body's tool_choice means a Responses one), `custom_format` (a Responses
    custom tool format in the dialect's shape), `usage` (counts in its field names), `read_usage` (the usage an
    event carries, merged), `structured_format` (the json_schema format and its path), `speaks` (whether one event
    or body is positively written in the dialect: how a capture's dialect is detected).
    """

    name: Dialect
    display: str
    short: str
    front_path: str
    route_suffix: str
    key_prefix: str
    schema_set: str
    messages_key: str
    system_path: str
    schema_field: str
    event_type_key: str
    default_tool_type: str
    usage_where: str
    refusal_where: str
    content_filter_ending: str
    tool_result_shape: str
    strict_target: Literal["openai", "anthropic"]
    parallel_off: tuple[str, bool]
    system_texts: Callable[[Body], list[str]]
    tools: Callable[[Body], list[ToolRead]]
    function_tools: Callable[[Body], dict[str, tuple[Any, Any, str, Any]]]
    tool_entries: Callable[[Body], Iterator[ToolEntry]]
    entries: Callable[[Body], list[Entry]]
    tool_choice_ok: Callable[[Any, Body], tuple[bool, Any]]
    usage: Callable[[int, int, int], dict[str, int]]
    read_usage: Callable[[Body, dict[str, Any] | None], tuple[dict[str, Any] | None, str] | None]
    structured_format: Callable[[Body], tuple[Mapping[str, Any] | None, str]]
    speaks: Callable[[Mapping[str, Any]], bool]
    assistant_turn: Callable[[Body, str], tuple[int, str] | None] | None = None
    custom_format: Callable[[Mapping[str, Any]], Mapping[str, Any]] = lambda fmt: fmt
    bare_string_input: bool = False
    no_tools_means_none: bool = False
    typed_events: bool = True
    nested_tools: bool = False
    stream_options: Mapping[str, Any] | None = None
    done_sentinel: bool = False
    error_envelope_type: str | None = None
    error_shape: str = '{"error": {"message": ..., "type": ...}}'
    ratelimit_headers: tuple[tuple[str, str], ...] = ()
    custom_tools: bool = False
    custom_tools_carried: bool = False
    carries_custom_calls: bool = False
    builtin_tools: Mapping[str, frozenset[str]] = field(default_factory=dict)
    reasoning: tuple[str, str, str] | None = None
    sealed_reasoning: bool = False
    opaque_items: bool = False
    terminal_restates_output: bool = False
    call_item_ids: bool = False
    failed_end: str = ""
    incomplete_at: tuple[str, str] = ("", "")
    incomplete_reasons: Mapping[str, str] = field(default_factory=dict)
    refusal_at: tuple[str, str] = ("", "")
    refusal_forms: tuple[str, str] = ("", "")
    filter_form: str = ""
    bad_arguments_rule: str = ""
    format_field: str = ""
    max_tokens_fields: tuple[str, ...] = ()
    tool_result_form: str = ""
    stores_by_default: bool | None = None
    previous_response_id: bool = False
    refusal_at_end: bool = False
    format_named: bool = True
    always_strict: bool = False
    assistant_turn_shape: str | None = None
    tool_result_errors: bool = False
