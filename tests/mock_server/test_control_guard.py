"""A mock that is safe to expose: the control API refuses cross-origin browser requests and, with a control token,
anyone without it; a misspelled scenario id in non-strict mode plays `default` but says so; `callproof mock` on a
non-loopback address needs a token (or no control API). Against real uvicorn servers on 127.0.0.1."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from callproof.mock_server import ExposedControlError, MockServer, is_loopback, serve_forever

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def guarded() -> Iterator[MockServer]:
    with MockServer(control_token=TOKEN) as mock:
        yield mock


@pytest.fixture(scope="module")
def open_mock() -> Iterator[MockServer]:
    with MockServer() as mock:
        yield mock


@pytest.mark.parametrize(("method", "path"), [("GET", "journal"), ("GET", "scenarios"), ("POST", "reset")])
def test_the_control_api_needs_the_token(guarded: MockServer, method: str, path: str) -> None:
    url = f"{guarded.root_url}/_callproof/{path}"
    refused = httpx.request(method, url)
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"
    assert "--control-token" in refused.json()["error"]["message"]
    assert httpx.request(method, url, headers={"authorization": "Bearer wrong"}).status_code == 401
    assert httpx.request(method, url, headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_health_stays_open_for_readiness_probes(guarded: MockServer) -> None:
    assert httpx.get(f"{guarded.root_url}/_callproof/health").json()["status"] == "ok"


@pytest.mark.parametrize("headers", [
    {"origin": "http://evil.example", "content-type": "text/plain"},
    {"sec-fetch-site": "cross-site"},
])
def test_a_cross_origin_reset_is_refused(open_mock: MockServer, headers: dict[str, str]) -> None:
    response = httpx.post(f"{open_mock.root_url}/_callproof/reset", headers=headers, content=b"x")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "cross_origin"
    assert httpx.get(f"{open_mock.root_url}/_callproof/journal", headers=headers).status_code == 403


def test_same_origin_and_scripts_reach_the_control_api(open_mock: MockServer) -> None:
    own = open_mock.root_url
    assert httpx.post(f"{own}/_callproof/reset", headers={"origin": own}).status_code == 200
    assert httpx.post(f"{own}/_callproof/reset").status_code == 200


def test_without_a_control_api_only_health_answers() -> None:
    with MockServer(control=False) as mock:
        assert httpx.get(f"{mock.root_url}/_callproof/health").status_code == 200
        assert httpx.get(f"{mock.root_url}/_callproof/journal").status_code == 404
        assert httpx.post(f"{mock.root_url}/_callproof/reset").status_code == 404


def test_a_misspelled_scenario_plays_default_but_says_so(open_mock: MockServer,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    body = {"model": "m", "input": "hi", "stream": False}
    with caplog.at_level(logging.WARNING, logger="callproof.mock"):
        response = httpx.post(f"{open_mock.url}/responses", json=body,
                              headers={"x-callproof-scenario": "parallel_two_call"})
    assert response.status_code == 200
    assert response.headers["x-callproof-scenario"] == "default"
    assert response.headers["x-callproof-fallback"] == "unknown scenario 'parallel_two_call'; played default"
    assert "parallel_two_calls" in response.headers["x-callproof-nearest"].split(",")
    assert "unknown scenario 'parallel_two_call' (from header x-callproof-scenario) played `default`" in caplog.text
    known = httpx.post(f"{open_mock.url}/responses", json=body, headers={"x-callproof-scenario": "one_call"})
    assert "x-callproof-fallback" not in known.headers
    plain = httpx.post(f"{open_mock.url}/responses", json=body)
    assert "x-callproof-fallback" not in plain.headers


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.0.2.7", False), ("example.org", False),
])
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_serving_beyond_loopback_needs_a_token_or_no_control() -> None:
    with pytest.raises(ExposedControlError, match=r"--host 0\.0\.0\.0 exposes the mock .* --control-token TOKEN or "
                       r"--no-control"):
        serve_forever(host="0.0.0.0", port=0)


def test_cli_mock_refuses_an_exposed_control_api_and_an_unwritable_journal(tmp_path: Path) -> None:
    exposed = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "mock", "--host", "0.0.0.0"],
                             capture_output=True, text=True, timeout=60)
    assert exposed.returncode == 2 and "Traceback" not in exposed.stderr
    assert exposed.stderr.startswith("callproof mock: --host 0.0.0.0 exposes the mock beyond this machine")
    (tmp_path / "file").write_text("", encoding="utf-8")
    journal = tmp_path / "file" / "journal.jsonl"
    unwritable = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "mock", "--journal", str(journal)],
                                capture_output=True, text=True, timeout=60)
    assert unwritable.returncode == 2
    assert unwritable.stderr == (f"callproof mock: --journal {journal}: {tmp_path / 'file'} is a file, not a folder; "
                                 "choose another path\n")
