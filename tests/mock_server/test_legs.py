"""Sequences: the legs of a scenario answer the successive requests of a session (case tag, x-callproof-session
header, else the mock until reset); `requires` refuses a turn that lacks a tool result; after the last leg a strict
mock answers 409 and a lenient one repeats the last leg; GET /_callproof/sequences lists unplayed legs. Against
real uvicorn servers on 127.0.0.1, driven by the openai SDK's own retries where the issue asks for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from callproof.harness.scenario import ScenarioError, bundled_scenarios, parse_scenario_file
from callproof.mock_server import MockServer

TIMEOUT = httpx.Timeout(10.0)
REQUEST = {"input": [{"role": "user", "text": "hi"}]}
PATHS = {"responses": "/v1/responses", "chat": "/v1/chat/completions", "anthropic": "/v1/messages"}


@pytest.fixture(scope="module")
def strict() -> Iterator[MockServer]:
    with MockServer(strict=True) as server:
        yield server


@pytest.fixture
def mock(strict: MockServer) -> MockServer:
    httpx.post(f"{strict.root_url}/_callproof/reset", timeout=TIMEOUT).raise_for_status()
    return strict


def _post(server: MockServer, dialect: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(server.root_url + PATHS[dialect], json=body, headers=headers, timeout=TIMEOUT)


def _body(dialect: str, text: str, *, results: tuple[str, ...] = (), stream: bool = True) -> dict[str, Any]:
    """A request in `dialect` with the user's text and tool results for `results` (call ids)."""
    body: dict[str, Any] = {"model": "m", "stream": stream}
    if dialect == "responses":
        body["input"] = [{"role": "user", "content": text}] + [
            {"type": "function_call_output", "call_id": c, "output": "18 C"} for c in results]
    elif dialect == "chat":
        body["messages"] = [{"role": "user", "content": text}] + [
            {"role": "tool", "tool_call_id": c, "content": "18 C"} for c in results]
    else:
        body["max_tokens"] = 100
        body["messages"] = [{"role": "user", "content": text}] + ([{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c, "content": "18 C"} for c in results]}] if results else [])
    return body


def test_the_openai_sdk_retries_through_two_429_legs_to_the_stream(mock: MockServer) -> None:
    with openai.OpenAI(base_url=mock.url, api_key="x", max_retries=2) as client:
        # The delays the SDK chose for its retries: evidence that does not depend on how loaded the machine is (a
        # wall-clock bound on the whole exchange failed under load).
        waits: list[float] = []
        calculate = client._calculate_retry_timeout

        def recording(*args: Any, **kwargs: Any) -> float:
            waits.append(calculate(*args, **kwargs))
            return waits[-1]

        client._calculate_retry_timeout = recording  # type: ignore[method-assign]
        with client.responses.stream(model="callproof/retry_429_twice_then_stream",
                                     input="weather? [callproof:case=c1]",
                                     tools=[{"type": "function", "name": "get_weather", "parameters": {},
                                             "strict": False}]) as stream:
            final = stream.get_final_response()
        assert waits == [0.01, 0.01]  # Retry-After of 10 ms honoured, not the SDK's default backoff (0.5 s, 1 s)
        calls = [o for o in final.output if o.type == "function_call"]
        assert [(c.name, json.loads(c.arguments), c.call_id) for c in calls] == [
            ("get_weather", {"city": "Paris"}, "call_retry_weather")]
        requests = mock.journal.requests(case="c1")
        assert [(r.leg, r.status) for r in requests] == [(0, 429), (1, 429), (2, 200)]
        assert [json.loads(line)["leg"] for line in mock.journal.to_jsonl(case="c1").splitlines()
                if json.loads(line)["kind"] == "request"] == [0, 1, 2]
        legs = httpx.get(f"{mock.root_url}/_callproof/sequences", timeout=TIMEOUT).json()
        assert legs == {"sequences": [{"scenario": "retry_429_twice_then_stream", "session": "c1", "legs": 3,
                                       "played": [0, 1, 2], "unplayed": [], "refused": 0}], "unplayed": []}


def test_without_retries_the_sdk_fails_and_the_legs_left_are_reported(mock: MockServer) -> None:
    with openai.OpenAI(base_url=mock.url, api_key="x", max_retries=0) as client:
        with pytest.raises(openai.RateLimitError):
            client.responses.create(model="callproof/retry_429_twice_then_stream", input="[callproof:case=c2] hi")
        report = httpx.get(f"{mock.root_url}/_callproof/sequences", params={"case": "c2"}, timeout=TIMEOUT).json()
        assert report["unplayed"] == [{"scenario": "retry_429_twice_then_stream", "session": "c2", "legs": 3,
                                       "played": [0], "unplayed": [1, 2], "refused": 0}]
        assert mock.app.state.sequences.unplayed(case="c2")[0]["unplayed"] == [1, 2]


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_an_agent_loop_needs_the_tool_result_before_its_second_leg(mock: MockServer, dialect: str) -> None:
    tag = f"[callproof:scenario=agent_loop_tool_result] [callproof:case=loop-{dialect}]"
    first = _post(mock, dialect, _body(dialect, tag))
    assert first.status_code == 200 and first.headers["x-callproof-leg"] == "0"
    assert "call_loop_weather" in first.text
    refused = _post(mock, dialect, _body(dialect, tag, results=("call_other",)))
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert "Leg 1" in error["message"] and "'call_loop_weather'" in error["message"]
    assert "call_other" in error["message"]  # what the request did carry
    if dialect == "anthropic":
        assert refused.json()["type"] == "error" and error["type"] == "invalid_request_error"
    answer = _post(mock, dialect, _body(dialect, tag, results=("call_loop_weather",)))
    assert answer.status_code == 200 and answer.headers["x-callproof-leg"] == "1"
    assert "It is 18" in answer.text  # the first 8-character fragment of the answer
    requests = mock.journal.requests(case=f"loop-{dialect}")
    assert [(r.leg, r.status) for r in requests] == [(0, 200), (1, 400), (1, 200)]
    row = mock.app.state.sequences.report(case=f"loop-{dialect}")[0]
    assert (row["played"], row["unplayed"], row["refused"]) == ([0, 1], [], 1)


def test_after_the_last_leg_a_strict_mock_answers_409(mock: MockServer) -> None:
    body = _body("chat", "[callproof:scenario=retry_503_once_then_text]")
    assert [_post(mock, "chat", body).status_code for _ in range(3)] == [503, 200, 409]
    last = mock.journal.requests()[-1]
    assert (last.status, last.leg, last.scenario) == (409, None, "retry_503_once_then_text")
    message = json.loads(mock.journal.body_of(last.id))["error"]["message"]
    assert "one too many" in message and "/_callproof/reset" in message


def test_after_the_last_leg_a_lenient_mock_repeats_it() -> None:
    with MockServer() as lenient:
        body = _body("chat", "[callproof:scenario=retry_503_once_then_text]", stream=False)
        got = [_post(lenient, "chat", body) for _ in range(3)]
        assert [r.status_code for r in got] == [503, 200, 200]
        assert got[1].json() == got[2].json()
        assert [r.leg for r in lenient.journal.requests()] == [0, 1, 1]


def test_sessions_are_separate_by_header_case_and_reset(mock: MockServer) -> None:
    body = _body("chat", "[callproof:scenario=retry_503_once_then_text]")
    assert _post(mock, "chat", body, **{"x-callproof-session": "a"}).status_code == 503
    assert _post(mock, "chat", body, **{"x-callproof-session": "b"}).status_code == 503
    assert _post(mock, "chat", body, **{"x-callproof-session": "a"}).status_code == 200
    tagged = _body("chat", "[callproof:scenario=retry_503_once_then_text] [callproof:case=t]")
    assert _post(mock, "chat", tagged).status_code == 503  # its own session: the case tag
    # the header wins over the case tag
    assert _post(mock, "chat", tagged, **{"x-callproof-session": "b"}).status_code == 200
    assert _post(mock, "chat", body).status_code == 503  # no header, no tag: the mock's own session
    httpx.post(f"{mock.root_url}/_callproof/reset", timeout=TIMEOUT).raise_for_status()
    assert _post(mock, "chat", body, **{"x-callproof-session": "a"}).status_code == 503
    assert mock.app.state.sequences.report() == [
        {"scenario": "retry_503_once_then_text", "session": "a", "legs": 2, "played": [0], "unplayed": [1],
         "refused": 0}]


def test_text_requirements_name_what_is_missing(mock: MockServer) -> None:
    scenario = {"id": "needs_text", "description": "a leg that wants a phrase", "request": REQUEST,
                "expect": {"status": "completed", "text": "ok"},
                "legs": [{"output": [{"type": "text", "text": "first"}]},
                         {"requires": {"text": ["approved"]}, "output": [{"type": "text", "text": "ok"}]}]}
    assert httpx.post(f"{mock.root_url}/_callproof/scenarios", json=scenario, timeout=TIMEOUT).status_code == 201
    body = _body("responses", "[callproof:scenario=needs_text]", stream=False)
    assert _post(mock, "responses", body).status_code == 200
    refused = _post(mock, "responses", body)
    assert refused.status_code == 400 and "the text 'approved'" in refused.json()["error"]["message"]
    body = _body("responses", "[callproof:scenario=needs_text] approved", stream=False)
    assert _post(mock, "responses", body).json()["output"][0]["content"][0]["text"] == "ok"


# -- the model -------------------------------------------------------------------------------------------------


def _file(scenario: dict[str, Any]) -> str:
    return json.dumps({"feature": "f", "description": "d", "scenarios": [scenario]})


BASE: dict[str, Any] = {"id": "s", "description": "d", "request": REQUEST, "expect": {"status": "completed"}}


def test_legs_load_as_scenarios_of_their_own() -> None:
    retry = bundled_scenarios()["retry_429_twice_then_stream"]
    assert [leg.index for leg in retry.legs] == [0, 1, 2]
    assert retry.legs[0].scenario.expect.http_status == 429  # derived from the leg's fault
    assert retry.legs[0].scenario.id == retry.id
    assert retry.output == retry.legs[-1].scenario.output  # the scenario plays as its last leg elsewhere
    assert retry.description.startswith("HTTP 429 twice")
    loop = bundled_scenarios()["agent_loop_tool_result"]
    assert loop.legs[1].requires is not None and loop.legs[1].requires.tool_results == ("call_loop_weather",)
    assert loop.legs[0].scenario.expect.tool_calls == ({"name": "get_weather", "arguments": {"city": "Paris"}},)
    default_ids = parse_scenario_file(_file({**BASE, "legs": [
        {"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
        {"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]}]}), "f.json")[0]
    assert [leg.scenario.calls[0].call_id for leg in default_ids.legs] == ["call_s_0_0", "call_s_1_0"]


@pytest.mark.parametrize(("scenario", "where", "says"), [
    ({**BASE, "legs": [{}], "output": []}, "$.scenarios[0]", "output cannot stand beside legs"),
    ({**BASE, "legs": []}, "$.scenarios[0].legs", "should be non-empty"),
    ({**BASE}, "$.scenarios[0]", "'output' is a required property"),
    ({**BASE, "legs": [{"requires": {"tool_results": []}}]}, "$.scenarios[0].legs[0].requires.tool_results", ""),
    ({**BASE, "legs": [{"output": [{"type": "text", "text": "ab", "chunk": {"fragments": ["a"]}}]}]},
     "scenarios[0] (s).legs[0].output[0].chunk", "fragments join"),
])
def test_bad_legs_are_refused_with_the_json_path(scenario: dict[str, Any], where: str, says: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario_file(_file(scenario), "f.json")
    assert f"f.json: {where}" in str(caught.value) and says in str(caught.value)
