"""callproof client adapter for `langchain-openai` on the Responses API (docs/spec/contracts.md §5; docs/interop.md).

    callproof run --client examples.clients.langchain_openai:run
    callproof run --client-cmd 'python examples/clients/langchain_openai.py'

`ChatOpenAI(use_responses_api=True, base_url=..., api_key=..., max_retries=...)` with the scenario's tools bound
(`bind_tools`, with its tool_choice and parallel_tool_calls) streams the request; the chunks are summed into one
`AIMessageChunk`, the way LangChain aggregates a stream, and the result is that message's `.text`, its parsed
`tool_calls` (what a LangChain tool node would run; `invalid_tool_calls` are not run, so not reported; a custom
tool call is one of them, as LangChain makes it: args `{"__arg1": <input>}`), the `refusal` content blocks, the
reasoning blocks' summary and `response_metadata["status"] == "incomplete"`. The Responses input items become
LangChain messages (a `function_call` an `AIMessage` tool call, its output a `ToolMessage`). A request with
`"stream": false` goes through `invoke(...)`. Whatever LangChain raises becomes the result's `error`, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from typing import Any

if __name__ == "__main__":  # run as a script, this file's directory must not shadow the langchain_openai package
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import tool_call
from langchain_openai import ChatOpenAI, custom_tool

__all__ = ["main", "run"]


def _result(message: AIMessage | None, error: str | None = None) -> dict[str, Any]:
    calls = [{"call_id": call["id"], "name": call["name"], "arguments": call["args"]}
             for call in (message.tool_calls if message is not None and error is None else [])]
    blocks = [b for b in (message.content if message is not None else []) if isinstance(b, dict)]
    refusals = [str(b.get("refusal", "")) for b in blocks if b.get("type") == "refusal"]
    summary = [str(part.get("text", "")) for b in blocks if b.get("type") == "reasoning"
               for part in b.get("summary") or [] if isinstance(part, dict)]
    return {"layer": "parsed",  # `tool_calls` args are dicts LangChain parsed (docs/adapters.md#layers)
            "text": message.text if message is not None else "", "tool_calls": calls, "error": error,
            "incomplete": message is not None and message.response_metadata.get("status") == "incomplete",
            "refusal": "".join(refusals) if refusals else None,
            "reasoning": "\n\n".join(summary) if message is not None else None}


def _custom_tool(tool: dict[str, Any]) -> Any:
    """A custom tool of the request as LangChain's documented `@custom_tool(format=...)` makes it (never invoked)."""
    def never(input_string: str) -> str:
        raise AssertionError("callproof adapters never run tools")

    never.__name__, never.__doc__ = tool["name"], tool.get("description") or tool["name"]
    return custom_tool(format=tool["format"])(never) if tool.get("format") else custom_tool(never)


def _messages(request: dict[str, Any]) -> list[BaseMessage]:
    out: list[BaseMessage] = [SystemMessage(request["instructions"])] if request.get("instructions") else []
    kinds = {"user": HumanMessage, "system": SystemMessage, "developer": SystemMessage, "assistant": AIMessage}
    given = request["input"]
    for item in [{"role": "user", "content": given}] if isinstance(given, str) else given:
        if item.get("type") == "function_call":
            call = tool_call(id=item["call_id"], name=item["name"], args=json.loads(item["arguments"] or "{}"))
            last = out[-1] if out else None
            if isinstance(last, AIMessage) and last.tool_calls:  # parallel calls: one assistant turn
                last.tool_calls.append(call)
            else:
                out.append(AIMessage("", tool_calls=[call]))
        elif item.get("type") == "function_call_output":
            output = item["output"]
            out.append(ToolMessage(output if isinstance(output, str) else "\n".join(p["text"] for p in output),
                                   tool_call_id=item["call_id"]))
        else:
            content = item["content"]
            out.append(kinds[item["role"]](content if isinstance(content, str) else
                                           "".join(part["text"] for part in content)))
    return out


def _call(request: dict[str, Any], base_url: str, retries: int = 0) -> dict[str, Any]:
    options: dict[str, Any] = {  # by the documented aliases, which the pydantic field names differ from
        "model": request.get("model", "callproof-model"), "base_url": base_url, "use_responses_api": True,
        "api_key": os.environ.get("OPENAI_API_KEY", "callproof"), "max_tokens": request.get("max_output_tokens"),
        "max_retries": retries}
    llm = ChatOpenAI(**options)
    tools = [{"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
             for t in request.get("tools", []) if t.get("type", "function") == "function"]
    tools += [_custom_tool(t) for t in request.get("tools", []) if t.get("type") == "custom"]
    # built-in tools (web_search, file_search) are left out: the scenarios that carry them judge gateways
    choice = request.get("tool_choice")
    model = llm.bind_tools(tools, tool_choice=choice["name"] if isinstance(choice, dict) else choice,
                           parallel_tool_calls=request.get("parallel_tool_calls")) if tools else llm
    messages = _messages(request)
    if request.get("stream", True) is False:
        return _result(model.invoke(messages))
    total: AIMessageChunk | None = None
    for chunk in model.stream(messages):
        assert isinstance(chunk, AIMessageChunk)
        total = chunk if total is None else total + chunk
    return _result(total)



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
    """The in-process form (`--client examples.clients.langchain_openai:run`): one case in, one result out. An
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
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a library warning is not the client's answer
            return _call(request, base_url or os.environ["CALLPROOF_BASE_URL"], retries)
    except Exception as exc:
        return _result(None, f"{type(exc).__name__}: {exc}")


def main() -> int:
    try:
        request = json.load(sys.stdin)
        result = run(request) if isinstance(request, dict) else _result(None, "stdin is not one JSON object")
    except ValueError as exc:
        result = _result(None, f"stdin is not one JSON object: {exc}")
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
