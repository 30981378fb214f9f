"""The mock's Responses WebSocket mode (docs/mock.md#websocket-mode) against a real uvicorn server on 127.0.0.1: the
`websockets` client and openai-python's `client.responses.connect()`; every server message validated against the
SDK's `ResponsesServerEvent`. Timing is asserted on the journal's stamps and the order of messages, never on wall
time."""

from __future__ import annotations

import argparse
import itertools
import json
import time
import typing
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import BaseModel, TypeAdapter, ValidationError
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.sync.connection import Connection

from callproof.harness.check import check_websocket_transcript
from callproof.harness.cli._mock_command import add_arguments
from callproof.harness.scenario import FAULTS, Fault, Scenario, bundled_scenarios
from callproof.mock_server import Journal, MockServer, VirtualClock, create_app
from callproof.mock_server._inject import WS_FAULTS
from callproof.mock_server._pytest import start_fixture_server
from callproof.mock_server._websocket import turn_plan
from tests.mock_server.support import SCENARIOS

SERVER_EVENT: TypeAdapter[Any] = TypeAdapter(ResponsesServerEvent)
#: The union's members by the `type` they declare, to name the member a message fails (the union's own error lists
#: every member).
MEMBERS: dict[str, list[type[BaseModel]]] = {}
for _member in typing.get_args(typing.get_args(ResponsesServerEvent)[0]):
    for _literal in typing.get_args(_member.model_fields["type"].annotation):
        MEMBERS.setdefault(_literal, []).append(_member)
TERMINAL = {"response.completed", "response.failed", "response.incomplete", "error"}
TIMEOUT = 10.0


def _variant(base: str, new: str, **params: Any) -> Scenario:
    scenario = SCENARIOS[base]
    return replace(scenario, id=new, faults=tuple(replace(f, params={**f.params, **params}) for f in scenario.faults))


EXTRA = {
    s.id: s for s in (
        _variant("f_disconnect_events", "ws_close_4001", close_code=4001),
        replace(SCENARIOS["f_crlf"], id="ws_framing", faults=(replace(SCENARIOS["f_crlf"].faults[0], kind="framing",
                                                                      params={"style": "multiline_data"}),)),
    )
}
_LOOP = bundled_scenarios()["agent_loop_tool_result"]
#: A sequence whose first leg closes the socket with 4002: the leg's fault, not the sequence's, decides.
EXTRA["ws_leg_close"] = replace(_LOOP, id="ws_leg_close", legs=(
    replace(_LOOP.legs[0], scenario=replace(_LOOP.legs[0].scenario, faults=(
        Fault("disconnect", params={"after_events": 2, "close_code": 4002}),))), *_LOOP.legs[1:]))
ALL = {**SCENARIOS, **EXTRA}


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(ALL, strict=True) as server:
        yield server


@pytest.fixture
def server(mock: MockServer) -> MockServer:
    mock.journal.reset()
    return mock


def _url(server: MockServer, path: str = "/v1/responses") -> str:
    return server.root_url.replace("http://", "ws://") + path


def _create(scenario: str, **extra: Any) -> str:
    return json.dumps({"type": "response.create", "model": f"callproof/{scenario}", "input": "Hello", **extra})


def _turn(ws: Connection) -> list[dict[str, Any]]:
    """The messages up to the turn's terminal event (or the error event standing for it)."""
    out: list[dict[str, Any]] = []
    while True:
        message = json.loads(ws.recv(timeout=TIMEOUT))
        out.append(message)
        if message["type"] in TERMINAL:
            return out


def _problem(message: Any) -> str | None:
    """Why `message` is not a ResponsesServerEvent (the errors of the members of its type), or None."""
    try:
        SERVER_EVENT.validate_python(message)
    except ValidationError:
        kind = message.get("type") if isinstance(message, dict) else None
        members = MEMBERS.get(kind, []) if isinstance(kind, str) else []
        if not members:
            return f"no ResponsesServerEvent has type {kind!r}"
        problems = []
        for member in members:
            try:
                member.model_validate(message)
            except ValidationError as exc:
                problems.append(f"{member.__name__}: {exc}")
        return "; ".join(problems)
    return None


def _valid(messages: list[dict[str, Any]], what: str = "") -> None:
    for i, message in enumerate(messages):
        problem = _problem(message)
        assert problem is None, f"{what} message {i} ({message.get('type')}): {problem}"


def _closed(ws: Connection) -> tuple[list[str], int | None, str]:
    """The messages until the server closes, and its close code and reason."""
    texts: list[str] = []
    try:
        while True:
            texts.append(str(ws.recv(timeout=TIMEOUT)))
    except ConnectionClosed as closed:
        frame = closed.rcvd
        return texts, frame.code if frame else None, frame.reason if frame else ""


def _end(journal: Journal, request: int) -> str:
    """The journaled outcome of `request`, once recorded (the server thread records it after the close)."""
    deadline = time.monotonic() + TIMEOUT
    while (end := journal.end(request)) is None:
        assert time.monotonic() < deadline, f"request {request} never ended in the journal"
        time.sleep(0.005)
    return end.outcome


# -- the SDK's three-turn tool loop ------------------------------------------------------------------------------


def test_openai_connect_completes_a_three_turn_tool_loop(server: MockServer) -> None:
    with openai.OpenAI(base_url=server.url, api_key="callproof", max_retries=0) as client:
        tools: list[Any] = [{"type": "function", "name": n, "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}}}, "strict": False} for n in ("get_weather", "get_forecast")]
        raw: list[bytes] = []
        with client.responses.connect() as conn:

            def turn() -> Any:
                while True:
                    data = conn.recv_bytes()
                    raw.append(data)
                    event = conn.parse_event(data)
                    if event.type in TERMINAL:
                        return event

            conn.response.create(model="callproof/agent_loop_three_turns", tools=tools,
                                 input=[{"role": "user", "content": "Weather in Paris today and tomorrow?"}])
            first = turn()
            assert first.type == "response.completed"

            def answered(previous: Any, name: str, call_id: str) -> Any:
                """The next turn, after the call of `previous` (checked by name and id) got its result."""
                [call] = [o for o in previous.response.output if o.type == "function_call"]
                assert (call.name, call.call_id) == (name, call_id)
                conn.response.create(model="callproof/agent_loop_three_turns", tools=tools,
                                     previous_response_id=previous.response.id,
                                     input=[{"type": "function_call_output", "call_id": call.call_id,
                                             "output": f"{name} ok {call_id}"}])
                return turn()

            second = answered(first, "get_weather", "call_three_weather")
            assert second.type == "response.completed", second
            third = answered(second, "get_forecast", "call_three_forecast")
            assert third.type == "response.completed", third
            assert third.response.output_text == "Sunny today, rain tomorrow in Paris."
        _valid([json.loads(data) for data in raw], "the SDK loop")
        turns = server.journal.requests()
        assert [(r.transport, r.turn, r.leg, r.status) for r in turns] == [
            ("websocket", 0, 0, 200), ("websocket", 1, 1, 200), ("websocket", 2, 2, 200)]
        assert len({r.connection for r in turns}) == 1
        assert [r.previous_response_id for r in turns] == [None, first.response.id, second.response.id]
        assert turns[1].body["type"] == "response.create"  # the client's message, as sent


# -- every bundled scenario in the responses dialect --------------------------------------------------------------


def _plays_valid(scenario: Scenario) -> bool:
    """Not raw and not breaking the protocol on purpose in the responses dialect (`breaks`), and no fault that
    cuts a message's JSON (malformed): every message it sends should validate."""
    faults = [*scenario.faults, *(f for leg in scenario.legs for f in leg.scenario.faults)]
    return "responses" not in scenario.raw and not scenario.breaks.get("responses") and not any(
        f.kind == "malformed" for f in faults)


BUNDLED = sorted(s.id for s in bundled_scenarios().values() if _plays_valid(s))


def test_every_bundled_scenario_plays_messages_the_sdk_types_accept() -> None:
    """Each scenario on a connection of its own (a fault may close it), its first turn (a sequence's first leg)
    read to its terminal event or the close; every message, error events included, a ResponsesServerEvent."""
    assert len(BUNDLED) > 100
    with MockServer(strict=True, clock=VirtualClock()) as vserver:
        for sid in BUNDLED:
            with connect(_url(vserver), max_size=None) as ws:
                ws.send(_create(sid))
                messages: list[dict[str, Any]] = []
                closed = False
                try:
                    while not messages or messages[-1]["type"] not in TERMINAL:
                        messages.append(json.loads(ws.recv(timeout=TIMEOUT)))
                except ConnectionClosed:
                    closed = True  # a disconnect or truncate fault
            assert messages or closed, sid
            _valid(messages, sid)


@pytest.mark.parametrize("sid", ["one_call", "text_only", "f_stall", "f_stream_error", "t_gap"])
def test_the_same_events_in_the_same_order_as_the_sse_stream(server: MockServer, sid: str) -> None:
    body = {"model": f"callproof/{sid}", "input": "Hello"}
    with httpx.Client(timeout=TIMEOUT) as client:
        sse = client.post(server.url + "/responses", json={**body, "stream": True}).text
    events = [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]
    with connect(_url(server)) as ws:
        ws.send(json.dumps({"type": "response.create", **body}))
        played = _turn(ws)
    http, turn = server.journal.requests()
    # The same events but the response id, the turn's own (`<the SSE id>_ws<connection>t<turn>`).
    sse_id = events[0]["response"]["id"]
    ws_id = f"{sse_id}_ws{turn.connection}t0"
    assert played[0]["response"]["id"] == ws_id
    assert json.loads(json.dumps(played).replace(f'"{ws_id}"', f'"{sse_id}"')) == events
    assert (http.transport, turn.transport) == ("http", "websocket")
    assert turn.connection is not None and http.connection is None


def test_messages_leave_at_the_scripted_offsets() -> None:
    """Each message is due at the offset of the SSE write that completes its event (a pure check of the plan)."""
    upstream = create_app(ALL, strict=True).upstream  # type: ignore[attr-defined]
    for sid in ("t_gap", "f_stall", "f_fragment", "f_slow_first_byte", "f_keepalive", "t_ttft"):
        plan = upstream._plan(ALL[sid], upstream.renderers["responses"], True, {"input": "Hello"}, None, ())
        played = turn_plan(plan, ALL[sid])
        offsets = [m.at for m in played.messages]
        assert offsets == sorted(offsets) and set(offsets) <= {w.at for w in plan.writes}, sid
        assert offsets[0] == plan.writes[0].at == plan.first_byte and played.end_at == plan.end_at
        assert len(played.messages) == plan.events


@pytest.mark.timing
def test_gaps_in_the_journal_match_the_script(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("f_stall"))
        _turn(ws)
    [turn] = server.journal.requests()
    stamps = [w.time - turn.start for w in server.journal.writes(turn.id)]
    upstream = server.app.upstream  # type: ignore[attr-defined]
    plan = upstream._plan(ALL["f_stall"], upstream.renderers["responses"], True, {"input": "Hello"}, None, ())
    scripted = [m.at for m in turn_plan(plan, ALL["f_stall"]).messages]
    assert len(stamps) == len(scripted) and max(b - a for a, b in itertools.pairwise(scripted)) >= 0.2
    assert all(stamp >= at for stamp, at in zip(stamps, scripted, strict=True))  # none leaves before it is due


# -- the mode's rules --------------------------------------------------------------------------------------------


@pytest.mark.timing
def test_a_second_create_while_one_streams_gets_an_error_and_the_first_goes_on(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("t_gap"))
        ws.send(_create("one_call"))
        messages = _turn(ws)
        if messages[-1]["type"] == "error":  # the refusal may come before the first response's end
            messages += _turn(ws)
    types = [m["type"] for m in messages]
    errors = [m for m in messages if m["type"] == "error"]
    assert len(errors) == 1 and errors[0]["error"]["code"] == "response_already_in_flight"
    assert errors[0]["status"] == 400 and types[-1] == "response.completed"
    assert types.index("error") < types.index("response.completed")
    _valid(messages)
    first, second = server.journal.requests()
    assert (first.status, first.scenario, second.status, second.turn) == (200, "t_gap", 400, 1)
    assert b"response_already_in_flight" in server.journal.body_of(second.id)


def test_each_turn_of_a_continuation_loop_has_its_own_response_id(server: MockServer) -> None:
    ids: list[str] = []
    transcript: list[str] = []
    with connect(_url(server)) as ws:
        for _ in range(3):
            extra = {"previous_response_id": ids[-1]} if ids else {}
            ws.send(_create("one_call", **extra))
            messages = _turn(ws)
            transcript += [_create("one_call", **extra), *(json.dumps(m) for m in messages)]
            own = {m["response"]["id"] for m in messages if isinstance(m.get("response"), dict)}
            assert len(own) == 1 and messages[-1]["type"] == "response.completed"
            assert all(m["response_id"] in own for m in messages if "response_id" in m)
            if ids:
                assert messages[0]["response"]["previous_response_id"] == ids[-1]
            ids.append(own.pop())
    assert len(set(ids)) == 3
    report = check_websocket_transcript("\n".join(transcript).encode() + b"\n")
    assert [r.rule.id for r in report.failed] == [], report.failed
    assert any(r.rule.id == "RSP-WS-003" and r.outcome == "passed" for r in report.results)
    turns = [r for r in server.journal.requests() if r.transport == "websocket"][-3:]
    assert [r.status for r in turns] == [200, 200, 200]
    assert [r.previous_response_id for r in turns] == [None, ids[0], ids[1]]


def test_previous_response_id_must_name_the_connections_last_response(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("text_only", previous_response_id="resp_unknown"))
        [error] = _turn(ws)
        assert error["error"]["code"] == "previous_response_not_found" and error["status"] == 400
        assert error["error"]["param"] == "previous_response_id"
        ws.send(_create("text_only"))
        done = _turn(ws)[-1]
        last = done["response"]["id"]
        ws.send(_create("text_only", previous_response_id=last))
        again = _turn(ws)
        assert again[-1]["type"] == "response.completed"
        assert again[-1]["response"]["previous_response_id"] == last
        _valid([error, done, *again])
    refused, _, continued = server.journal.requests()
    assert (refused.status, refused.previous_response_id) == (400, "resp_unknown")
    assert (continued.status, continued.previous_response_id, continued.turn) == (200, last, 2)
    with connect(_url(server)) as other:  # another connection does not know it
        other.send(_create("text_only", previous_response_id=last))
        assert _turn(other)[0]["error"]["code"] == "previous_response_not_found"


def test_a_tool_without_a_name_gets_the_error_event_of_the_real_400_and_the_connection_stays(
        server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("text_only", tools=[{"type": "function", "parameters": {"type": "object"}}]))
        [error] = _turn(ws)
        assert error["status"] == 400 and error["error"]["code"] == "missing_required_parameter"
        assert error["error"]["param"] == "tools[0].name"
        assert error["error"]["message"] == "Missing required parameter: 'tools[0].name'."
        _valid([error])
        ws.send(_create("text_only"))
        assert _turn(ws)[-1]["type"] == "response.completed"
    assert [r.status for r in server.journal.requests()] == [400, 200]


def test_generate_false_answers_a_response_without_output_that_a_turn_continues(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("text_only", generate=False, instructions="Be brief."))
        warm = _turn(ws)
        assert [m["type"] for m in warm] == ["response.created", "response.in_progress", "response.completed"]
        assert warm[-1]["response"]["output"] == [] and warm[-1]["response"]["instructions"] == "Be brief."
        ws.send(_create("text_only", previous_response_id=warm[-1]["response"]["id"]))
        assert _turn(ws)[-1]["type"] == "response.completed"
        _valid(warm)
    warmup, turn = server.journal.requests()
    assert (warmup.scenario, warmup.how, turn.scenario) == ("websocket_warmup", "generate: false", "text_only")


def test_malformed_json_and_unknown_types_get_error_events_and_the_connection_stays(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send("{not json")
        bad = json.loads(ws.recv(timeout=TIMEOUT))
        ws.send(json.dumps({"type": "response.cancel"}))
        unknown = json.loads(ws.recv(timeout=TIMEOUT))
        ws.send(_create("text_only"))
        assert _turn(ws)[-1]["type"] == "response.completed"
    assert (bad["error"]["code"], unknown["error"]["code"]) == ("invalid_json", "unknown_event_type")
    _valid([bad, unknown])
    assert len(server.journal.requests()) == 1  # only the response.create is a request


@pytest.mark.timing
def test_the_connection_limit_sends_its_error_event_then_closes_1000() -> None:
    with MockServer(ALL, strict=True, ws_connection_limit=0.3) as limited, connect(_url(limited)) as ws:
        texts, code, reason = _closed(ws)  # an idle connection: the limit's error event, then the close
    [error] = [json.loads(t) for t in texts]
    assert error["error"]["code"] == "websocket_connection_limit_reached" and code == 1000
    assert reason == "websocket_connection_limit_reached"
    _valid([error])


@pytest.mark.timing
def test_a_turn_in_flight_at_the_limit_is_journaled_aborted() -> None:
    with MockServer(ALL, strict=True, ws_connection_limit=0.2) as limited, connect(_url(limited)) as ws:
        ws.send(_create("stalled"))
        texts, code, _ = _closed(ws)
        [turn] = limited.journal.requests()
        outcome = _end(limited.journal, turn.id)
    assert json.loads(texts[-1])["error"]["code"] == "websocket_connection_limit_reached" and code == 1000
    assert outcome == "aborted"


def test_other_paths_are_refused_with_a_close_code_and_reason(server: MockServer) -> None:
    for path in ("/v1/chat/completions", "/_callproof/journal", "/v1/responsesx"):
        with connect(_url(server, path)) as ws:
            texts, code, reason = _closed(ws)
        assert (texts, code) == ([], 1008) and "responses" in reason


def test_the_journal_and_the_control_api_show_the_websocket_fields(server: MockServer) -> None:
    with connect(_url(server, "/openai/v1/responses"), additional_headers={
            "x-callproof-scenario": "text_only", "authorization": "Bearer sk-secret"}) as ws:
        ws.send(json.dumps({"type": "response.create", "model": "gpt-x",
                            "input": "Hi [callproof:case=ws-case-1]"}))
        messages = _turn(ws)
        ws.send(json.dumps({"type": "response.create", "model": "gpt-x", "input": "again",
                            "previous_response_id": messages[-1]["response"]["id"]}))
        _turn(ws)
    first, second = server.journal.requests()
    assert (first.path, first.scenario, first.how, first.case) == (
        "/openai/v1/responses", "text_only", "header x-callproof-scenario", "ws-case-1")
    assert second.case == "ws-case-1"  # a continuation belongs to the conversation's case
    assert first.headers["authorization"] == "[redacted]" and first.dialect == "responses" and first.stream
    lines = server.journal.body_of(first.id).decode().splitlines()
    assert [json.loads(line) for line in lines] == messages
    assert _end(server.journal, first.id) == "completed"
    with httpx.Client(timeout=TIMEOUT) as client:
        text = client.get(server.root_url + "/_callproof/journal", params={"case": "ws-case-1"}).text
    records = [json.loads(line) for line in text.splitlines() if '"kind": "request"' in line]
    assert [(r["transport"], r["connection"], r["turn"]) for r in records] == [
        ("websocket", first.connection, 0), ("websocket", first.connection, 1)]


def test_stream_id_is_echoed_on_every_message(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("text_only", stream_id="lane-1"))
        messages = _turn(ws)
    assert {m["stream_id"] for m in messages} == {"lane-1"}
    _valid(messages)


def test_a_sequence_takes_its_legs_turn_by_turn_on_one_connection(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        results = []
        for _ in range(3):
            ws.send(_create("retry_429_twice_then_stream"))
            results.append(_turn(ws))
    assert [r[-1]["type"] for r in results] == ["error", "error", "response.completed"]
    assert results[0][-1]["status"] == 429 and results[0][-1]["error"]["headers"]["retry-after"] == "1"
    assert [r.leg for r in server.journal.requests()] == [0, 1, 2]


# -- faults over a socket ----------------------------------------------------------------------------------------


def test_every_fault_kind_has_a_websocket_play() -> None:
    assert set(WS_FAULTS) == set(FAULTS)


@pytest.mark.parametrize(("sid", "code"), [("f_disconnect_events", 1011), ("f_truncate", 1011), ("ws_close_4001", 4001),
                                           ("f_disconnect_bytes", 1011), ("ws_leg_close", 4002)])
def test_disconnect_and_truncate_close_the_socket_mid_response(server: MockServer, sid: str, code: int) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create(sid))
        texts, closed, reason = _closed(ws)
    messages = [json.loads(t) for t in texts]
    kind = "truncate" if "truncate" in sid else "disconnect"
    assert closed == code and reason == f"callproof mock: scripted {kind} fault"
    assert not {m["type"] for m in messages} & TERMINAL  # after_bytes 100 cuts inside the first event: none
    assert messages or sid == "f_disconnect_bytes"
    _valid(messages)
    [turn] = server.journal.requests()
    assert _end(server.journal, turn.id) == "aborted"


def test_stream_error_is_the_failed_event_and_http_error_an_error_event_with_its_status(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("f_stream_error"))
        failed = _turn(ws)
        ws.send(_create("f_503"))
        [error] = _turn(ws)
        ws.send(_create("text_only"))  # the socket stays open
        assert _turn(ws)[-1]["type"] == "response.completed"
    assert failed[-1]["type"] == "response.failed"
    assert error["status"] == 503 and error["error"]["type"] and error["error"]["headers"]["retry-after"] == "1"
    _valid([*failed, error])


def test_malformed_sends_the_cut_json_and_keeps_the_socket(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("f_malformed"))
        texts = []
        while True:
            text = str(ws.recv(timeout=TIMEOUT))
            texts.append(text)
            if '"response.completed"' in text:
                break
        ws.send(_create("text_only"))
        assert _turn(ws)[-1]["type"] == "response.completed"
    broken = [t for t in texts if not _is_json(t)]
    assert len(broken) == 1


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("sid", ["f_keepalive", "f_fragment", "f_crlf", "ws_framing"])
def test_framing_faults_change_no_message(server: MockServer, sid: str) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("one_call"))
        plain = _turn(ws)
        ws.send(_create(sid))
        framed = _turn(ws)
    assert _ids_out(framed) == _ids_out(plain)


def _ids_out(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What the messages carry, without the ids and obfuscation derived from the scenario id."""
    return [(m["type"], m.get("sequence_number"), m.get("delta"), m.get("arguments")) for m in messages]


@pytest.mark.timing
def test_closing_mid_turn_is_journaled_cancelled(server: MockServer) -> None:
    with connect(_url(server)) as ws:
        ws.send(_create("stalled"))
        first = json.loads(ws.recv(timeout=TIMEOUT))
    assert first["type"] == "response.created"
    [turn] = server.journal.requests()
    assert _end(server.journal, turn.id) == "cancelled"
    end = server.journal.end(turn.id)
    assert end is not None and end.time >= turn.start


def test_the_fixture_server_serves_the_websocket_mode(tmp_path: Path) -> None:
    fixture = start_fixture_server([], 0, tmp_path)
    try:
        with connect(_url(fixture)) as ws:
            ws.send(_create("one_call"))
            messages = _turn(ws)
        assert messages[-1]["type"] == "response.completed"
        [turn] = fixture.journal.requests()
        assert turn.transport == "websocket"
    finally:
        fixture.stop()


def test_callproof_mock_takes_the_connection_limit_and_refuses_a_bad_one(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--ws-connection-limit", "1.5"]).ws_connection_limit == 1.5
    assert parser.parse_args([]).ws_connection_limit == 3600.0
    for bad in ("0", "-1", "abc", "inf"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--ws-connection-limit", bad])
    assert "--ws-connection-limit" in capsys.readouterr().err
