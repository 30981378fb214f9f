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
the Runner's loop does: the terminal `response.completed` event's output (or the `response.output_item.done` items
when it is empty), its message text and its `function_call` items. The scenario's tools become `FunctionTool`s that
are never invoked. The transport always streams, so a `"stream": false` request goes the same way. Whatever the
SDK raises (it raises on `error` events, `response.failed`, `response.incomplete` and a socket closed before the
terminal event) becomes the result's `error`, never a traceback.
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

from agents import FunctionTool, ItemHelpers, ModelSettings, ModelTracing, OpenAIProvider, set_tracing_disabled
from openai import AsyncOpenAI

__all__ = ["main", "run"]


def _result(output: Sequence[Any], error: str | None = None) -> dict[str, Any]:
    text = "".join(ItemHelpers.extract_text(item) or "" for item in output if item.type == "message")
    calls = [{"call_id": item.call_id, "name": item.name, "arguments": item.arguments}
             for item in output if item.type == "function_call"]
    return {"text": text, "tool_calls": [] if error else calls, "error": error, "incomplete": False}


async def _never(_context: Any, _arguments: str) -> str:
    raise AssertionError("callproof adapters never run tools")


async def _call(request: dict[str, Any], base_url: str, ws_url: str | None) -> dict[str, Any]:
    tools: list[Any] = [FunctionTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                                     params_json_schema=t.get("parameters", {}), strict_json_schema=False)
                        for t in request.get("tools", []) if t.get("type", "function") == "function"]
    choice = request.get("tool_choice")
    settings = ModelSettings(tool_choice=choice["name"] if isinstance(choice, dict) else choice,
                             parallel_tool_calls=request.get("parallel_tool_calls"),
                             max_tokens=request.get("max_output_tokens"))
    client = AsyncOpenAI(base_url=base_url, websocket_base_url=ws_url,
                         api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                         max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0))
    provider = OpenAIProvider(openai_client=client, use_responses=True, use_responses_websocket=True)
    model = provider.get_model(request.get("model", "callproof-model"))
    args: tuple[Any, ...] = (request.get("instructions"), request["input"], settings, tools, None, [],
                             ModelTracing.DISABLED)
    try:
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
        if final is None:
            return _result([], "ModelBehaviorError: Model did not produce a final response!")  # as the Runner raises
        return _result(final)
    finally:
        await provider.aclose()
        await client.close()


def run(request: dict[str, Any], base_url: str | None = None, transport: str = "websocket") -> dict[str, Any]:
    """The in-process form (`--client examples.clients.openai_agents_ws:run`): one request in, one result out, over
    the SDK's WebSocket transport whatever `transport` says (this adapter speaks only that mode)."""
    set_tracing_disabled(True)  # no trace export to api.openai.com
    ws_url = os.environ.get("CALLPROOF_WS_URL") if base_url is None else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return asyncio.run(_call(request, base_url or os.environ["CALLPROOF_BASE_URL"], ws_url))
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
