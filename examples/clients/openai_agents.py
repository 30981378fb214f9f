"""callproof client adapter for the `openai-agents` SDK (docs/spec/contracts.md §5; docs/interop.md).

    callproof run --client examples.clients.openai_agents:run
    callproof run --client-cmd 'python examples/clients/openai_agents.py'

It streams the request through the SDK's `OpenAIResponsesModel.stream_response(...)` (an `AsyncOpenAI` client on
`CALLPROOF_BASE_URL`, `max_retries` from `CALLPROOF_MAX_RETRIES`), the model layer `Runner.run_streamed` drives, and
reduces the events the way the Runner's streaming loop does: the terminal `response.completed` event's output
(or, when that output is empty, the items of the `response.output_item.done` events), its message text and its
`function_call` items, its `custom_tool_call` items (the raw input the Runner hands a `CustomTool`), the reasoning
items' summary and the last message's refusal: on a final refusal the Runner raises `ModelRefusalError`, which
becomes the result's error (the refusal text in `refusal` too). The scenario's tools become `FunctionTool`s and
`CustomTool`s that are never invoked. A request with
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

from agents import (
    CustomTool,
    FunctionTool,
    ItemHelpers,
    ModelRefusalError,
    ModelSettings,
    ModelTracing,
    OpenAIResponsesModel,
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
    raise AssertionError("callproof adapters never run tools")


async def _call(request: dict[str, Any], base_url: str, retries: int = 0) -> dict[str, Any]:
    tools: list[Any] = [FunctionTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                                     params_json_schema=t.get("parameters", {}), strict_json_schema=False)
                        for t in request.get("tools", []) if t.get("type", "function") == "function" and "name" in t]
    # a tool without a name has no form in the library (FunctionTool(name=...) is required): the agent is declared
    # without it, as its user would have to
    tools += [CustomTool(name=t["name"], description=t.get("description", ""), on_invoke_tool=_never,
                         format=t.get("format"))
              for t in request.get("tools", []) if t.get("type") == "custom" and "name" in t]
    # built-in tools (web_search, file_search) are left out: the scenarios that carry them judge gateways
    choice = request.get("tool_choice")
    settings = ModelSettings(tool_choice=choice["name"] if isinstance(choice, dict) else choice,
                             parallel_tool_calls=request.get("parallel_tool_calls"),
                             max_tokens=request.get("max_output_tokens"))
    client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "callproof"),
                         max_retries=retries)
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



def tool_output(name: str, arguments: str, call_id: str) -> str:
    """The adapter protocol's deterministic tool (docs/adapters.md, "Loops and retries")."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    failed = not isinstance(parsed, dict) or parsed.get("fail") is True
    return f"{name} {'error' if failed else 'ok'} {call_id}"


def _next_request(request: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An agent loop's next request: the input so far, this turn's calls, one output per call id (arguments an
    object where the library parsed them: sent back as their JSON text)."""
    calls = [{**c, "arguments": c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"])}
             for c in calls]
    given = request["input"]
    items = [{"role": "user", "content": given}] if isinstance(given, str) else list(given)
    items += [{"type": "function_call", "call_id": c["call_id"], "name": c["name"], "arguments": c["arguments"]}
              for c in calls]
    items += [{"type": "function_call_output", "call_id": c["call_id"],
               "output": tool_output(c["name"], c["arguments"], c["call_id"])} for c in calls]
    return {**request, "input": items}


def run(request: dict[str, Any], base_url: str | None = None, tool_loop: bool | None = None,
        max_retries: int | None = None) -> dict[str, Any]:
    """The in-process form (`--client examples.clients.openai_agents:run`): one case in, one result out. An
    agent-loop case (`tool_loop`, else CALLPROOF_TOOL_LOOP=1) sends every call's output back until an answer has no
    call; the library retries `max_retries` times (else CALLPROOF_MAX_RETRIES)."""
    loop = os.environ.get("CALLPROOF_TOOL_LOOP") == "1" if tool_loop is None else tool_loop
    retries = int(os.environ.get("CALLPROOF_MAX_RETRIES") or 0) if max_retries is None else max_retries
    result = _run_once(request, base_url, retries)
    for _ in range(int(os.environ.get("CALLPROOF_MAX_TURNS") or 8) - 1):
        if not loop or not result["tool_calls"] or result["error"] is not None:
            break
        request = _next_request(request, result["tool_calls"])
        result = _run_once(request, base_url, retries)
    return result


def _run_once(request: dict[str, Any], base_url: str | None, retries: int) -> dict[str, Any]:
    """One request (the library's retries included)."""
    set_tracing_disabled(True)  # no trace export to api.openai.com
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return asyncio.run(_call(request, base_url or os.environ["CALLPROOF_BASE_URL"], retries))
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
