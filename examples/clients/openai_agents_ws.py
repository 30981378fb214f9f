"""callproof client adapter for the `openai-agents` SDK's WebSocket transport (docs/adapters.md: over WebSocket;
docs/interop.md).

    callproof run --client-transport websocket --client examples.clients.openai_agents_ws:run
    callproof run --client-transport websocket --client-cmd 'python examples/clients/openai_agents_ws.py'

The SDK's Responses WebSocket transport is `OpenAIResponsesWSModel`, which an `OpenAIProvider` hands out when it is
told to use it: `use_responses_websocket=True` here (the process-wide switch,
`set_default_openai_responses_transport("websocket")`, does the same for every provider and would leak between
in-process runs). The provider gets an `AsyncOpenAI` client on `CALLPROOF_BASE_URL` (the transport derives
`ws://.../v1/responses` from it; `CALLPROOF_WS_URL`, when set, is its `websocket_base_url`). The request is streamed
through the model's `stream_response(...)`, as `Runner.run_streamed` drives it, and the events are reduced the way
the Runner's loop does: the terminal `response.completed` event's output (or the `response.output_item.done` items when
it is empty), its message text, its `function_call` and `custom_tool_call` items (a custom call's raw input), the
reasoning summary and the last message's refusal (on which the Runner raises `ModelRefusalError`: the result's error).
The scenario's tools become `FunctionTool`s and `CustomTool`s that are never invoked. The transport always streams, so a
`"stream": false` request goes the same way. Whatever the SDK raises (it raises on `error` events, `response.failed`,
`response.incomplete` and a socket closed before the terminal event) becomes the result's `error`, never a traceback.

A tool-loop case (`CALLPROOF_TOOL_LOOP=1`, or `tool_loop=True`; docs/adapters.md#loops-and-retries) is run as the
Runner runs one: each call goes through the deterministic tool, and the next `stream_response` on the same model
(and so the same socket) gets the input, the calls and one `function_call_output` per call, until an answer has no
calls. Retries are left to the library: the HTTP transport's come from the openai client (`max_retries`), and the
WebSocket transport has none for a refused `response.create`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import warnings
from collections.abc import AsyncGenerator, Sequence
from typing import Any, cast

from agents import (
    CustomTool,
    FunctionTool,
    ItemHelpers,
    ModelRefusalError,
    ModelSettings,
    ModelTracing,
    OpenAIProvider,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

__all__ = ["main", "run"]


def _result(output: Sequence[Any], error: str | None = None) -> dict[str, Any]:
    text = "".join(ItemHelpers.extract_text(item) or "" for item in output if item.type == "message")
    calls: list[dict[str, Any]] = []
    for item in output:
        if item.type == "function_call":
            calls.append({"call_id": item.call_id, "name": item.name, "arguments": item.arguments})
        elif item.type == "custom_tool_call":  # what the Runner hands a CustomTool: the item's raw input
            calls.append({"type": "custom", "call_id": item.call_id, "name": item.name, "input": item.input})
    messages = [item for item in output if item.type == "message"]
    refusal = ItemHelpers.extract_refusal(messages[-1]) if messages else None
    if refusal and error is None and not calls:  # the Runner raises on a final message that is a refusal
        error = f"ModelRefusalError: {ModelRefusalError(refusal)}"
    summary = [part.text for item in output if item.type == "reasoning" for part in item.summary]
    return {"layer": "executing",  # the calls the Runner would run (docs/adapters.md#layers)
            "text": text, "tool_calls": [] if error else calls, "error": error, "incomplete": False,
            "refusal": refusal, "reasoning": "\n\n".join(summary)}


async def _never(_context: Any, _arguments: str) -> str:
    raise AssertionError("the adapter runs the deterministic tool itself")


def _tool_output(name: str, arguments: str, call_id: str) -> str:
    """The deterministic tool (docs/adapters.md#loops-and-retries): `"<name> ok|error <call_id>"`."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}"


async def _turn(model: Any, args: tuple[Any, ...]) -> list[Any] | None:
    """One streamed turn: the terminal response's output (or the done items), None without a terminal event."""
    done: list[Any] = []
    final: list[Any] | None = None
    stream = cast(AsyncGenerator[Any, None], model.stream_response(*args, previous_response_id=None,
                                                                   conversation_id=None, prompt=None))
    async with contextlib.aclosing(stream) as events:
        async for event in events:
            if event.type == "response.output_item.done":
                done.append(event.item)
            elif event.type == "response.completed":
                final = event.response.output or list(done)
    return final


async def _call(request: dict[str, Any], base_url: str, ws_url: str | None, tool_loop: bool,
                max_turns: int) -> dict[str, Any]:
    tools: list[Any] = [FunctionTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                                     params_json_schema=t.get("parameters", {}), strict_json_schema=False)
                        for t in request.get("tools", []) if t.get("type", "function") == "function" and "name" in t]
    # a tool without a name has no form in the library (FunctionTool(name=...) is required): the agent is declared
    # without it, as its user would have to
    tools += [CustomTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                         format=t.get("format"))
              for t in request.get("tools", []) if t.get("type") == "custom" and "name" in t]
    choice = request.get("tool_choice")
    settings = ModelSettings(tool_choice=choice["name"] if isinstance(choice, dict) else choice,
                             parallel_tool_calls=request.get("parallel_tool_calls"),
                             max_tokens=request.get("max_output_tokens"))
    client = AsyncOpenAI(base_url=base_url, websocket_base_url=ws_url,
                         api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                         max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0))
    provider = OpenAIProvider(openai_client=client, use_responses=True, use_responses_websocket=True)
    model = provider.get_model(request.get("model", "callproof-model"))
    items: Any = request["input"]
    try:
        for _ in range(max_turns if tool_loop else 1):
            args: tuple[Any, ...] = (request.get("instructions"), items, settings, tools, None, [],
                                     ModelTracing.DISABLED)
            final = await _turn(model, args)
            if final is None:  # as the Runner raises
                return _result([], "ModelBehaviorError: Model did not produce a final response!")
            calls = [item for item in final if item.type == "function_call"]
            if not tool_loop or not calls:
                return _result(final)
            items = (list(items) if isinstance(items, list) else [{"role": "user", "content": items}]) + [
                {"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.arguments}
                for c in calls] + [{"type": "function_call_output", "call_id": c.call_id,
                                    "output": _tool_output(c.name, c.arguments, c.call_id)} for c in calls]
        return _result([], f"the loop did not end within {max_turns} turns")
    finally:
        await provider.aclose()
        await client.close()


def run(request: dict[str, Any], base_url: str | None = None, transport: str = "websocket", *,
        tool_loop: bool | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.clients.openai_agents_ws:run`): one request in, one result out, over
    the SDK's WebSocket transport whatever `transport` says (this adapter speaks only that mode)."""
    set_tracing_disabled(True)  # no trace export to api.openai.com
    if tool_loop is None:
        tool_loop = os.environ.get("CALLPROOF_TOOL_LOOP") == "1"
    max_turns = int(os.environ.get("CALLPROOF_MAX_TURNS") or 8)
    ws_url = os.environ.get("CALLPROOF_WS_URL") if base_url is None else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return asyncio.run(_call(request, base_url or os.environ["CALLPROOF_BASE_URL"], ws_url, tool_loop,
                                     max_turns))
    except Exception as exc:
        return _result([], f"{type(exc).__name__}: {exc}")


def main() -> int:
    try:
        request = json.load(sys.stdin)
        result = run(request) if isinstance(request, dict) else _result([], "stdin is not one JSON object")
    except ValueError as exc:
        result = _result([], f"stdin is not one JSON object: {exc}")
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
