"""route_to_mock: sync and async httpx clients are answered by the mock in-process (content only)."""

from __future__ import annotations

import anyio
import httpx
import respx

from callproof.harness import check_bytes
from callproof.mock_server import route_to_mock


def test_sync_client_gets_the_scenario_as_json() -> None:
    with respx.mock as router:
        route = route_to_mock(router)
        response = httpx.post("https://api.openai.com/v1/responses",
                              json={"model": "callproof/one_call", "input": "weather?"})
    assert response.status_code == 200
    assert [item["type"] for item in response.json()["output"]] == ["function_call"]
    assert route.call_count == 1


def test_sync_stream_is_delivered_whole_and_conformant() -> None:
    with respx.mock as router:
        route_to_mock(router)
        response = httpx.post("https://api.openai.com/v1/responses",
                              json={"model": "callproof/parallel_two_calls", "input": "weather?", "stream": True})
    assert response.headers["content-type"].startswith("text/event-stream")
    report = check_bytes(response.content)
    assert report.failed_rules == ()
    assert report.events > 10


def test_async_client_and_another_base_url() -> None:
    async def main() -> httpx.Response:
        async with httpx.AsyncClient() as client:
            return await client.post("https://gateway.internal/v1/chat/completions",
                                     json={"model": "callproof/text_only", "messages": []})

    with respx.mock as router:
        route_to_mock(router, "https://gateway.internal")
        response = anyio.run(main)
    assert response.status_code == 200
    assert response.json()["object"] == "chat.completion"


def test_strict_mock_answers_unknown_scenarios_with_404() -> None:
    with respx.mock as router:
        route_to_mock(router)
        response = httpx.post("https://api.openai.com/v1/responses", json={"model": "callproof/nope"})
    assert response.status_code == 404
