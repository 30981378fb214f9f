"""The reference gateway (examples/gateway/) where the harness does not reach it: its command line, the official
SDKs as clients of its Chat and Anthropic fronts over each upstream dialect (real servers on 127.0.0.1: the mock
and the gateway on uvicorn), the checker on what those fronts stream, and request translation from every front
into every upstream dialect."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
import uvicorn

from callproof.harness import check_body, check_bytes
from callproof.mock_server import MockServer, bundled_scenarios
from examples.gateway import (
    FRONTS,
    UPSTREAMS,
    AnthropicFront,
    ChatFront,
    ChatUpstream,
    Front,
    ResponsesFront,
    create_app,
    parser,
)
from examples.gateway.model import ArgumentsDelta, CallStart, Finish
from examples.gateway.upstreams.chat import ReadState
from tests import fakes

SCENARIOS = bundled_scenarios()
DIALECTS = ("chat", "anthropic", "responses")
#: Calls a client must reassemble: parallel, interleaved, without arguments, without upstream ids, split names.
CALL_SCENARIOS = ["parallel_two_calls", "interleaved_round_robin", "empty_args_no_delta", "missing_call_id_parallel",
                  "fragmented_name", "text_between_calls"]
#: What the checker judges at each front: calls, text, endings, an upstream that dies or errors mid-stream.
CHECKED_SCENARIOS = ["one_call", "parallel_two_calls", "interleaved_round_robin", "text_around_calls",
                     "length_mid_arguments", "content_filter_text", "fault_disconnect_after_events",
                     "fault_stream_error", "failed_mid_arguments", "duplicate_call_ids"]


# -- the command line ---------------------------------------------------------------------------------------------


def test_the_command_line_defaults() -> None:
    args = parser().parse_args(["--upstream", "http://127.0.0.1:9/v1"])
    assert (args.host, args.port, args.upstream_dialect) == ("127.0.0.1", 8080, "chat")
    assert sorted(UPSTREAMS) == sorted(DIALECTS)


def test_an_unknown_upstream_dialect_is_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, "-m", "examples.gateway", "--upstream", "http://127.0.0.1:9/v1",
                           "--upstream-dialect", "grpc"], capture_output=True, text=True, timeout=60, check=False,
                          env=fakes.env(), cwd=fakes.ROOT)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "--upstream-dialect" in done.stderr and "grpc" in done.stderr


def test_every_front_is_served_on_its_path() -> None:
    app = create_app("http://127.0.0.1:9/v1")
    paths = {getattr(route, "path", None) for route in app.routes}
    assert paths == {"/v1/responses", "/v1/chat/completions", "/v1/messages"}
    assert {front.dialect for front in FRONTS} == set(DIALECTS)


# -- real servers -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(strict=True) as server:
        yield server


@pytest.fixture(scope="module")
def gateways(mock: MockServer) -> Iterator[dict[str, str]]:
    """The gateway's base URL (with /v1) for each upstream dialect, each on its own uvicorn server."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []
    urls: dict[str, str] = {}
    for dialect in DIALECTS:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(create_app(mock.url, dialect=dialect), log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "the gateway did not start"
            time.sleep(0.01)
        servers.append((server, thread))
        urls[dialect] = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    yield urls
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


def _expected(scenario_id: str) -> list[tuple[str, Any]]:
    return [(call["name"], call["arguments"]) for call in SCENARIOS[scenario_id].expect.tool_calls]


def _tools(scenario_id: str) -> list[dict[str, Any]]:
    return list(SCENARIOS[scenario_id].request.get("tools", []))


def _arguments(text: str) -> Any:
    return json.loads(text)  # never "": the fronts send "{}" for a call without arguments


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("scenario_id", CALL_SCENARIOS)
def test_openai_chat_completions_stream_through_the_chat_front(
    gateways: dict[str, str], dialect: str, scenario_id: str,
) -> None:
    tools: Any = [{"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}}
                  for t in _tools(scenario_id)]
    with (openai.OpenAI(base_url=gateways[dialect], api_key="callproof", max_retries=0, timeout=10) as client,
          client.chat.completions.stream(model=f"callproof/{scenario_id}", tools=tools,
                                         messages=[{"role": "user", "content": "weather?"}],
                                         stream_options={"include_usage": True}) as stream):
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    assert [(c.function.name, _arguments(c.function.arguments)) for c in calls] == _expected(scenario_id)
    ids = [c.id for c in calls]
    assert all(ids) and len(set(ids)) == len(ids)
    assert final.choices[0].finish_reason == ("tool_calls" if calls else "stop")
    assert final.usage is not None and final.usage.completion_tokens > 0


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("scenario_id", CALL_SCENARIOS)
def test_anthropic_messages_stream_through_the_anthropic_front(
    gateways: dict[str, str], dialect: str, scenario_id: str,
) -> None:
    tools: Any = [{"name": t["name"], "input_schema": t["parameters"]} for t in _tools(scenario_id)]
    root = gateways[dialect].removesuffix("/v1")
    with (anthropic.Anthropic(base_url=root, api_key="callproof", max_retries=0, timeout=10) as client,
          client.messages.stream(model=f"callproof/{scenario_id}", max_tokens=1024, tools=tools,
                                 messages=[{"role": "user", "content": "weather?"}]) as stream):
        final = stream.get_final_message()
    blocks = [block for block in final.content if block.type == "tool_use"]
    assert [(block.name, block.input) for block in blocks] == _expected(scenario_id)
    ids = [block.id for block in blocks]
    assert all(ids) and len(set(ids)) == len(ids)
    assert final.stop_reason == ("tool_use" if blocks else "end_turn")
    assert final.usage.output_tokens > 0


@pytest.mark.parametrize("dialect", DIALECTS)
def test_openai_responses_stream_through_the_responses_front(gateways: dict[str, str], dialect: str) -> None:
    tools: Any = [{"type": "function", "name": t["name"], "parameters": t["parameters"], "strict": False}
                  for t in _tools("parallel_two_calls")]
    with (openai.OpenAI(base_url=gateways[dialect], api_key="callproof", max_retries=0, timeout=10) as client,
          client.responses.stream(model="callproof/parallel_two_calls", input="weather?", tools=tools) as stream):
        final = stream.get_final_response()
    calls = [(item.name, _arguments(item.arguments)) for item in final.output if item.type == "function_call"]
    assert calls == _expected("parallel_two_calls")


def _front_request(front: str, scenario_id: str, *, stream: bool) -> tuple[str, dict[str, Any]]:
    tools = _tools(scenario_id)
    if front == "chat":
        body: dict[str, Any] = {"model": f"callproof/{scenario_id}", "stream": stream,
                                "messages": [{"role": "user", "content": "weather?"}]}
        if tools:
            body["tools"] = [{"type": "function", "function": {"name": t["name"], "parameters": t["parameters"]}}
                             for t in tools]
        return "/chat/completions", body
    body = {"model": f"callproof/{scenario_id}", "max_tokens": 1024, "stream": stream,
            "messages": [{"role": "user", "content": "weather?"}]}
    if tools:
        body["tools"] = [{"name": t["name"], "input_schema": t["parameters"]} for t in tools]
    return "/messages", body


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("front", ["chat", "anthropic"])
def test_the_chat_and_anthropic_fronts_pass_the_checker(gateways: dict[str, str], front: Any, dialect: str) -> None:
    """Every stream and every 200 body the front writes, for these scenarios, passes every rule of its front."""
    failures: dict[str, tuple[str, ...]] = {}
    for scenario_id in CHECKED_SCENARIOS:
        for stream in (True, False):
            path, body = _front_request(front, scenario_id, stream=stream)
            answer = httpx.post(gateways[dialect] + path, json=body, timeout=10)
            if not stream and answer.status_code == 502:  # a failed upstream answer: the front's error body
                assert ("error" in answer.json()), answer.text
                continue
            assert answer.status_code == 200, (scenario_id, answer.text)
            report = (check_bytes if stream else check_body)(answer.content, front=front)
            if report.failed_rules:
                failures[f"{scenario_id} {'stream' if stream else 'body'}"] = report.failed_rules
    assert failures == {}


def _sse(content: bytes) -> list[tuple[str | None, str]]:
    """(event name, data) of each SSE event of a body written with LF line ends."""
    events = []
    for block in content.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            events.append((lines.get("event"), lines["data"]))
    return events


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("scenario_id", ["fault_disconnect_after_events", "fault_stream_error", "fault_truncate"])
def test_a_failed_upstream_never_ends_in_a_normal_finish(gateways: dict[str, str], dialect: str,
                                                         scenario_id: str) -> None:
    path, body = _front_request("chat", scenario_id, stream=True)
    chat = _sse(httpx.post(gateways[dialect] + path, json=body, timeout=10).content)
    assert "error" in json.loads(chat[-1][1])
    assert all(data != "[DONE]" and not any(c.get("finish_reason") for c in json.loads(data).get("choices", []))
               for _, data in chat)
    path, body = _front_request("anthropic", scenario_id, stream=True)
    events = [name for name, _ in _sse(httpx.post(gateways[dialect] + path, json=body, timeout=10).content)]
    assert events[-1] == "error"
    assert "message_stop" not in events and "message_delta" not in events


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_length_cut_is_each_fronts_length_finish(gateways: dict[str, str], dialect: str) -> None:
    with openai.OpenAI(base_url=gateways[dialect], api_key="callproof", max_retries=0, timeout=10) as client:
        completion = client.chat.completions.create(model="callproof/length_mid_text", max_completion_tokens=12,
                                                    messages=[{"role": "user", "content": "metro?"}])
    assert completion.choices[0].finish_reason == "length"
    assert completion.choices[0].message.content == SCENARIOS["length_mid_text"].expect.text
    root = gateways[dialect].removesuffix("/v1")
    with anthropic.Anthropic(base_url=root, api_key="callproof", max_retries=0, timeout=10) as client:
        message = client.messages.create(model="callproof/length_mid_text", max_tokens=12,
                                         messages=[{"role": "user", "content": "metro?"}])
    assert message.stop_reason == "max_tokens"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_upstream_429_stays_a_429_with_retry_after_at_every_front(gateways: dict[str, str], dialect: str) -> None:
    with (openai.OpenAI(base_url=gateways[dialect], api_key="callproof", max_retries=0, timeout=10) as client,
          pytest.raises(openai.RateLimitError) as chat):
        client.chat.completions.create(model="callproof/fault_http_429", messages=[{"role": "user", "content": "x"}])
    assert chat.value.response.headers["retry-after"] == "2"
    assert isinstance(chat.value.body, dict) and "message" in chat.value.body
    root = gateways[dialect].removesuffix("/v1")
    with (anthropic.Anthropic(base_url=root, api_key="callproof", max_retries=0, timeout=10) as client,
          pytest.raises(anthropic.RateLimitError) as messages):
        client.messages.create(model="callproof/fault_http_429", max_tokens=10,
                               messages=[{"role": "user", "content": "x"}])
    assert messages.value.response.headers["retry-after"] == "2"
    assert messages.value.response.json()["error"]["type"] == "rate_limit_error"


# -- request translation ------------------------------------------------------------------------------------------

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
CALL_ITEM = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'}

#: One conversation in each front's shape: instructions, an earlier call and its result, a tool, a named
#: tool_choice, parallel calls off, a token limit.
FRONT_BODIES: dict[str, dict[str, Any]] = {
    "responses": {
        "model": "m", "instructions": "Be brief.", "max_output_tokens": 99, "parallel_tool_calls": False,
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather.",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "input": [{"role": "user", "content": "Paris?"},
                  CALL_ITEM,
                  {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}],
    },
    "chat": {
        "model": "m", "max_completion_tokens": 99, "parallel_tool_calls": False,
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Weather.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Paris?"},
                     {"role": "assistant", "content": None, "tool_calls": [CALL]},
                     {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
    },
    "anthropic": {
        "model": "m", "max_tokens": 99, "system": "Be brief.",
        "tools": [{"name": "get_weather", "description": "Weather.",
                   "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
        "messages": [{"role": "user", "content": "Paris?"},
                     {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather",
                                                        "input": {"city": "Paris"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1",
                                                   "content": "sunny"}]}],
    },
}
#: What each upstream dialect must receive for any of them.
UPSTREAM_BODIES: dict[str, dict[str, Any]] = {
    "chat": {
        "model": "m", "stream": False, "max_completion_tokens": 99, "parallel_tool_calls": False,
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Weather.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Paris?"},
                     {"role": "assistant", "content": None, "tool_calls": [CALL]},
                     {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}],
    },
    "anthropic": {
        "model": "m", "stream": False, "max_tokens": 99, "system": "Be brief.",
        "tools": [{"name": "get_weather", "description": "Weather.",
                   "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Paris?"}]},
                     {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather",
                                                        "input": {"city": "Paris"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1",
                                                   "content": "sunny"}]}],
    },
    "responses": {
        "model": "m", "stream": False, "max_output_tokens": 99, "parallel_tool_calls": False,
        "instructions": "Be brief.",
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather.",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "input": [{"type": "message", "role": "user", "content": "Paris?"},
                  CALL_ITEM,
                  {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}],
    },
}
FRONT_CLASSES: dict[str, type[Front[Any]]] = {"responses": ResponsesFront, "chat": ChatFront,
                                              "anthropic": AnthropicFront}


@pytest.mark.parametrize("upstream", DIALECTS)
@pytest.mark.parametrize("front", DIALECTS)
def test_every_front_translates_into_every_upstream(front: str, upstream: str) -> None:
    request = FRONT_CLASSES[front]().parse_request(FRONT_BODIES[front])
    translated = UPSTREAMS[upstream]().translate_request(request)
    if upstream == "anthropic":  # the arguments text is parsed: its spacing is not kept
        translated["messages"][1]["content"][0]["input"] = dict(translated["messages"][1]["content"][0]["input"])
    elif front == "anthropic":  # the input object is serialised anew
        calls = translated["messages"][2]["tool_calls"] if upstream == "chat" else [translated["input"][1]]
        for call in calls:
            function = call.get("function", call)
            function["arguments"] = json.dumps(json.loads(function["arguments"]), separators=(",", ":"))
    assert translated == UPSTREAM_BODIES[upstream]


@pytest.mark.parametrize("upstream", DIALECTS)
def test_an_anthropic_request_without_tools_choice_or_limit_still_has_max_tokens(upstream: str) -> None:
    request = ResponsesFront().parse_request({"model": "m", "input": "hi"})
    translated = UPSTREAMS[upstream]().translate_request(request)
    assert ("max_tokens" in translated) == (upstream == "anthropic")
    assert "tool_choice" not in translated and "tools" not in translated


def _tool_chunk(**call: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}


def test_the_chat_upstream_keys_deltas_without_index_by_their_ids() -> None:
    """docs/spec/verdicts.md §12: parallel calls whose deltas carry their ids but no index (Gemini) stay two calls, a
    delta with the id of an indexed call continues it; with neither index nor id the delta's position decides."""
    upstream, state = ChatUpstream(), ReadState()
    chunks = [_tool_chunk(id="call_a", type="function", function={"name": "get_weather", "arguments": ""}),
              _tool_chunk(id="call_a", function={"arguments": '{"city":"Paris"}'}),
              _tool_chunk(id="call_b", type="function", function={"name": "get_time", "arguments": ""}),
              _tool_chunk(id="call_b", function={"arguments": '{"tz":"CET"}'}),
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    events = [e for chunk in chunks for e in upstream.on_chunk(state, chunk)] + upstream.finish(state)
    assert events == [CallStart(0, "call_a", "get_weather"), ArgumentsDelta(0, '{"city":"Paris"}'),
                      CallStart(1, "call_b", "get_time"), ArgumentsDelta(1, '{"tz":"CET"}'), Finish("stop")]
    mixed = ReadState()
    events = [e for chunk in [_tool_chunk(index=0, id="call_a", function={"name": "f", "arguments": ""}),
                              _tool_chunk(id="call_a", function={"arguments": "{}"}),
                              _tool_chunk(function={"arguments": ""})]
              for e in upstream.on_chunk(mixed, chunk)]
    assert events == [CallStart(0, "call_a", "f"), ArgumentsDelta(0, "{}")] and list(mixed.calls) == [0]
