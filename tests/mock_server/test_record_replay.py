"""Record, then replay (docs/mock.md#recording-real-traffic): a request that selected its scenario by model name
(`callproof/<id>`), recorded by `RecordServer` in front of a mock, replays byte for byte from a fresh mock loaded
with nothing but the recording, for the same request with no marker and no header, in every dialect and both
stream modes."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from callproof.harness import Dialect
from callproof.mock_server import MockServer, load_scenarios
from callproof.mock_server._record import RecordServer
from tests.mock_server.support import DIALECTS, PATHS, TIMEOUT, request_body


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "body"])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_request_selecting_by_model_name_replays_from_its_recording_alone(
        tmp_path: Path, dialect: Dialect, stream: bool) -> None:
    body = request_body(dialect, "parallel_two_calls", stream=stream, text="two calls, please")
    with MockServer(strict=True) as mock, RecordServer(mock.root_url, tmp_path) as proxy:
        recorded = httpx.post(proxy.url + PATHS[dialect], json=body, timeout=TIMEOUT)
    assert recorded.status_code == 200 and recorded.headers["x-callproof-scenario"] == "parallel_two_calls"
    (path,) = tmp_path.glob("rec_*.json")
    scenario = json.loads(path.read_text(encoding="utf-8"))["scenarios"][0]
    assert scenario["match"]["model"] == "callproof/parallel_two_calls"

    replay_scenarios = load_scenarios([tmp_path])  # what `callproof mock --no-bundled --scenarios DIR` serves
    assert "parallel_two_calls" not in replay_scenarios
    with MockServer(replay_scenarios, strict=True) as replay:
        again = httpx.post(replay.url + PATHS[dialect], json=body, timeout=TIMEOUT)
        (request,) = replay.journal.requests()
    assert again.status_code == 200, again.text
    assert again.headers["x-callproof-scenario"] == path.stem
    assert again.content == recorded.content
    assert request.how is not None and request.how.startswith("match user_text.equals, model")
    assert request.how.endswith("(no scenario 'parallel_two_calls')")
