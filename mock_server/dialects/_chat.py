"""The Chat Completions renderer (dialect "chat"): a scenario as OpenAI streams `chat.completion.chunk`s
(docs/spec/chat.md §3; mirrors examples/captures/chat/openai/ok/*.sse), as a `chat.completion` body, and as
OpenAI's HTTP error body."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from callproof.harness.scenario import Chunked, FunctionCall, Scenario, Usage

from ._render import Dialect, Frame, RenderContext, Rendered, openai_error_body, openai_tool_name_error, sse

__all__ = ["ChatRenderer"]

_DONE = b"data: [DONE]\n\n"
_DEFAULT_ERROR = {"code": "server_error", "message": "The server had an error while processing your request."}
_FINISH = {"length": "length", "content_filter": "content_filter"}


@dataclass(frozen=True, slots=True)
class _Start:
    """Output item `output` starts here (right before its first fragment)."""

    output: int


@dataclass(frozen=True, slots=True)
class _Fragment:
    """Fragment `fragment` of output item `output` goes on the wire here."""

    output: int
    fragment: int


def _timeline(scenario: Scenario) -> Iterator[_Start | _Fragment]:
    """The scenario's steps with each item's start placed right before its first fragment; items with no
    fragments start in output order (before the first later item starts, or at the end)."""
    started: set[int] = set()

    def start(index: int) -> Iterator[_Start]:
        for earlier in range(index):
            if earlier not in started and not scenario.output[earlier].fragments:
                started.add(earlier)
                yield _Start(earlier)
        started.add(index)
        yield _Start(index)

    for step in scenario.steps:
        if step.output not in started:
            yield from start(step.output)
        yield _Fragment(step.output, step.fragment)
    for index in range(len(scenario.output)):
        if index not in started:
            started.add(index)
            yield _Start(index)


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }


def _stream_option(ctx: RenderContext, key: str) -> object:
    options = ctx.request.get("stream_options")
    return options.get(key) if isinstance(options, dict) else None


def _error_object(scenario: Scenario) -> dict[str, Any]:
    error = dict(scenario.error or _DEFAULT_ERROR)
    return {"message": error.get("message", _DEFAULT_ERROR["message"]), "type": error.get("type", "server_error"),
            "param": None, "code": error.get("code")}


class _Chunks:
    """Builds the chunks of one stream: the envelope every chunk shares and the role on the first delta."""

    def __init__(self, scenario: Scenario, ctx: RenderContext) -> None:
        self.scenario = scenario
        self.ctx = ctx
        self.id = "chatcmpl-" + ctx.ident(scenario, "chatcmpl", 0, 29)
        self.fingerprint = "fp_" + ctx.ident(scenario, "system_fingerprint", 0, 10)
        self.include_usage = _stream_option(ctx, "include_usage") is True
        self.obfuscate = _stream_option(ctx, "include_obfuscation") is not False
        self.role_sent = False
        self.frames: list[Frame] = []

    def chunk(self, choices: list[dict[str, Any]], usage: dict[str, Any] | None = None, *,
              content: str | None = None, ending: bool = False) -> None:
        payload: dict[str, Any] = {
            "id": self.id, "object": "chat.completion.chunk", "created": self.ctx.created, "model": self.ctx.model,
            "service_tier": "default", "system_fingerprint": self.fingerprint, "choices": choices,
        }
        if self.include_usage or usage is not None:
            payload["usage"] = usage
        if self.obfuscate:
            # OpenAI pads every chunk with a random-length string (stream_options.include_obfuscation, on by
            # default); here its length and value derive from the chunk's position, so renders stay identical.
            n = len(self.frames)
            size = 2 + int(self.ctx.ident(self.scenario, "obfuscation", n, 2), 16) % 10
            payload["obfuscation"] = self.ctx.ident(self.scenario, "obfuscation", n, size)
        frame = sse(payload)
        if content is None:
            self.frames.append(Frame(frame, ending=ending))
        else:
            self.frames.append(Frame(frame, content=True, tokens=len(content) / 4))

    def delta(self, delta: dict[str, Any], *, content: str | None = None) -> None:
        self.chunk([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}], content=content)

    def first(self, delta: dict[str, Any], text: str | None) -> dict[str, Any]:
        """`delta` with the assistant role, as the message's first delta carries it."""
        if self.role_sent:
            return delta
        self.role_sent = True
        return {"role": "assistant", "content": text, **delta, "refusal": None}


class ChatRenderer:
    """Renders scenarios as OpenAI Chat Completions.

    Stream: `data:` lines only (no `event:`), every chunk {id (chatcmpl-..., the same on all), object, created,
    model, service_tier, system_fingerprint, choices: [{index: 0, delta, logprobs: null, finish_reason}],
    obfuscation}; `usage: null` on every chunk and a final usage chunk with `choices: []` only when the request
    has stream_options.include_usage true; `obfuscation` unless stream_options.include_obfuscation is false;
    then `data: [DONE]`.

    The first delta carries {role: "assistant", content, refusal: null}: alone with content "" when the message
    starts with text (or has no output), merged into the first tool-call delta with content null when it starts
    with a call, as OpenAI sends it. Text fragments are `delta.content`. A tool call's first delta is
    {index, id, type: "function", function: {name, arguments: ""}}, each argument fragment {index, function:
    {arguments}}; calls take index 0, 1, 2 in the order they first appear on the wire, and fragments interleave
    as scenario.steps says. A call with arguments "" sends only its first delta.

    Quirks (FunctionCall fields), rendered faithfully; the scenario declares the rules they break:
    - name_chunk: the first delta carries the first name fragment, each further fragment follows in its own
      delta {index, function: {name: fragment}} before any argument fragment;
    - id_on "every": id and type are repeated on every delta of the call;
    - name_on_later "empty" / "repeat": every argument delta after the first carries function.name "" / the
      full name;
    - arguments_before_name: the first delta carries id, type and the first argument fragment but no name; the
      name (or its fragments) follows in the next delta(s);
    - call_id None: no `id` on any delta;
    - name_never_sent: no delta carries function.name (nor does the body's tool call).

    Scenario `chat` (OpenAI-compatible servers that end differently): finish_reason "stop" (or "tool_calls")
    for a completed turn whatever the output; usage "finish_chunk" (usage on the finish chunk, no trailing
    chunk) or "trailing_chunk" (a trailing chunk with choices: []), whatever stream_options.include_usage says;
    done_after_error: `data: [DONE]` after a failed ending's error object (vLLM); tool_call_index "omitted": no
    tool-call delta carries `index`, and every delta of a call carries its `id` and `type` (the only key left to
    merge it by; Gemini's OpenAI-compatible endpoint), which breaks CHAT-SCHEMA-001.

    Endings: completed -> finish_reason "tool_calls" when the output has calls, else "stop"; length -> "length";
    content_filter -> "content_filter" (on a final chunk with delta {}); failed -> an in-stream
    `data: {"error": {message, type, param, code}}` object as the last frame, with no finish_reason, usage chunk
    or [DONE] after it (with `chat.done_after_error`, `data: [DONE]` follows it; both frames are then `ending`,
    and the player cuts a stream_error fault's stream before them). CHAT-FRAME-001 accepts either end
    (docs/spec/verdicts.md §11).

    Refusal output: its fragments are `delta.refusal` (the body's message.refusal holds the refusals joined).
    Custom tool, MCP, shell and code interpreter calls: no chunk type carries them (the SDK's ChoiceDeltaToolCall
    is a function call), so they are not rendered; scenarios with them play in the responses dialect only.

    Reasoning output: Chat Completions has no standard reasoning field in its deltas or message (providers
    that stream reasoning use non-standard keys such as reasoning_content), so reasoning items are not rendered;
    their tokens still count in usage.completion_tokens_details.reasoning_tokens.

    Body: a chat.completion with message.content (the text items joined, null when there is none),
    message.tool_calls in index order (a call without call_id has no id), finish_reason and usage; a failed
    ending answers the error body instead.
    """

    dialect: Dialect = "chat"

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        out = _Chunks(scenario, ctx)
        indexes: dict[int, int | None] = {}  # output index -> tool-call index (None: indexes omitted)
        omitted = scenario.chat.tool_call_index == "omitted"
        for event in _timeline(scenario):
            item = scenario.output[event.output]
            if isinstance(item, Chunked):
                if item.type == "reasoning":
                    continue
                if isinstance(event, _Start):
                    if not out.role_sent:
                        out.delta(out.first({}, ""))
                    continue
                text = item.fragments[event.fragment]
                out.delta({"refusal" if item.type == "refusal" else "content": text}, content=text)
            elif not isinstance(item, FunctionCall):
                continue  # no Chat chunk carries a custom, MCP, shell or code interpreter call
            elif isinstance(event, _Start):
                indexes[event.output] = None if omitted else len(indexes)
                if item.arguments_before_name and item.fragments:
                    continue  # the first argument fragment opens the call
                self._open(out, item, indexes[event.output], "" if item.arguments_before_name else None)
            elif item.arguments_before_name and event.fragment == 0:
                self._open(out, item, indexes[event.output], item.fragments[0])
            else:
                fragment = item.fragments[event.fragment]
                call = self._later(item, indexes[event.output])
                function: dict[str, Any] = {"arguments": fragment}
                if item.name_on_later == "empty":
                    function = {"name": "", **function}
                elif item.name_on_later == "repeat":
                    function = {"name": item.name, **function}
                out.delta({"tool_calls": [{**call, "function": function}]}, content=fragment)
        if not out.role_sent:
            out.delta(out.first({}, ""))
        if scenario.ending == "failed":
            done = scenario.chat.done_after_error
            out.frames.append(Frame(sse({"error": _error_object(scenario)}), ending=done))
            if done:
                out.frames.append(Frame(_DONE, ending=True))
            return Rendered(self.dialect, tuple(out.frames))
        placed = scenario.chat.usage
        on_finish = _usage(scenario.usage) if placed == "finish_chunk" else None
        out.chunk([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": self._finish(scenario)}], on_finish,
                  ending=True)
        if placed == "trailing_chunk" or (placed is None and out.include_usage):
            out.chunk([], _usage(scenario.usage), ending=True)
        out.frames.append(Frame(_DONE, ending=True))
        return Rendered(self.dialect, tuple(out.frames))

    @staticmethod
    def _later(call: FunctionCall, index: int | None) -> dict[str, Any]:
        """The identifying keys of a delta after the call's first (`index` None: the scenario omits indexes, and
        the call's id is its only key)."""
        keys: dict[str, Any] = {} if index is None else {"index": index}
        if (call.id_on == "every" or index is None) and call.call_id is not None:
            return {**keys, "id": call.call_id, "type": "function"}
        return keys

    def _open(self, out: _Chunks, call: FunctionCall, index: int | None, first_arguments: str | None) -> None:
        """The call's first delta, then the deltas that finish its name (name_chunk, arguments_before_name)."""
        names = list(call.name_fragments or (call.name,))
        head: dict[str, Any] = {} if index is None else {"index": index}
        if call.call_id is not None:
            head["id"] = call.call_id
        head["type"] = "function"
        if call.name_never_sent:
            names = []
            function = {"arguments": first_arguments or ""}
        elif first_arguments is None:
            function = {"name": names.pop(0), "arguments": ""}
        else:
            function = {"arguments": first_arguments}
        out.delta(out.first({"tool_calls": [{**head, "function": function}]}, None), content=first_arguments or None)
        for name in names:
            out.delta({"tool_calls": [{**self._later(call, index), "function": {"name": name}}]})

    @staticmethod
    def _finish(scenario: Scenario) -> str:
        if scenario.ending in _FINISH:
            return _FINISH[scenario.ending]
        if scenario.chat.finish_reason is not None:
            return scenario.chat.finish_reason
        return "tool_calls" if scenario.calls else "stop"

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        if scenario.ending == "failed":
            return {"error": _error_object(scenario)}
        texts = [o.text for o in scenario.output if isinstance(o, Chunked) and o.type == "text"]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
        order = [e.output for e in _timeline(scenario) if isinstance(e, _Start)]
        calls = [c for c in (scenario.output[i] for i in order) if isinstance(c, FunctionCall)]
        if calls:
            message["tool_calls"] = [
                {**({"id": c.call_id} if c.call_id is not None else {}), "type": "function",
                 "function": {**({} if c.name_never_sent else {"name": c.name}), "arguments": c.arguments}}
                for c in calls
            ]
        refusals = [o.text for o in scenario.output if isinstance(o, Chunked) and o.type == "refusal"]
        message["refusal"] = "".join(refusals) if refusals else None
        message["annotations"] = []
        return {
            "id": "chatcmpl-" + ctx.ident(scenario, "chatcmpl", 0, 29),
            "object": "chat.completion",
            "created": ctx.created,
            "model": ctx.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": self._finish(scenario)}],
            "usage": _usage(scenario.usage),
            "service_tier": "default",
            "system_fingerprint": "fp_" + ctx.ident(scenario, "system_fingerprint", 0, 10),
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error shape: {"error": {message, type, param, code}} with the type and code OpenAI uses for
        `status` (429: type "requests", code "rate_limit_exceeded"; 401: "invalid_api_key"; 5xx: server_error)."""
        return openai_error_body(status, message)

    def tool_name_error(self, index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
        return openai_tool_name_error(index, field, problem)


