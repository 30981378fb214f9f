"""Scenarios registered at run time: POST /_callproof/scenarios (one scenario or a file object; 400 naming the JSON
path; 409 on a clash unless ?replace=true), DELETE /_callproof/scenarios/{id} (404 if unknown), both journaled,
scoped per case tag with ?case=, gone on reset, behind the control API's guards. Against real uvicorn servers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from callproof.mock_server import MockServer

TIMEOUT = httpx.Timeout(10.0)
TOKEN = "tok-registry"


def _scenario(sid: str = "my_call", text: str = "hello from a test") -> dict[str, Any]:
    return {"id": sid, "description": "registered by a test",
            "output": [{"type": "text", "text": text, "chunk": {"whole": True}}],
            "request": {"input": [{"role": "user", "text": "hi"}]}, "expect": {"status": "completed", "text": text}}


@pytest.fixture(scope="module")
def strict() -> Iterator[MockServer]:
    with MockServer(strict=True) as server:
        yield server


@pytest.fixture
def mock(strict: MockServer) -> MockServer:
    httpx.post(f"{strict.root_url}/_callproof/reset", timeout=TIMEOUT).raise_for_status()
    return strict


def _ask(server: MockServer, sid: str, *, case: str | None = None) -> httpx.Response:
    text = f"[callproof:scenario={sid}]" + (f" [callproof:case={case}]" if case else "")
    return httpx.post(f"{server.url}/chat/completions", timeout=TIMEOUT,
                      json={"model": "m", "messages": [{"role": "user", "content": text}]})


def test_a_registered_scenario_is_served_until_deleted(mock: MockServer) -> None:
    control = f"{mock.root_url}/_callproof/scenarios"
    assert _ask(mock, "my_call").status_code == 404
    created = httpx.post(control, json=_scenario(), timeout=TIMEOUT)
    assert created.status_code == 201 and created.json() == {"registered": ["my_call"], "case": None}
    answer = _ask(mock, "my_call")
    assert answer.json()["choices"][0]["message"]["content"] == "hello from a test"
    assert "my_call" in [row["id"] for row in httpx.get(control, timeout=TIMEOUT).json()["scenarios"]]
    assert httpx.delete(f"{control}/my_call", timeout=TIMEOUT).json() == {"removed": "my_call", "case": None}
    assert _ask(mock, "my_call").status_code == 404
    again = httpx.delete(f"{control}/my_call", timeout=TIMEOUT)
    assert again.status_code == 404 and "No scenario 'my_call' is registered" in again.json()["error"]["message"]
    loaded = httpx.delete(f"{control}/one_call", timeout=TIMEOUT)
    assert loaded.status_code == 404 and "loaded from the scenario files" in loaded.json()["error"]["message"]
    control_rows = [(r.method, r.path, r.status) for r in mock.journal.requests() if r.dialect is None]
    assert control_rows == [("POST", "/_callproof/scenarios", 201), ("DELETE", "/_callproof/scenarios/my_call", 200),
                            ("DELETE", "/_callproof/scenarios/my_call", 404),
                            ("DELETE", "/_callproof/scenarios/one_call", 404)]
    posted = next(r for r in mock.journal.requests() if r.dialect is None)
    assert posted.body["id"] == "my_call"  # the posted body, as journaled


def test_a_file_object_registers_all_its_scenarios(mock: MockServer) -> None:
    doc = {"feature": "mine", "description": "two scenarios", "scenarios": [_scenario("a_one"), _scenario("a_two")]}
    created = httpx.post(f"{mock.root_url}/_callproof/scenarios", json=doc, timeout=TIMEOUT)
    assert created.status_code == 201 and created.json()["registered"] == ["a_one", "a_two"]
    assert _ask(mock, "a_two").status_code == 200


@pytest.mark.parametrize(("body", "says"), [
    ({**_scenario(), "output": [{"type": "text"}]}, "request body: $.output[0]"),
    ({**_scenario(), "id": "Bad-Id"}, "request body: $.id"),
    ({"feature": "mine", "description": "d", "scenarios": [{**_scenario(), "expect": {}}]},
     "request body: $.scenarios[0].expect"),
    ({"feature": "mine", "description": "d", "scenarios": [_scenario("x"), _scenario("x")]},
     "$.scenarios[1].id: scenario id 'x' is given twice"),
    ([1, 2], "request body: $: not a JSON object"),
])
def test_an_invalid_scenario_gets_400_naming_the_json_path(mock: MockServer, body: Any, says: str) -> None:
    refused = httpx.post(f"{mock.root_url}/_callproof/scenarios", json=body, timeout=TIMEOUT)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid_scenario"
    assert says in refused.json()["error"]["message"]
    assert [r.status for r in mock.journal.requests()] == [400]


def test_a_clash_is_409_unless_replace(mock: MockServer) -> None:
    control = f"{mock.root_url}/_callproof/scenarios"
    clash = httpx.post(control, json=_scenario("one_call"), timeout=TIMEOUT)
    assert clash.status_code == 409 and "?replace=true" in clash.json()["error"]["message"]
    assert httpx.post(control, params={"replace": "true"}, json=_scenario("one_call", "shadowed"),
                      timeout=TIMEOUT).status_code == 201
    assert _ask(mock, "one_call").json()["choices"][0]["message"]["content"] == "shadowed"
    assert httpx.delete(f"{control}/one_call", timeout=TIMEOUT).status_code == 200
    assert _ask(mock, "one_call").json()["choices"][0]["message"]["tool_calls"]  # the bundled one is back
    httpx.post(control, json=_scenario("mine"), timeout=TIMEOUT).raise_for_status()
    assert httpx.post(control, json=_scenario("mine"), timeout=TIMEOUT).status_code == 409


def test_a_case_scoped_scenario_is_seen_by_that_case_only_and_reset_removes_it(mock: MockServer) -> None:
    control = f"{mock.root_url}/_callproof/scenarios"
    created = httpx.post(control, params={"case": "case-1"}, json=_scenario("scoped"), timeout=TIMEOUT)
    assert created.json() == {"registered": ["scoped"], "case": "case-1"}
    assert _ask(mock, "scoped", case="case-1").status_code == 200
    assert _ask(mock, "scoped", case="case-2").status_code == 404
    assert _ask(mock, "scoped").status_code == 404
    listed = httpx.get(control, params={"case": "case-1"}, timeout=TIMEOUT).json()["scenarios"]
    assert "scoped" in [row["id"] for row in listed]
    assert "scoped" not in [row["id"] for row in httpx.get(control, timeout=TIMEOUT).json()["scenarios"]]
    assert [r.case for r in mock.journal.requests() if r.dialect is None] == ["case-1"]
    assert httpx.delete(f"{control}/scoped", timeout=TIMEOUT).status_code == 404  # not registered without ?case
    httpx.post(control, json=_scenario("shared"), timeout=TIMEOUT).raise_for_status()
    httpx.post(f"{mock.root_url}/_callproof/reset", timeout=TIMEOUT).raise_for_status()
    assert _ask(mock, "scoped", case="case-1").status_code == 404
    assert _ask(mock, "shared").status_code == 404


def test_registration_is_behind_the_control_guards() -> None:
    with MockServer(control_token=TOKEN) as guarded:
        control = f"{guarded.root_url}/_callproof/scenarios"
        assert httpx.post(control, json=_scenario(), timeout=TIMEOUT).status_code == 401
        assert httpx.delete(f"{control}/x", timeout=TIMEOUT).status_code == 401
        assert httpx.get(f"{guarded.root_url}/_callproof/sequences", timeout=TIMEOUT).status_code == 401
        auth = {"authorization": f"Bearer {TOKEN}"}
        cross = httpx.post(control, json=_scenario(), timeout=TIMEOUT, headers={**auth, "origin": "http://evil.example"})
        assert cross.status_code == 403
        assert httpx.post(control, json=_scenario(), timeout=TIMEOUT, headers=auth).status_code == 201
    with MockServer(control=False) as closed:
        assert httpx.post(f"{closed.root_url}/_callproof/scenarios", json=_scenario(),
                          timeout=TIMEOUT).status_code == 404


def test_a_registered_scenario_with_match_is_selected_by_content(mock: MockServer) -> None:
    scenario = {**_scenario("by_content", "matched by content"), "match": {"user_text": {"contains": "ping me"}}}
    control = f"{mock.root_url}/_callproof/scenarios"
    httpx.post(control, params={"case": "m1"}, json=scenario, timeout=TIMEOUT).raise_for_status()
    body = {"model": "m", "messages": [{"role": "user", "content": "please ping me [callproof:case=m1]"}]}
    answer = httpx.post(f"{mock.url}/chat/completions", json=body, timeout=TIMEOUT)
    assert answer.json()["choices"][0]["message"]["content"] == "matched by content"
    other = {"model": "m", "messages": [{"role": "user", "content": "please ping me [callproof:case=m2]"}]}
    assert httpx.post(f"{mock.url}/chat/completions", json=other, timeout=TIMEOUT).status_code == 404
    assert str(next(r.how for r in mock.journal.requests() if r.dialect == "chat")).startswith("match")
