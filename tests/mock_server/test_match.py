"""Selection by `match` on a real server (docs/spec/contracts.md §3): explicit ids first (header > marker > model),
then the first scenario in load order whose match holds, then `default` (or, strict, a 404 that names the nearest
candidates and the keys that failed); the journal says how each scenario was selected."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from callproof.harness import Dialect
from callproof.mock_server import MockServer, bundled_scenarios, load_scenarios
from tests.mock_server.support import PATHS, TIMEOUT


def _scenario(sid: str, text: str, match: dict[str, Any]) -> dict[str, Any]:
    return {"id": sid, "description": f"answers {text}", "output": [{"type": "text", "text": text}],
            "request": {"input": [{"role": "user", "text": "q"}]}, "expect": {"status": "completed", "text": text},
            "match": match}


MATCHES = [
    _scenario("m_weather_chat", "chat weather", {"user_text": {"contains": "weather"}, "dialect": "chat"}),
    _scenario("m_weather", "any weather", {"user_text": {"regex": "(?i)weather in \\w+"}}),
    _scenario("m_weather_late", "never played", {"user_text": {"contains": "weather"}}),
    _scenario("m_tools", "with tools", {"tools": ["get_time", "get_weather"], "model": "gpt-4o-mini",
                                        "json": [{"path": "$.temperature", "equals": 0}]}),
]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("match")
    (folder / "matching.json").write_text(json.dumps(
        {"feature": "matching", "description": "match blocks", "scenarios": MATCHES}), encoding="utf-8")
    return {**bundled_scenarios(), **load_scenarios([Path(folder)])}


@pytest.fixture(scope="module")
def strict(scenarios: dict[str, Any]) -> Iterator[MockServer]:
    with MockServer(scenarios, strict=True) as server:
        yield server


@pytest.fixture(scope="module")
def lenient(scenarios: dict[str, Any]) -> Iterator[MockServer]:
    with MockServer(scenarios) as server:
        yield server


def _body(dialect: Dialect, text: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt-4o-mini", "stream": False, **extra}
    if dialect == "responses":
        body["input"] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]
    else:
        body["messages"] = [{"role": "user", "content": text}]
    if dialect == "anthropic":
        body["max_tokens"] = 64
    return body


def _post(server: MockServer, dialect: Dialect, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(server.url + PATHS[dialect], json=body, headers=headers, timeout=TIMEOUT)


@pytest.mark.parametrize(("dialect", "text", "played"), [
    ("chat", "how is the weather in Paris?", "m_weather_chat"),  # the first in load order whose match holds
    ("responses", "how is the Weather in Paris?", "m_weather"),
    ("anthropic", "weather", "m_weather_late"),  # m_weather's regex wants a word after "weather in"
])
def test_the_first_scenario_whose_match_holds_plays(strict: MockServer, dialect: Dialect, text: str,
                                                    played: str) -> None:
    strict.journal.reset()
    answer = _post(strict, dialect, _body(dialect, text + " [callproof:case=c1]"))
    assert answer.status_code == 200 and answer.headers["x-callproof-scenario"] == played
    (request,) = strict.journal.requests()
    assert request.scenario == played and request.how is not None and request.how.startswith("match user_text.")
    assert request.to_json()["how"] == request.how


def test_every_key_must_hold(strict: MockServer) -> None:
    names = ("get_weather", "get_time")
    tools: list[dict[str, Any]] = [{"type": "function", "name": n, "parameters": {}} for n in names]
    assert _post(strict, "responses", _body("responses", "time?", tools=tools, temperature=0)).headers[
        "x-callproof-scenario"] == "m_tools"
    assert _post(strict, "responses", _body("responses", "time?", tools=tools, temperature=0.0)).headers[
        "x-callproof-scenario"] == "m_tools"
    for body in (_body("responses", "time?", tools=tools[:1], temperature=0),
                 _body("responses", "time?", tools=tools, temperature=1),
                 _body("responses", "time?", tools=tools)):
        assert _post(strict, "responses", body).status_code == 404


@pytest.mark.parametrize("selector", ["header", "marker", "model"])
def test_an_explicit_id_comes_before_match(strict: MockServer, selector: str) -> None:
    strict.journal.reset()
    text = "the weather in Paris"
    body = _body("chat", text + (" [callproof:scenario=text_only]" if selector == "marker" else ""))
    if selector == "model":
        body["model"] = "callproof/text_only"
    headers = {"x-callproof-scenario": "text_only"} if selector == "header" else {}
    assert _post(strict, "chat", body, **headers).headers["x-callproof-scenario"] == "text_only"
    assert strict.journal.requests()[0].how.startswith(selector)  # type: ignore[union-attr]


def test_strict_answers_404_naming_the_nearest_and_what_failed(strict: MockServer) -> None:
    answer = _post(strict, "anthropic", _body("anthropic", "rain in Oslo"))
    assert answer.status_code == 404
    message = answer.json()["error"]["message"]
    assert answer.json()["type"] == "error"  # the dialect's error shape
    assert "no scenario's match holds" in message and "'rain in Oslo'" in message
    assert "m_weather_chat (failed: user_text.contains, dialect)" in message
    assert "m_weather (failed: user_text.regex)" in message
    assert answer.headers["x-callproof-nearest"].split(",")[0] == "m_weather"


def test_lenient_plays_default_when_nothing_matches(lenient: MockServer) -> None:
    lenient.journal.reset()
    answer = _post(lenient, "chat", _body("chat", "rain in Oslo"))
    assert answer.status_code == 200 and answer.headers["x-callproof-scenario"] == "default"
    assert lenient.journal.requests()[0].how == "default"


def test_a_model_name_naming_no_scenario_goes_on_to_match(strict: MockServer) -> None:
    """The model name is also a fact a match reads: `callproof/<id>` for an id the mock lacks is not yet unknown."""
    strict.journal.reset()
    body = _body("chat", "the weather in Paris", model="callproof/not_loaded_here")
    answer = _post(strict, "chat", body)
    assert answer.status_code == 200 and answer.headers["x-callproof-scenario"] == "m_weather_chat"
    (request,) = strict.journal.requests()
    assert request.how == "match user_text.contains, dialect (no scenario 'not_loaded_here')"


@pytest.mark.parametrize("selector", ["header", "marker"])
def test_a_header_or_marker_naming_no_scenario_is_unknown_even_when_a_match_holds(
        strict: MockServer, selector: str) -> None:
    text = "the weather in Paris" + (" [callproof:scenario=not_loaded_here]" if selector == "marker" else "")
    headers = {"x-callproof-scenario": "not_loaded_here"} if selector == "header" else {}
    answer = _post(strict, "chat", _body("chat", text), **headers)
    assert answer.status_code == 404
    assert answer.json()["error"]["message"].startswith(f"Unknown scenario 'not_loaded_here' (from {selector}")


def test_a_model_name_naming_no_scenario_when_no_match_holds_is_a_404_saying_both(strict: MockServer) -> None:
    answer = _post(strict, "chat", _body("chat", "rain in Oslo", model="callproof/not_loaded_here"))
    assert answer.status_code == 404
    message = answer.json()["error"]["message"]
    assert message.startswith("Unknown scenario 'not_loaded_here' (from model callproof/<id>) and no scenario's "
                              "match holds (last user text 'rain in Oslo', model 'callproof/not_loaded_here'"), message
    assert "m_weather (failed: user_text.regex)" in message


def test_a_404_for_a_request_without_a_model_says_null(strict: MockServer) -> None:
    body = _body("chat", "rain in Oslo")
    del body["model"]
    message = _post(strict, "chat", body).json()["error"]["message"]
    assert "model null," in message and "None" not in message
