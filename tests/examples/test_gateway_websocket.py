"""The reference gateway's Responses WebSocket front (examples/gateway/fronts/websocket.py) and its WebSocket
upstream (examples/gateway/upstreams/websocket.py), on real servers on 127.0.0.1 (the mock and the gateway on
uvicorn): the mode's own answers (one response in flight, continuations rebuilt for a stateless upstream or
refused, warm-ups, upstream failures as error events on a socket that stays open, a close that cancels the
upstream) and the openai SDK's `client.responses.connect()` through the front (docs/spec/gateway-websocket.md)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect
from websockets.sync.connection import Connection

from callproof.harness.request import front_request, new_case_tag, tool_output
from callproof.mock_server import MockServer, bundled_scenarios
from examples.gateway import create_app

SCENARIOS = bundled_scenarios()
TERMINAL = ("response.completed", "response.incomplete", "response.failed", "error")


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(strict=True) as server:
        yield server


def _serve(app: Any) -> tuple[uvicorn.Server, threading.Thread, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the gateway did not start"
        time.sleep(0.01)
    return server, thread, sock.getsockname()[1]


@pytest.fixture(scope="module")
def gateways(mock: MockServer) -> Iterator[dict[str, int]]:
    """The gateway's port over a Chat upstream (HTTP) and over a Responses upstream over WebSocket."""
    apps = {"chat": create_app(mock.url), "websocket": create_app(mock.url, dialect="responses",
                                                                 upstream_transport="websocket")}
    served = {name: _serve(app) for name, app in apps.items()}
    yield {name: port for name, (_, _, port) in served.items()}
    for server, thread, _ in served.values():
        server.should_exit = True
        thread.join(timeout=10)


def _create(scenario_id: str, case: str | None = None, **extra: Any) -> dict[str, Any]:
    body = front_request(scenario_id, SCENARIOS[scenario_id].request, case=case or new_case_tag(), dialect="responses")
    body.pop("stream")
    return {"type": "response.create", **body, **extra}


def _turn(ws: Connection) -> list[dict[str, Any]]:
    """Messages up to a terminal or error event."""
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] not in TERMINAL:
        events.append(json.loads(ws.recv(timeout=10)))
    return events


def _socket(port: int) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{port}/v1/responses", proxy=None)


def test_a_second_create_in_flight_gets_response_already_in_flight(gateways: dict[str, int]) -> None:
    with _socket(gateways["chat"]) as ws:
        ws.send(json.dumps(_create("timing_ttft_and_gaps")))
        ws.send(json.dumps(_create("one_call")))
        events = _turn(ws) + _turn(ws)  # the refusal (sent as the second create came), then the first's end
    kinds = [e["type"] for e in events]
    assert "error" in kinds and kinds[-1] == "response.completed", kinds
    (refusal,) = [e for e in events if e["type"] == "error"]
    assert refusal["error"]["code"] == "response_already_in_flight" and refusal["status"] == 400
    assert kinds.count("response.created") == 1  # the first response went on; the second was not played


@pytest.mark.parametrize("upstream", ["chat", "websocket"])
def test_a_continuation_reaches_the_stateless_upstream_with_the_earlier_items(
    mock: MockServer, gateways: dict[str, int], upstream: str,
) -> None:
    case = new_case_tag()
    with _socket(gateways[upstream]) as ws:
        ws.send(json.dumps(_create("agent_loop_tool_result", case)))
        first = _turn(ws)[-1]["response"]
        call = next(item for item in first["output"] if item["type"] == "function_call")
        output = tool_output(call["name"], call["arguments"], call["call_id"]).output
        ws.send(json.dumps({"type": "response.create", "model": "m", "previous_response_id": first["id"],
                            "input": [{"type": "function_call_output", "call_id": call["call_id"],
                                       "output": output}]}))
        second = _turn(ws)
    assert second[-1]["type"] == "response.completed", second[-1]
    assert second[-1]["response"]["output"][0]["content"][0]["text"] == "It is 18 degrees and sunny in Paris."
    bodies = [r.body for r in mock.journal.requests(case=case)]
    assert len(bodies) == 2
    text = json.dumps(bodies[1])
    assert case in text and call["call_id"] in text and output in text  # the question, the call, its output


def test_an_unknown_previous_response_is_refused_with_the_documented_error(gateways: dict[str, int]) -> None:
    with _socket(gateways["chat"]) as ws:
        ws.send(json.dumps({"type": "response.create", "model": "m", "previous_response_id": "resp_unknown",
                            "input": "hello"}))
        (event,) = _turn(ws)
        ws.send(json.dumps(_create("one_call")))  # the socket still serves
        assert _turn(ws)[-1]["type"] == "response.completed"
    assert event["status"] == 400
    assert event["error"]["code"] == "previous_response_not_found"
    assert event["error"]["param"] == "previous_response_id"
    assert event["error"]["type"] == "invalid_request_error"


def test_a_warm_up_calls_no_upstream_and_is_continued(mock: MockServer, gateways: dict[str, int]) -> None:
    case = new_case_tag()
    with _socket(gateways["chat"]) as ws:
        ws.send(json.dumps(_create("one_call", case, generate=False)))
        warm = _turn(ws)
        assert [e["type"] for e in warm] == ["response.created", "response.in_progress", "response.completed"]
        assert warm[-1]["response"]["output"] == []
        assert mock.journal.requests(case=case) == []
        ws.send(json.dumps({"type": "response.create", "model": "m", "previous_response_id": warm[-1]["response"]["id"],
                            "input": [], "tools": SCENARIOS["one_call"].request["tools"]}))
        assert _turn(ws)[-1]["type"] == "response.completed"
    (request,) = mock.journal.requests(case=case)  # the warm-up's input reached the upstream on the next turn
    assert case in json.dumps(request.body)


@pytest.mark.parametrize("upstream", ["chat", "websocket"])
def test_an_upstream_http_error_is_an_error_event_and_the_socket_stays(gateways: dict[str, int], upstream: str) -> None:
    with _socket(gateways[upstream]) as ws:
        ws.send(json.dumps(_create("fault_http_429")))
        (event,) = _turn(ws)
        ws.send(json.dumps(_create("one_call")))
        after = _turn(ws)
    assert event["type"] == "error" and event["status"] == 429
    assert event["error"]["headers"]["retry-after"]
    assert after[-1]["type"] == "response.completed"


def test_a_cut_upstream_is_response_failed_and_the_socket_stays(gateways: dict[str, int]) -> None:
    with _socket(gateways["chat"]) as ws:
        ws.send(json.dumps(_create("fault_disconnect_after_events")))
        failed = _turn(ws)
        ws.send(json.dumps(_create("one_call")))
        after = _turn(ws)
    assert failed[-1]["type"] == "response.failed"
    assert after[-1]["type"] == "response.completed"


def test_closing_the_socket_cancels_the_websocket_upstream_turn(mock: MockServer, gateways: dict[str, int]) -> None:
    case = new_case_tag()
    with _socket(gateways["websocket"]) as ws:  # leaving the block closes the socket
        ws.send(json.dumps(_create("cancel_mid_stream", case)))
        for _ in range(3):
            ws.recv(timeout=10)
    deadline = time.monotonic() + 10
    while True:
        (request,) = mock.journal.requests(case=case)
        end = mock.journal.end(request.id)
        if end is not None or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert end is not None and end.outcome == "cancelled"


def test_the_openai_sdk_runs_a_three_turn_tool_loop_through_the_front(
    mock: MockServer, gateways: dict[str, int],
) -> None:
    """openai-python's `client.responses.connect()` against the front over a Chat upstream: each turn continues
    the last with previous_response_id and the tool outputs only; the gateway rebuilds the conversation."""
    case = new_case_tag()
    body: Any = _create("agent_loop_three_turns", case)
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{gateways['chat']}/v1", api_key="callproof", max_retries=0)
    turns: list[Any] = []
    with client, client.responses.connect() as connection:
        connection.send(body)
        while True:
            final = None
            for event in connection:
                if event.type in ("response.completed", "response.failed", "response.incomplete", "error"):
                    final = event
                    break
            assert final is not None and final.type == "response.completed", final
            turns.append(final.response)
            calls = [item for item in final.response.output if item.type == "function_call"]
            if not calls:
                break
            continuation: Any = {"type": "response.create", "model": body["model"], "tools": body["tools"],
                             "previous_response_id": final.response.id,
                             "input": [{"type": "function_call_output", "call_id": c.call_id,
                                        "output": tool_output(c.name, c.arguments, c.call_id).output}
                                       for c in calls]}
            connection.send(continuation)
    assert len(turns) == 3
    bodies = [r.body for r in mock.journal.requests(case=case)]
    assert len(bodies) == 3
    assert all(case in json.dumps(b) for b in bodies)  # every turn carried the first question
