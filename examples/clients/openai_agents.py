"""callproof client adapter for the `openai-agents` SDK (docs/spec/contracts.md §5; docs/interop.md).

    callproof run --client examples.clients.openai_agents:run
    callproof run --client-cmd 'python examples/clients/openai_agents.py'

It streams the request through the SDK's `OpenAIResponsesModel.stream_response(...)` (an `AsyncOpenAI` client on
`CALLPROOF_BASE_URL`, `max_retries` from `CALLPROOF_MAX_RETRIES`), the model layer `Runner.run_streamed` drives, and
reduces the events the way the Runner's streaming loop does: the terminal `response.completed` event's output
(or, when that output is empty, the items of the `response.output_item.done` events), its message text and its
`function_call` items. The scenario's tools become `FunctionTool`s that are never invoked. A request with
`"stream": false` goes through `get_response(...)`. Whatever the SDK raises (it raises `ModelBehaviorError` on
`response.failed`, `response.incomplete` and `error` events) becomes the result's `error`, never a traceback.
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

from agents import FunctionTool, ItemHelpers, ModelSettings, ModelTracing, OpenAIResponsesModel, set_tracing_disabled
from openai import AsyncOpenAI

__all__ = ["main", "run"]


def _result(output: Sequence[Any], error: str | None = None) -> dict[str, Any]:
    text = "".join(ItemHelpers.extract_text(item) or "" for item in output if item.type == "message")
    calls = [{"call_id": item.call_id, "name": item.name, "arguments": item.arguments}
             for item in output if item.type == "function_call"]
    return {"text": text, "tool_calls": [] if error else calls, "error": error, "incomplete": False}


async def _never(_context: Any, _arguments: str) -> str:
    raise AssertionError("callproof adapters never run tools")


async def _call(request: dict[str, Any], base_url: str) -> dict[str, Any]:
    tools: list[Any] = [FunctionTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                                     params_json_schema=t.get("parameters", {}), strict_json_schema=False)
                        for t in request.get("tools", []) if t.get("type", "function") == "function"]
    # built-in tools (web_search, file_search, custom) are left out: the scenarios that carry them judge gateways
    choice = request.get("tool_choice")
    settings = ModelSettings(tool_choice=choice["name"] if isinstance(choice, dict) else choice,
                             parallel_tool_calls=request.get("parallel_tool_calls"),
                             max_tokens=request.get("max_output_tokens"))
    client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                         max_retries=int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0))
    model = OpenAIResponsesModel(model=request.get("model", "callproof-model"), openai_client=client)
    args: tuple[Any, ...] = (request.get("instructions"), request["input"], settings, tools, None, [],
                             ModelTracing.DISABLED)
    try:
        if request.get("stream", True) is False:
            return _result((await model.get_response(*args)).output)
        done: list[Any] = []
        final: list[Any] | None = None
        stream = cast(AsyncGenerator[Any, None], model.stream_response(*args))
        async with contextlib.aclosing(stream) as events:  # closed as the Runner's loop closes it
            async for event in events:
                if event.type == "response.output_item.done":
                    done.append(event.item)
                elif event.type == "response.completed":
                    final = event.response.output or list(done)
        if final is None:
            return _result([], "ModelBehaviorError: Model did not produce a final response!")  # as the Runner raises
        return _result(final)
    finally:
        await client.close()


def run(request: dict[str, Any], base_url: str | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.clients.openai_agents:run`): one request in, one result out."""
    set_tracing_disabled(True)  # no trace export to api.openai.com
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return asyncio.run(_call(request, base_url or os.environ["CALLPROOF_BASE_URL"]))
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
