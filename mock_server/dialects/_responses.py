"""The Responses renderer (dialect "responses"): a scenario as the OpenAI Responses API streams it
(docs/spec/responses.md §2; mirrors examples/captures/responses/openai/ok/*.sse), as the non-stream Response body, and
as OpenAI's HTTP error body. The order of events is planned in `_responses_plan`, the Response object built in
`_responses_object`."""

from __future__ import annotations

from typing import Any

from callproof.harness.scenario import Chunked, FunctionCall, Scenario

from ._render import Dialect, Frame, RenderContext, Rendered, openai_error_body, openai_tool_name_error, sse
from ._responses_item_events import add_item, close_item, fragment_item
from ._responses_object import echo_request, response_object
from ._responses_plan import plan_events

__all__ = ["ResponsesRenderer"]

_TERMINAL = {"completed": "response.completed", "length": "response.incomplete",
             "content_filter": "response.incomplete", "failed": "response.failed"}
_STATUS = {"completed": "completed", "length": "incomplete", "content_filter": "incomplete", "failed": "failed"}
_ITEM_PREFIX = {"text": "msg", "refusal": "msg", "reasoning": "rs", "function_call": "fc", "custom_tool_call": "ctc",
                "mcp_call": "mcp", "shell_call": "sh", "shell_call_output": "sho",
                "code_interpreter_call": "ci"}
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class _Stream:
    """Builds one rendering: numbered frames and the done items, in the plan's order."""

    def __init__(self, scenario: Scenario, ctx: RenderContext) -> None:
        self.scenario = scenario
        self.ctx = ctx
        self.echo = echo_request(ctx.request)
        self.response_id = "resp_" + ctx.ident(scenario, "resp", 0, 48)
        options = ctx.request.get("stream_options")
        self.obfuscate = not (isinstance(options, dict) and options.get("include_obfuscation") is False)
        include = ctx.request.get("include")
        self.encrypted = isinstance(include, list) and "reasoning.encrypted_content" in include
        self.frames: list[Frame] = []
        self.done: dict[int, dict[str, Any]] = {}

    # ids and pieces
    def item_id(self, index: int) -> str:
        prefix = _ITEM_PREFIX[self.scenario.output[index].type]
        return f"{prefix}_" + self.ctx.ident(self.scenario, prefix, index, 48)

    def encrypted_content(self, index: int) -> str:
        return "gAAAAA" + self.ctx.ident(self.scenario, "encrypted_content", index, 64)

    def obfuscation(self) -> str:
        """OpenAI pads each delta with a random-length string (stream_options.include_obfuscation, on by
        default); here its length and value derive from the event's position, so renders stay identical."""
        digest = self.ctx.ident(self.scenario, "obfuscation", len(self.frames), 64)
        size = 2 + int(digest[:2], 16) % 14
        return "".join(_B62[int(digest[2 + 2 * i : 4 + 2 * i], 16) % 62] for i in range(size))

    def emit(self, type_: str, fields: dict[str, Any], *, content: str | None = None, delta: bool = False) -> None:
        payload: dict[str, Any] = {"type": type_, "sequence_number": len(self.frames), **fields}
        if delta and self.obfuscate:
            payload["obfuscation"] = self.obfuscation()
        data = sse(payload, event=type_)
        if content:
            self.frames.append(Frame(data, content=True, tokens=len(content) / 4))
        else:
            self.frames.append(Frame(data))

    def response(self, status: str) -> dict[str, Any]:
        """The Response object in `status` (in_progress while streaming, then the ending's status)."""
        return response_object(self.scenario, self.ctx, self.echo, self.response_id, status, self.done)

    # the items
    def add(self, index: int) -> None:
        item = self.scenario.output[index]
        item_id = self.item_id(index)
        if isinstance(item, FunctionCall):
            added: dict[str, Any] = {"id": item_id, "type": "function_call", "status": "in_progress",
                                     "arguments": ""}
            if item.call_id is not None:
                added["call_id"] = item.call_id
            added["name"] = item.name
            self.emit("response.output_item.added", {"output_index": index, "item": added})
        elif isinstance(item, Chunked) and item.type == "text":
            self.emit("response.output_item.added", {"output_index": index, "item": {
                "id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}})
            self.emit("response.content_part.added", {**self.where(index), "content_index": 0,
                                                      "part": _text_part("")})
        else:
            add_item(self, index, item, item_id)

    def where(self, index: int) -> dict[str, Any]:
        return {"item_id": self.item_id(index), "output_index": index}

    def fragment(self, index: int, fragment: int) -> None:
        item = self.scenario.output[index]
        piece = item.fragments[fragment]
        if isinstance(item, FunctionCall):
            if not item.arguments_in_done_only:
                self.emit("response.function_call_arguments.delta", {**self.where(index), "delta": piece},
                          content=piece, delta=True)
        elif isinstance(item, Chunked) and item.type == "text":
            self.emit("response.output_text.delta",
                      {**self.where(index), "content_index": 0, "delta": piece, "logprobs": []},
                      content=piece, delta=True)
        else:
            fragment_item(self, index, item, fragment)

    def close(self, index: int, status: str) -> None:
        item = self.scenario.output[index]
        where = self.where(index)
        done: dict[str, Any]
        if isinstance(item, FunctionCall):
            # Without argument deltas the done event is the one that carries the arguments.
            carried = item.arguments if item.arguments_in_done_only else None
            self.emit("response.function_call_arguments.done",
                      {"item_id": where["item_id"], "name": item.name, "output_index": index,
                       "arguments": item.arguments}, content=carried)
            done = {"id": where["item_id"], "type": "function_call", "status": status, "arguments": item.arguments}
            if item.call_id is not None:
                done["call_id"] = item.call_id
            done["name"] = item.name
        elif isinstance(item, Chunked) and item.type == "text":
            annotations = [dict(a) for a in item.annotations]
            for number, annotation in enumerate(annotations):
                self.emit("response.output_text.annotation.added",
                          {**where, "content_index": 0, "annotation_index": number, "annotation": annotation})
            self.emit("response.output_text.done",
                      {**where, "content_index": 0, "text": item.text, "logprobs": []})
            part = _text_part(item.text, annotations)
            self.emit("response.content_part.done", {**where, "content_index": 0, "part": part})
            done = {"id": where["item_id"], "type": "message", "status": status, "content": [part],
                    "role": "assistant"}
        else:
            self.done[index] = close_item(self, index, item, where["item_id"], status)
            return
        self.emit("response.output_item.done", {"output_index": index, "item": done})
        self.done[index] = done


def _text_part(text: str, annotations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "output_text", "annotations": annotations or [], "logprobs": [], "text": text}


def _render(scenario: Scenario, ctx: RenderContext) -> _Stream:
    out = _Stream(scenario, ctx)
    status = _STATUS[scenario.ending]
    plan = plan_events(scenario)
    out.emit("response.created", {"response": out.response("in_progress")})
    out.emit("response.in_progress", {"response": out.response("in_progress")})
    for kind, index, fragment in plan.actions:
        if kind == "add":
            out.add(index)
        elif kind == "fragment":
            out.fragment(index, fragment)
        elif status == "completed" or index not in plan.cut:
            out.close(index, "completed")
        elif status == "incomplete":
            out.close(index, "incomplete")
        # a failed ending leaves the items it cut open
    out.emit(_TERMINAL[scenario.ending], {"response": out.response(status)})
    return out


class ResponsesRenderer:
    """Renders scenarios as the OpenAI Responses API.

    Stream: `event: <type>` + one `data:` line per event, `sequence_number` from 0, no `[DONE]`.
    response.created and response.in_progress carry the full Response (status in_progress, output [], usage
    null) echoing the model and the request's tools (flat function tools), tool_choice, parallel_tool_calls,
    instructions, max_output_tokens, temperature, text, reasoning ... (OpenAI's defaults where the request is
    silent). Per output item:
    - text: output_item.added (message, content [], status in_progress), content_part.added (output_text ""),
      one output_text.delta per fragment (logprobs [], obfuscation), output_text.done, content_part.done,
      output_item.done;
    - function_call: output_item.added (arguments "", status in_progress, call_id, name), one
      function_call_arguments.delta per fragment (none when `arguments_in_done_only`), function_call_arguments.done
      (with name), output_item.done; a call without call_id has no call_id key anywhere (breaks RSP-ID-004);
    - reasoning: output_item.added (summary []); its text as a reasoning_text part (content_part.added, one
      reasoning_text.delta per fragment, reasoning_text.done, content_part.done); then, per summary part,
      reasoning_summary_part.added, its reasoning_summary_text.delta events, reasoning_summary_text.done,
      reasoning_summary_part.done; output_item.done (summary, content, encrypted_content when the request includes
      reasoning.encrypted_content);
    - refusal, custom_tool_call, mcp_call, shell_call, shell_call_output, code_interpreter_call, and text
      annotations: see
      `_responses_item_events` and docs/mock.md#items.
    Items are added right before their first fragment and, in output order, closed right after their last one;
    items whose fragments interleave (scenario.steps) are open together and close together after the last
    fragment of the group. Item ids are msg_/fc_/rs_/ctc_/mcp_/sh_/sho_/ci_ + 48 hex from ctx.ident; the response id
    resp_ + 48 hex.
    Chat/Anthropic-only quirks (name_chunk, id_on, name_on_later, arguments_before_name) cannot be expressed
    in this dialect and are ignored: the name goes whole on the item.

    Endings: completed -> response.completed (usage, completed_at); length / content_filter -> the items still
    open at the end (the last group) close with status "incomplete", then response.incomplete with
    incomplete_details.reason max_output_tokens / content_filter; failed -> the items still open at the end
    are left open and response.failed follows with response.error {code, message} (scenario.error or OpenAI's
    server_error) and usage null. The terminal Response's output holds the done items in output order.

    Body: the terminal event's Response. Error body: {"error": {message, type, param: null, code}} with the
    type and code OpenAI uses for the status.
    """

    dialect: Dialect = "responses"

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        return Rendered(self.dialect, tuple(_render(scenario, ctx).frames))

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        out = _render(scenario, ctx)
        return out.response(_STATUS[scenario.ending])

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """OpenAI's error shape {"error": {message, type, param, code}} (429: type "requests", code
        "rate_limit_exceeded"; 401: code "invalid_api_key"; 404: code "model_not_found"; 5xx: server_error)."""
        return openai_error_body(status, message)

    def tool_name_error(self, index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
        return openai_tool_name_error(index, field, problem)
