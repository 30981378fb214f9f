"""The app on a real server: routes under any prefix, scenario selection (docs/spec/contracts.md §3), strict 404
with the nearest ids, 400/413 in each dialect's error shape (a tool without a name as the real upstreams answer
it), the journal and the control API; and timing logic
in-process on a VirtualClock (no real sleeps)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from callproof.mock_server import Journal, MockServer, VirtualClock, bundled_scenarios, create_app, make_plan
from callproof.mock_server.dialects import RENDERERS, Dialect, RenderContext
from tests.fakes import tls
from tests.mock_server.support import DIALECTS, PATHS, SCENARIOS, TIMEOUT, Mock, expected_stream, request_body

CASE = "0b6f1c9e-3d2a-4e8f-9a71-5c4d2e1f0a3b"


def error_message(dialect: Dialect, body: bytes) -> str:
    doc = json.loads(body)
    if dialect == "anthropic":
        assert doc["type"] == "error"
    return str(doc["error"]["message"])


# -- routing and selection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("prefix", ["/v1", "", "/openai/v1", "/v1/v1"])
def test_endpoints_answer_under_any_prefix(mock: Mock, dialect: Dialect, prefix: str) -> None:
    body = request_body(dialect, "one_call")
    got = mock.post(dialect, body, path=prefix + PATHS[dialect])
    assert got.status == 200 and got.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert got.headers["cache-control"] == "no-cache" and got.headers["x-callproof-scenario"] == "one_call"
    assert got.body == expected_stream(dialect, "one_call", body)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_non_stream_requests_get_the_json_body(mock: Mock, dialect: Dialect) -> None:
    body = request_body(dialect, "one_call", stream=False)
    got = mock.post(dialect, body)
    assert got.status == 200 and got.headers["content-type"] == "application/json"
    ctx = RenderContext(model=body["model"], request=body)
    assert json.loads(got.body) == RENDERERS[dialect].body(SCENARIOS["one_call"], ctx)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_selection_order_is_header_then_marker_then_model(mock: Mock, dialect: Dialect) -> None:
    marked = request_body(dialect, "text_only", text="[callproof:scenario=one_call] hi")
    assert mock.post(dialect, marked).headers["x-callproof-scenario"] == "one_call"
    got = mock.post(dialect, marked, headers={"x-callproof-scenario": "default"})
    assert got.headers["x-callproof-scenario"] == "default"
    assert mock.post(dialect, request_body(dialect, "text_only")).headers["x-callproof-scenario"] == "text_only"
    assert [r.scenario for r in mock.server.journal.requests()] == ["one_call", "default", "text_only"]


def test_the_marker_is_found_anywhere_in_the_body_text(mock: Mock) -> None:
    body = request_body("chat", None)
    body["messages"].insert(0, {"role": "system", "content": "tools... [callproof:scenario=one_call] ..."})
    assert mock.post("chat", body).headers["x-callproof-scenario"] == "one_call"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_strict_mode_answers_404_listing_the_nearest_ids(mock: Mock, dialect: Dialect) -> None:
    got = mock.post(dialect, request_body(dialect, "one_cal"))
    assert got.status == 404
    message = error_message(dialect, got.body)
    assert "'one_cal'" in message and "model callproof/<id>" in message and "one_call" in message
    assert got.headers["x-callproof-nearest"].split(",")[0] == "one_call"
    got = mock.post(dialect, request_body(dialect, None))
    assert got.status == 404 and "No scenario selected" in error_message(dialect, got.body)


def test_non_strict_mode_plays_default() -> None:
    with MockServer(SCENARIOS, strict=False) as server, httpx.Client(timeout=TIMEOUT) as client:
        for body in (request_body("chat", None), request_body("chat", "no_such_scenario")):
            got = client.post(f"{server.url}/chat/completions", json=body)
            assert got.status_code == 200 and got.headers["x-callproof-scenario"] == "default"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("content", [b'{"model": "callproof/one_call", "stream": tru', b"[1, 2]", b"\xff\xfe"])
def test_malformed_json_is_a_400_in_the_dialects_error_shape(mock: Mock, dialect: Dialect, content: bytes) -> None:
    got = mock.post(dialect, None, content=content, headers={"content-type": "application/json"})
    assert got.status == 400 and error_message(dialect, got.body)
    assert mock.server.journal.requests()[0].status == 400


#: A request's tools with the second one's name missing or empty, in each dialect's shape.
def _nameless_tools(dialect: Dialect, name: object) -> list[dict[str, Any]]:
    named: dict[str, Any] = {"name": "get_weather", "parameters": {"type": "object"}}
    nameless: dict[str, Any] = {"description": "lost its name", "parameters": {"type": "object"}}
    if name is not None:
        nameless["name"] = name
    if dialect == "chat":
        return [{"type": "function", "function": tool} for tool in (named, nameless)]
    if dialect == "anthropic":
        return [{k if k != "parameters" else "input_schema": v for k, v in tool.items()} for tool in (named, nameless)]
    return [{"type": "function", **tool} for tool in (named, nameless)]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(("name", "problem"), [(None, "missing"), ("", "empty")])
def test_a_tool_without_a_name_gets_the_real_upstreams_400(mock: Mock, dialect: Dialect, name: object,
                                                           problem: str) -> None:
    """mock_server/_request_checks.py: as every real upstream does, before any scenario plays (journaled as a
    refusal of the selected scenario); OpenAI's error names the field in `param` and says `code`."""
    body = {**request_body(dialect, "text_only"), "tools": _nameless_tools(dialect, name)}
    got = mock.post(dialect, body)
    assert got.status == 400 and got.headers["content-type"].startswith("application/json")
    error = json.loads(got.body)
    field = {"chat": "tools[1].function.name", "responses": "tools[1].name"}.get(dialect)
    if dialect == "anthropic":
        assert error == {"type": "error", "error": {"type": "invalid_request_error", "message": (
            "tools.1.custom.name: Field required" if problem == "missing" else
            "tools.1.custom.name: String should have at least 1 character")}}
    elif problem == "missing":
        assert error == {"error": {"message": f"Missing required parameter: '{field}'.",
                                   "type": "invalid_request_error", "param": field,
                                   "code": "missing_required_parameter"}}
    else:
        assert error["error"]["code"] == "empty_string" and error["error"]["param"] == field
        assert error["error"]["message"].startswith(f"Invalid '{field}': empty string.")
    (journaled,) = mock.server.journal.requests()
    assert (journaled.status, journaled.scenario) == (400, "text_only")
    named = {**body, "tools": _nameless_tools(dialect, "lookup")}
    assert mock.post(dialect, named).status == 200  # the same request with the name plays the scenario


@pytest.mark.parametrize("dialect", DIALECTS)
def test_bodies_over_the_limit_get_413(dialect: Dialect) -> None:
    with MockServer(SCENARIOS, max_body_bytes=1000) as server, httpx.Client(timeout=TIMEOUT) as client:
        small = request_body(dialect, "one_call", stream=False)
        assert client.post(server.root_url + "/v1" + PATHS[dialect], json=small).status_code == 200
        big = request_body(dialect, "one_call", stream=False, text="x" * 5000)
        got = client.post(server.root_url + "/v1" + PATHS[dialect], json=big)
        assert got.status_code == 413 and "1000 bytes" in error_message(dialect, got.content)


def test_unknown_paths_and_methods(mock: Mock) -> None:
    got = mock.client.post(mock.server.url + "/embeddings", json={})
    assert got.status_code == 404 and "Invalid URL (POST /v1/embeddings)" in got.json()["error"]["message"]
    got = mock.client.get(mock.server.url + "/chat/completions")
    assert got.status_code == 405 and got.headers["allow"] == "POST"
    assert [r.status for r in mock.server.journal.requests()] == [404, 405]


# -- journal and control API ---------------------------------------------------------------------------------


def test_the_journal_records_requests_redacted_with_case_and_every_write(mock: Mock) -> None:
    body = request_body("responses", "t_gap", text=f"[callproof:case={CASE}] weather?")
    secrets = {"authorization": "Bearer sk-secret", "x-api-key": "sk-ant", "api-key": "azure", "cookie": "s=1",
               "x-trace": "keep-me"}
    got = mock.post("responses", body, headers=secrets)
    (request,) = mock.server.journal.requests()
    assert request.method == "POST" and request.path == "/v1/responses" and request.dialect == "responses"
    assert request.body == body and request.stream and request.scenario == "t_gap" and request.case == CASE
    assert request.status == 200 and request.time <= request.start
    for name in ("authorization", "x-api-key", "api-key", "cookie"):
        assert request.headers[name] == "[redacted]"
    assert request.headers["x-trace"] == "keep-me"
    assert "sk-secret" not in mock.server.journal.to_jsonl()
    writes = mock.server.journal.writes(request.id)
    assert b"".join(w.data for w in writes) == got.body and len(writes) == len(got.chunks)
    times = [w.time for w in writes]
    assert times == sorted(times) and times[0] >= request.start
    end = mock.server.journal.end(request.id)
    assert end is not None and end.outcome == "completed" and end.time >= times[-1]


@pytest.mark.parametrize("scenario", ["one_call", "t_gap"])
def test_a_stream_is_journaled_as_ended_before_its_client_has_read_it_all(mock: Mock, scenario: str) -> None:
    # The end record is written before the body's last bytes go out (the last write carries the chunked end when
    # nothing is scheduled after it): a client that has the whole body never finds its request without an end.
    for _ in range(20):
        got = mock.post("responses", request_body("responses", scenario))
        assert got.status == 200 and got.error is None
        request_id = int(got.headers["x-callproof-request"])
        end = mock.server.journal.end(request_id)
        assert end is not None and end.outcome == "completed", (request_id, end)


def test_control_api(mock: Mock) -> None:
    root = mock.server.root_url + "/_callproof"
    health = mock.client.get(root + "/health").json()
    assert health["status"] == "ok" and health["scenarios"] == len(SCENARIOS) and health["strict"] is True
    rows = mock.client.get(root + "/scenarios").json()["scenarios"]
    assert {r["id"] for r in rows} == set(SCENARIOS)
    one = next(r for r in rows if r["id"] == "one_call")
    assert one["tags"] == list(SCENARIOS["one_call"].tags) and one["description"]

    mock.post("chat", request_body("chat", "one_call", text=f"[callproof:case={CASE}]"))
    mock.post("chat", request_body("chat", "text_only"))
    got = mock.client.get(root + "/journal")
    assert got.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in got.text.splitlines()]
    kinds = [line["kind"] for line in lines]
    assert kinds.count("request") == 2 and kinds.count("end") == 2 and "write" in kinds
    first = lines[0]
    assert first["kind"] == "request" and first["scenario"] == "one_call" and first["case"] == CASE
    only = [json.loads(line) for line in mock.client.get(root + "/journal", params={"case": CASE}).text.splitlines()]
    assert {line.get("id", line.get("request")) for line in only} == {first["id"]}
    written = "".join(line["text"] for line in only if line["kind"] == "write")
    assert written == expected_stream("chat", "one_call", first["body"]).decode()

    assert mock.client.post(root + "/reset").json() == {"status": "reset"}
    assert mock.client.get(root + "/journal").text == ""


# -- in-process timing on a virtual clock --------------------------------------------------------------------


@pytest.fixture
def virtual() -> tuple[httpx.AsyncClient, Journal, VirtualClock]:
    journal, clock = Journal(), VirtualClock(start=1000.0)
    app = create_app(SCENARIOS, strict=True, journal=journal, clock=clock, speed=0.5)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock"), journal, clock


@pytest.mark.parametrize("dialect", DIALECTS)
def test_virtual_clock_timestamps_every_write_exactly_at_its_scripted_offset(
    virtual: tuple[httpx.AsyncClient, Journal, VirtualClock], dialect: Dialect
) -> None:
    client, journal, clock = virtual
    body = request_body(dialect, "f_stall")

    async def run() -> bytes:
        async with client:
            response = await client.post("/v1" + PATHS[dialect], json=body)
            return response.content

    content = asyncio.run(run())
    assert content == expected_stream(dialect, "f_stall", body)
    (request,) = journal.requests()
    plan = make_plan(SCENARIOS["f_stall"], RENDERERS[dialect], RenderContext(model=body["model"], request=body),
                     stream=True, rng=random.Random("0:f_stall:0"), speed=0.5)
    # speed 0.5 doubles the 200 ms stall: 400 ms of virtual time, none of it slept for real.
    assert [(round(w.time - request.start, 9), w.data) for w in journal.writes()] == [
        (round(w.at, 9), w.data) for w in plan.writes
    ]
    assert plan.writes[-1].at == pytest.approx(0.400)
    assert clock.now() == pytest.approx(request.start + 0.400)


# -- the whole corpus ----------------------------------------------------------------------------------------


BUNDLED = bundled_scenarios()
CORPUS = [pytest.param(s, d, id=f"{s}::{d}") for s in BUNDLED for d in DIALECTS]


@pytest.fixture(scope="module")
def fast_server() -> Iterator[MockServer]:
    with MockServer(BUNDLED, strict=True, speed=10) as server:
        yield server


@pytest.mark.parametrize(("scenario", "dialect"), CORPUS)
def test_every_bundled_scenario_is_served_in_every_dialect(fast_server: MockServer, scenario: str,
                                                           dialect: Dialect) -> None:
    # A sequence answers with its first leg in a new session (every leg: tests/mock_server/test_legs.py).
    played = BUNDLED[scenario].legs[0].scenario if BUNDLED[scenario].legs else BUNDLED[scenario]
    kinds = {f.kind for f in played.faults}
    with httpx.Client(timeout=TIMEOUT, verify=tls()) as client:
        mock = Mock(fast_server, client)
        for stream in (True, False):
            body = request_body(dialect, scenario, stream=stream)
            got = mock.post(dialect, body, headers={"x-callproof-session": f"{scenario}:{dialect}:{stream}"})
            status = next((int(f.params["status"]) for f in played.faults if f.kind == "http_error"), 200)
            assert got.status == status
            assert (got.error is not None) == ("disconnect" in kinds)
            if kinds or status != 200:
                continue
            ctx = RenderContext(model=body["model"], request=body)
            if stream:
                want = played.raw.get(dialect)
                assert got.body == (b"".join(f.data for f in want) if want else RENDERERS[dialect].stream(
                    played, ctx).body)
            else:
                assert json.loads(got.body) == RENDERERS[dialect].body(played, ctx)


def test_deterministic_plans_are_rendered_once_and_replayed_byte_identical() -> None:
    with MockServer(strict=True) as server:
        bodies = []
        for case in ("a", "b"):
            response = httpx.post(f"{server.url}/responses", timeout=TIMEOUT,
                                  json={"model": "callproof/one_call", "stream": True,
                                        "input": f"[callproof:case={case}] weather?"})
            bodies.append(response.content)
        assert bodies[0] == bodies[1]  # the input differs (case tags), the plan does not
        assert [r.case for r in server.journal.requests()] == ["a", "b"]
        assert len(server.app.state.plans) == 1


def test_chaos_plans_are_not_cached() -> None:
    from callproof.mock_server._plan_cache import plan_key as _plan_key

    scenarios = bundled_scenarios()
    assert _plan_key(scenarios["one_call"], "responses", True, {"input": "x"}) is not None
    chaos = scenarios["fault_chaos_harmless"]
    assert _plan_key(chaos, "responses", True, {"input": "x"}) is None
