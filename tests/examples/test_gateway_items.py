"""The reference gateway (examples/gateway/) on the items of docs/spec/items.md, without servers: an upstream's
events read into the neutral model and rendered by each front (stream and body), the request translations
(structured outputs, `strict`, custom tools refused or converted, nameless tools refused) and the conversion of
custom calls back from a function call. What the judge says of them through real servers is in
tests/harness/run/test_mutations.py (the reference gateway passes every case)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.testclient import TestClient

from callproof.harness import check_bytes
from callproof.harness.scenario import parse_scenario_file
from callproof.mock_server import MockServer
from examples.gateway import (
    AnthropicFront,
    AnthropicUpstream,
    ChatFront,
    ChatUpstream,
    Front,
    RequestShapeError,
    ResponsesFront,
    ResponsesUpstream,
    create_app,
)
from examples.gateway.custom_tools import CONVERTED_PARAMETERS, CallsBack, offered
from examples.gateway.model import (
    ArgumentsDelta,
    Call,
    CallDone,
    CallStart,
    Event,
    Finish,
    Json,
    OutputFormat,
    ReasoningDelta,
    ReasoningDone,
    ReasoningStart,
    RefusalDelta,
    Request,
    Result,
    TextDelta,
    Tool,
    Untranslatable,
    UpstreamError,
)
from examples.gateway.upstreams.anthropic import ReadState as AnthropicState
from examples.gateway.upstreams.chat import ReadState as ChatState
from examples.gateway.upstreams.responses import ReadState as ResponsesState

PATCH = '*** Begin Patch\n*** Update File: a.py\n-print("x")\n+print("y \\\\ \'z\'")\n*** End Patch\n'
FRAGMENTS = [PATCH[:7], PATCH[7:30], PATCH[30:31], PATCH[31:]]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
          "additionalProperties": False}


def _responses_upstream(events: list[Json]) -> list[Event]:
    upstream, state = ResponsesUpstream(), ResponsesState()
    return [neutral for event in events for neutral in upstream.on_event(state, event)]


def _anthropic_upstream(events: list[Json]) -> list[Event]:
    upstream, state = AnthropicUpstream(), AnthropicState()
    return [neutral for event in events for neutral in upstream.on_event(state, event)]


def _completed(output: list[Json]) -> Json:
    return {"type": "response.completed", "response": {"status": "completed", "output": output,
                                                       "usage": {"input_tokens": 3, "output_tokens": 4}}}


def _body(front: Front[Any], events: Iterable[Event], request: Request | None = None) -> Json:
    answer = front.complete(request or Request(model="m"), list(events))
    return dict(json.loads(bytes(answer.body)))


def _stream(front: Front[Any], events: Iterable[Event], request: Request | None = None) -> bytes:
    async def source() -> AsyncIterator[Event]:
        for event in events:
            yield event

    async def collect() -> bytes:
        return b"".join([part async for part in front.stream_events(request or Request(model="m", stream=True),
                                                                    source())])
    return asyncio.run(collect())


# -- custom tool calls ----------------------------------------------------------------------------------------------


def _custom_call_stream() -> list[Json]:
    item = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": ""}
    deltas = [{"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": f}
              for f in FRAGMENTS]
    done = {**item, "input": PATCH}
    return [{"type": "response.output_item.added", "output_index": 0, "item": item}, *deltas,
            {"type": "response.custom_tool_call_input.done", "output_index": 0, "item_id": "ctc_1", "input": PATCH},
            {"type": "response.output_item.done", "output_index": 0, "item": done}, _completed([done])]


def test_a_custom_call_reaches_a_responses_front_as_a_custom_call_byte_for_byte() -> None:
    events = _responses_upstream(_custom_call_stream())
    assert events[0] == CallStart(0, "call_p", "apply_patch", "custom")
    stream = _stream(ResponsesFront(), events)
    assert not check_bytes(stream, front="responses").failed_rules
    assert b'"type":"function_call"' not in stream
    output = _body(ResponsesFront(), events)["output"]
    assert output == [{"id": output[0]["id"], "type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch",
                       "input": PATCH}]


@pytest.mark.parametrize("front", [ChatFront(), AnthropicFront()], ids=lambda f: f.dialect)
def test_a_custom_call_fails_a_front_that_cannot_carry_it(front: Front[Any]) -> None:
    events = _responses_upstream(_custom_call_stream())
    stream = _stream(front, events).decode()
    assert "custom tool 'apply_patch'" in stream and "cannot carry" in stream
    assert "apply_patch\"" not in stream.split("custom tool")[0]  # no call chunk or block before the error
    assert "[DONE]" not in stream and "message_stop" not in stream
    answer = front.complete(Request(model="m"), events)
    assert answer.status_code == 502


def test_a_converted_call_comes_back_as_a_custom_call_with_the_raw_input() -> None:
    wrapped = json.dumps({"input": PATCH})
    events: list[Event] = [CallStart(0, "call_1", "apply_patch"),
                           *(ArgumentsDelta(0, wrapped[i:i + 9]) for i in range(0, len(wrapped), 9)), Finish("stop")]
    back = CallsBack(frozenset({"apply_patch"}))
    seen = [out for event in events for out in back.see(event)]
    assert seen == [CallStart(0, "call_1", "apply_patch", "custom"), ArgumentsDelta(0, PATCH), Finish("stop")]
    other = CallsBack(frozenset({"apply_patch"}))
    assert other.see(CallStart(1, None, "get_weather")) == [CallStart(1, None, "get_weather")]


def test_a_converted_call_without_an_input_string_fails_the_answer() -> None:
    back = CallsBack(frozenset({"apply_patch"}))
    back.see(CallStart(0, "call_1", "apply_patch"))
    back.see(ArgumentsDelta(0, '{"patch": "x"}'))
    with pytest.raises(UpstreamError, match=r"not \{\"input\""):
        back.see(CallDone(0))


def test_custom_tools_are_refused_or_converted_toward_an_upstream_without_them() -> None:
    request = Request(model="m", tools=[Tool("apply_patch", "Patch files.", kind="custom", format={"type": "text"}),
                                        Tool("get_weather", None, {"type": "object"}, True)],
                      history=[Call("c1", "apply_patch", PATCH, "custom"), Result("c1", "done", kind="custom")])
    for upstream in (ChatUpstream(), AnthropicUpstream()):
        with pytest.raises(Untranslatable, match=r"custom tool apply_patch: the (chat|anthropic) upstream"):
            upstream.translate_request(request)
    converted = offered(request, "chat", "convert")
    assert converted.tools[0] == Tool("apply_patch", "Patch files.", CONVERTED_PARAMETERS)
    assert converted.tools[1] == request.tools[1]
    assert converted.history == [Call("c1", "apply_patch", json.dumps({"input": PATCH})), Result("c1", "done")]
    chat = ChatUpstream()
    chat.custom_tools = "convert"
    body = chat.translate_request(request)
    assert body["tools"][0]["function"]["parameters"] == CONVERTED_PARAMETERS
    assert body["tools"][1]["function"]["strict"] is True
    assert json.loads(body["messages"][0]["tool_calls"][0]["function"]["arguments"]) == {"input": PATCH}
    back = chat.calls_back(request)
    assert back is not None and back.names == frozenset({"apply_patch"})
    assert ChatUpstream().calls_back(request) is None  # refuse: nothing to convert back
    responses = ResponsesUpstream().translate_request(request)
    assert responses["tools"][0] == {"type": "custom", "name": "apply_patch", "description": "Patch files.",
                                     "format": {"type": "text"}}
    assert responses["input"][:2] == [{"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                                       "input": PATCH},
                                      {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"}]


def test_a_custom_tool_is_refused_with_a_400_in_the_front_shape_before_any_upstream_request() -> None:
    app = create_app("http://127.0.0.1:9/v1", dialect="chat")  # nothing listens there: a call would be a 502
    tool = {"type": "custom", "name": "apply_patch", "format": {"type": "text"}}
    with TestClient(app) as client:
        answer = client.post("/v1/responses", json={"model": "m", "input": "hi", "tools": [tool], "stream": True})
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert "custom tool apply_patch" in answer.json()["error"]["message"]


# -- tools without a name, strict, structured outputs ----------------------------------------------------------------


@pytest.mark.parametrize(("front", "tools"), [
    (ResponsesFront(), [{"type": "function", "parameters": {}}]),
    (ResponsesFront(), [{"type": "custom", "name": ""}]),
    (ChatFront(), [{"type": "function", "function": {"parameters": {}}}]),
    (AnthropicFront(), [{"input_schema": {"type": "object"}}]),
], ids=["responses-function", "responses-custom", "chat", "anthropic"])
def test_a_tool_without_a_name_is_refused(front: Front[Any], tools: list[Json]) -> None:
    body = {"model": "m", "input": "hi", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    with pytest.raises(RequestShapeError, match=r"tools\[0\] has no name"):
        front.parse_request(body)


def test_a_nameless_tool_gets_a_400_in_the_anthropic_error_shape() -> None:
    with TestClient(create_app("http://127.0.0.1:9/v1", dialect="responses")) as client:
        answer = client.post("/v1/messages", json={"model": "m", "max_tokens": 10, "tools": [{"input_schema": {}}],
                                                   "messages": [{"role": "user", "content": "hi"}]})
    assert answer.status_code == 400
    assert answer.json()["type"] == "error" and "has no name" in answer.json()["error"]["message"]


def test_strict_and_structured_outputs_reach_each_upstream_unchanged() -> None:
    request = ResponsesFront().parse_request({
        "model": "m", "input": "hi", "text": {"format": {"type": "json_schema", "name": "reply", "schema": SCHEMA,
                                                         "strict": True}},
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": True}]})
    assert request.output_format == OutputFormat("json_schema", SCHEMA, "reply", True)
    assert ResponsesUpstream().translate_request(request)["text"] == {
        "format": {"type": "json_schema", "name": "reply", "schema": SCHEMA, "strict": True}}
    chat = ChatUpstream().translate_request(request)
    assert chat["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "reply", "schema": SCHEMA, "strict": True}}
    assert chat["tools"][0]["function"]["strict"] is True
    anthropic = AnthropicUpstream().translate_request(request)
    assert anthropic["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert anthropic["tools"][0]["strict"] is True


def test_structured_outputs_from_the_chat_and_anthropic_fronts() -> None:
    chat = ChatFront().parse_request({"model": "m", "messages": [], "response_format": {
        "type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA, "strict": False}}})
    assert chat.output_format == OutputFormat("json_schema", SCHEMA, "reply", False)
    anthropic = AnthropicFront().parse_request({"model": "m", "messages": [], "output_config": {
        "format": {"type": "json_schema", "schema": SCHEMA}}, "tools": [{"name": "f", "input_schema": {},
                                                                         "strict": True}]})
    assert anthropic.output_format == OutputFormat("json_schema", SCHEMA)
    assert anthropic.tools[0].strict is True
    assert ResponsesUpstream().translate_request(anthropic)["text"]["format"]["name"] == "output"
    with pytest.raises(Untranslatable, match="json_object"):
        AnthropicUpstream().translate_request(Request(model="m", output_format=OutputFormat("json_object")))


# -- refusals ---------------------------------------------------------------------------------------------------------


REFUSAL = "I can't help with that."


def test_a_chat_refusal_reaches_each_front_as_its_refusal() -> None:
    chunks = [{"choices": [{"index": 0, "delta": {"refusal": part}, "finish_reason": None}]}
              for part in ("I can't ", "help with that.")]
    upstream, state = ChatUpstream(), ChatState()
    events = [e for chunk in chunks for e in upstream.on_chunk(state, chunk)]
    events += [Finish("stop")]
    assert events[:2] == [RefusalDelta("I can't "), RefusalDelta("help with that.")]
    output = _body(ResponsesFront(), events)["output"]
    assert output[0]["content"] == [{"type": "refusal", "refusal": REFUSAL}]
    assert not check_bytes(_stream(ResponsesFront(), events), front="responses").failed_rules
    message = _body(ChatFront(), events)["choices"][0]["message"]
    assert (message["refusal"], message["content"]) == (REFUSAL, None)
    assert b'"delta":{"refusal":"I can\'t "}' in _stream(ChatFront(), events)
    anthropic = _body(AnthropicFront(), events)
    assert anthropic["content"] == [{"type": "text", "text": REFUSAL}]
    assert (anthropic["stop_reason"], anthropic["stop_details"]) == ("refusal", {"type": "refusal"})
    assert not check_bytes(_stream(AnthropicFront(), events), front="anthropic").failed_rules


def test_a_responses_refusal_part_is_read_as_a_refusal() -> None:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "refusal", "refusal": REFUSAL}]}
    events = _responses_upstream([
        {"type": "response.output_item.added", "output_index": 0, "item": {**message, "content": []}},
        {"type": "response.refusal.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0,
         "delta": REFUSAL},
        {"type": "response.output_item.done", "output_index": 0, "item": message}, _completed([message])])
    assert [e for e in events if isinstance(e, RefusalDelta)] == [RefusalDelta(REFUSAL)]
    assert ResponsesUpstream().body_events({"object": "response", "status": "completed", "output": [message]})[0] \
        == RefusalDelta(REFUSAL)


# -- reasoning ---------------------------------------------------------------------------------------------------------


def _reasoning_stream() -> list[Json]:
    where = {"output_index": 0, "item_id": "rs_1"}
    summary = [{"type": "summary_text", "text": "First, the city."}, {"type": "summary_text", "text": "Then it."}]
    done = {"id": "rs_1", "type": "reasoning", "summary": summary, "encrypted_content": "gAAAA+/sealed=="}
    events: list[Json] = [{"type": "response.output_item.added", "output_index": 0,
                           "item": {"id": "rs_1", "type": "reasoning", "summary": []}}]
    for index, part in enumerate(summary):
        events += [{"type": "response.reasoning_summary_part.added", **where, "summary_index": index,
                    "part": {"type": "summary_text", "text": ""}},
                   {"type": "response.reasoning_summary_text.delta", **where, "summary_index": index,
                    "delta": part["text"][:5]},
                   {"type": "response.reasoning_summary_text.delta", **where, "summary_index": index,
                    "delta": part["text"][5:]},
                   {"type": "response.reasoning_summary_text.done", **where, "summary_index": index,
                    "text": part["text"]},
                   {"type": "response.reasoning_summary_part.done", **where, "summary_index": index, "part": part}]
    return [*events, {"type": "response.output_item.done", "output_index": 0, "item": done}, _completed([done])]


def test_reasoning_summary_parts_and_encrypted_content_carried_responses_to_responses() -> None:
    events = _responses_upstream(_reasoning_stream())
    assert events[-3] == ReasoningDone(0, "gAAAA+/sealed==", "responses")
    output = _body(ResponsesFront(), events)["output"]
    assert output[0]["summary"] == [{"type": "summary_text", "text": "First, the city."},
                                    {"type": "summary_text", "text": "Then it."}]
    assert output[0]["encrypted_content"] == "gAAAA+/sealed=="
    assert output[0]["id"] == "rs_1"  # the upstream's id: a continuation sends the item back by it
    assert not check_bytes(_stream(ResponsesFront(), events), front="responses").failed_rules
    assert _body(ChatFront(), events)["choices"][0]["message"]["content"] is None  # Chat: no field, dropped
    assert _body(AnthropicFront(), events)["content"] == []  # no thinking block without Anthropic's signature


def _thinking_stream() -> list[Json]:
    return [{"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "",
                                                                          "signature": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Think "}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "twice."}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB+/="}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Paris."}},
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}},
            {"type": "message_stop"}]


def test_thinking_and_its_signature_carried_anthropic_to_anthropic() -> None:
    events = _anthropic_upstream(_thinking_stream())
    assert events[1:5] == [ReasoningStart(0, "anthropic"), ReasoningDelta(0, "Think "), ReasoningDelta(0, "twice."),
                           ReasoningDone(0, "EqQB+/=", "anthropic")]
    body = _body(AnthropicFront(), events)
    assert body["content"] == [{"type": "thinking", "thinking": "Think twice.", "signature": "EqQB+/="},
                               {"type": "text", "text": "Paris."}]
    assert not check_bytes(_stream(AnthropicFront(), events), front="anthropic").failed_rules
    output = _body(ResponsesFront(), events)["output"]  # the thinking as a summary, no OpenAI ciphertext
    assert output[0]["summary"] == [{"type": "summary_text", "text": "Think twice."}]
    assert "encrypted_content" not in output[0]
    assert output[1]["content"][0]["text"] == "Paris."


# -- MCP, shell, code interpreter and annotations (opaque: Responses to Responses) ------------------------------------


def test_mcp_calls_and_annotations_carried_responses_to_responses() -> None:
    mcp = {"id": "mcp_1", "type": "mcp_call", "server_label": "docs", "name": "search_docs", "arguments": "",
           "status": "in_progress"}
    done = {**mcp, "arguments": '{"q": "x"}', "output": "found", "status": "completed"}
    annotation = {"type": "url_citation", "start_index": 0, "end_index": 5, "title": "P", "url": "https://p.example"}
    message = {"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Paris", "annotations": [annotation], "logprobs": []}]}
    upstream = [
        {"type": "response.output_item.added", "output_index": 0, "item": mcp},
        {"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_1", "delta": '{"q": "x"}'},
        {"type": "response.mcp_call_arguments.done", "output_index": 0, "item_id": "mcp_1",
         "arguments": '{"q": "x"}'},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.output_item.added", "output_index": 1, "item": {**message, "content": []}},
        {"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_2", "content_index": 0,
         "delta": "Paris"},
        {"type": "response.output_text.annotation.added", "output_index": 1, "item_id": "msg_2", "content_index": 0,
         "annotation_index": 0, "annotation": annotation},
        {"type": "response.output_item.done", "output_index": 1, "item": message}, _completed([done, message])]
    events = _responses_upstream(upstream)
    output = _body(ResponsesFront(), events)["output"]
    assert output[0] == done
    assert output[1]["content"][0]["annotations"] == [annotation]
    stream = _stream(ResponsesFront(), events)
    assert b'"type":"response.mcp_call_arguments.delta"' in stream
    assert not check_bytes(stream, front="responses").failed_rules
    assert _body(ChatFront(), events)["choices"][0]["message"]["content"] == "Paris"  # the MCP call: dropped


def test_a_shell_call_fails_a_front_that_cannot_carry_it() -> None:
    shell = {"id": "sh_1", "type": "shell_call", "call_id": "call_s", "action": {"commands": ["ls"]},
             "status": "completed"}
    events = _responses_upstream([{"type": "response.output_item.added", "output_index": 0, "item": shell},
                                  {"type": "response.output_item.done", "output_index": 0, "item": shell},
                                  _completed([shell])])
    assert _body(ResponsesFront(), events)["output"] == [shell]
    for front in (ChatFront(), AnthropicFront()):
        answer = front.complete(Request(model="m"), events)
        assert answer.status_code == 502 and b"shell_call" in bytes(answer.body)


def test_text_events_are_untouched_by_the_new_items() -> None:
    events: list[Event] = [TextDelta("Hi"), Finish("stop")]
    assert _body(ResponsesFront(), events)["output"][0]["content"] == [
        {"type": "output_text", "annotations": [], "logprobs": [], "text": "Hi"}]


def test_earlier_items_the_model_does_not_translate_reach_only_an_upstream_of_their_dialect() -> None:
    shell = {"type": "shell_call", "id": "sh_1", "call_id": "call_s", "action": {"commands": ["ls"]},
             "status": "completed"}
    result = {"stdout": "a.txt\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    output = {"type": "shell_call_output", "call_id": "call_s", "output": [result]}
    request = ResponsesFront().parse_request({"model": "m", "input": [
        {"role": "user", "content": "list"}, shell, output, {"role": "user", "content": "and now?"}]})
    assert ResponsesUpstream().translate_request(request)["input"][1:3] == [shell, output]
    assert [m["role"] for m in ChatUpstream().translate_request(request)["messages"]] == ["user", "user"]
    thinking = {"type": "thinking", "thinking": "Think.", "signature": "EqQB+/="}
    anthropic = AnthropicFront().parse_request({"model": "m", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [thinking, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]}]})
    assert AnthropicUpstream().translate_request(anthropic)["messages"][1]["content"][0] == thinking
    assert [i.get("type") for i in ResponsesUpstream().translate_request(anthropic)["input"]] == [
        "message", "function_call", "function_call_output"]


def test_a_custom_tool_is_refused_on_the_websocket_front_with_an_error_event() -> None:
    tool = {"type": "custom", "name": "apply_patch"}
    with TestClient(create_app("http://127.0.0.1:9/v1", dialect="anthropic")) as client, \
            client.websocket_connect("/v1/responses") as socket:
        socket.send_text(json.dumps({"type": "response.create", "model": "m", "input": "hi", "tools": [tool]}))
        event = json.loads(socket.receive_text())
    assert (event["type"], event["status"], event["error"]["type"]) == ("error", 400, "invalid_request_error")
    assert "custom tool apply_patch: the anthropic upstream" in event["error"]["message"]


# -- --custom-tools convert through real servers (the mock as a Chat or Anthropic upstream) ---------------------------


CONVERTED_SCENARIO = json.dumps({"feature": "items", "description": "a converted custom call", "scenarios": [{
    "id": "converted_apply_patch", "description": "the function standing for the custom tool apply_patch, called",
    "dialects": ["chat", "anthropic"],
    "output": [{"type": "function_call", "name": "apply_patch", "call_id": "call_patch_1",
                "arguments": json.dumps({"input": PATCH}), "chunk": {"size": 5}}],
    "request": {"input": [{"role": "user", "text": "patch it"}]},
    "expect": {"status": "completed", "tool_calls": [{"name": "apply_patch", "arguments": {"input": PATCH}}]}}]})


@pytest.fixture(scope="module")
def converting() -> Iterator[dict[str, str]]:
    """The gateway under --custom-tools convert over the mock as a Chat and as an Anthropic upstream."""
    scenarios = {s.id: s for s in parse_scenario_file(CONVERTED_SCENARIO, "converted")}
    with MockServer(scenarios=scenarios) as mock:
        servers, urls = [], {}
        for dialect in ("chat", "anthropic"):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            app = create_app(mock.url, dialect=dialect, custom_tools="convert")
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()
            while not server.started:
                time.sleep(0.01)
            servers.append((server, thread))
            urls[dialect] = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        yield urls
        for server, thread in servers:
            server.should_exit = True
            thread.join(timeout=10)


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
def test_a_converted_custom_tool_comes_back_as_a_custom_call_through_real_servers(
        converting: dict[str, str], dialect: str) -> None:
    body = {"model": "callproof/converted_apply_patch", "input": "patch it", "stream": True,
            "tools": [{"type": "custom", "name": "apply_patch", "format": {"type": "text"}}]}
    answer = httpx.post(converting[dialect] + "/responses", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    assert not check_bytes(answer.content, front="responses").failed_rules
    events = [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]
    output = events[-1]["response"]["output"]
    assert [(i["type"], i["name"], i["input"]) for i in output] == [("custom_tool_call", "apply_patch", PATCH)]
    assert "".join(e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta") == PATCH
    body = {**body, "stream": False}
    assert httpx.post(converting[dialect] + "/responses", json=body, timeout=10).json()["output"][0]["input"] == PATCH


def test_a_chat_custom_tool_reaches_a_responses_upstream_in_the_responses_shape() -> None:
    grammar = {"syntax": "lark", "definition": 'start: "x"'}
    request = ChatFront().parse_request({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [
        {"type": "custom", "custom": {"name": "apply_patch", "format": {"type": "grammar", "grammar": grammar}}}]})
    assert ResponsesUpstream().translate_request(request)["tools"] == [
        {"type": "custom", "name": "apply_patch", "format": {"type": "grammar", **grammar}}]


def test_reasoning_text_then_a_call_carried_responses_to_responses() -> None:
    where = {"output_index": 0, "item_id": "rs_2"}
    done = {"id": "rs_2", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text",
                                                                          "text": "Need the weather."}]}
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_w", "name": "get_weather",
            "arguments": '{"city":"Paris"}', "status": "completed"}
    events = _responses_upstream([
        {"type": "response.output_item.added", "output_index": 0, "item": {"id": "rs_2", "type": "reasoning",
                                                                           "summary": []}},
        {"type": "response.content_part.added", **where, "content_index": 0,
         "part": {"type": "reasoning_text", "text": ""}},
        {"type": "response.reasoning_text.delta", **where, "content_index": 0, "delta": "Need the "},
        {"type": "response.reasoning_text.delta", **where, "content_index": 0, "delta": "weather."},
        {"type": "response.reasoning_text.done", **where, "content_index": 0, "text": "Need the weather."},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1",
         "delta": call["arguments"]},
        {"type": "response.output_item.done", "output_index": 1, "item": call}, _completed([done, call])])
    stream = _stream(ResponsesFront(), events)
    assert not check_bytes(stream, front="responses").failed_rules
    output = _body(ResponsesFront(), events)["output"]
    assert output[0]["content"] == done["content"] and output[1]["arguments"] == call["arguments"]
    assert "Need the" not in json.dumps(_body(ChatFront(), events)["choices"][0]["message"])  # no field: dropped


def test_an_anthropic_refusal_keeps_its_stop_details_a_to_a_and_is_content_filter_elsewhere() -> None:
    details = {"type": "refusal", "category": None, "explanation": None}
    events = _anthropic_upstream([
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REFUSAL}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "refusal", "stop_details": details},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"}])
    assert events[-1] == Finish("content_filter", details)
    body = _body(AnthropicFront(), events)
    assert (body["content"], body["stop_reason"], body["stop_details"]) == (
        [{"type": "text", "text": REFUSAL}], "refusal", details)
    assert not check_bytes(_stream(AnthropicFront(), events), front="anthropic").failed_rules
    response = _body(ResponsesFront(), events)  # the text streamed before the upstream said "refusal"
    assert (response["status"], response["incomplete_details"]) == ("incomplete", {"reason": "content_filter"})
    assert _body(ChatFront(), events)["choices"][0]["finish_reason"] == "content_filter"
    plain = _anthropic_upstream([{"type": "message_delta", "delta": {"stop_reason": "refusal"}},
                                 {"type": "message_stop"}])
    assert plain[-1] == Finish("content_filter")  # a content_filter ending: no stop_details, no refusal
