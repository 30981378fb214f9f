"""Per-case limits (`--max-events N`, `--max-bytes N`): the exchange stops reading an answer past either and
closes the connection, the server sees the hang-up; a runaway gateway fails every case of the scenario by
GW-LIMIT-001 (not passed, not skipped, not error); bad values are usage errors in one line."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import ConfigError, Harness, RunConfig
from callproof.harness.run._http_exchange import Limits, exchange
from tests import fakes

EVENT = b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"ab"}\n\n'


class _Endless(BaseHTTPRequestHandler):
    """An SSE answer that never ends; `hung_up` is set once a write fails (the reader closed the connection)."""

    hung_up = threading.Event()
    written = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b": keep-alive comment, not an event\n\n" + EVENT)
                self.wfile.flush()
                type(self).written += 1
                time.sleep(0.001)
        except OSError:
            type(self).hung_up.set()

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def endless() -> Iterator[str]:
    _Endless.hung_up = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/responses"
    server.shutdown()
    server.server_close()


#: Reads may bring several events at once: the count is the first one past the limit that a read reached.
_SAID = "the answer exceeded it ({count} {unit} read, then the harness stopped reading and closed the connection)"


@pytest.mark.parametrize(("limits", "message"), [
    (Limits(events=5), "--max-events 5: " + _SAID.format(count="{events}", unit="events")),
    (Limits(bytes=1000), "--max-bytes 1000: " + _SAID.format(count="{size}", unit="bytes")),
])
def test_an_answer_past_a_limit_is_read_no_further_and_its_connection_closed(
    endless: str, limits: Limits, message: str,
) -> None:
    with httpx.Client(trust_env=False) as client:
        got = exchange(client, endless, {}, timeout=10, limits=limits)
    events = got.body.count(b"\n\n") // 2  # each write: a comment block and an event block
    assert got.over_limit == message.format(size=len(got.body), events=events) and got.error == got.over_limit
    assert limits.events is None or events > 5
    assert not got.timed_out
    assert limits.bytes is None or 1000 < len(got.body) <= 1000 + 2 * 4096  # stopped at the chunk that passed it
    assert _Endless.hung_up.wait(5), "the server never saw the connection close"


def test_no_limit_reads_to_the_end() -> None:
    assert Limits().exceeded(10**9, 10**9) is None
    assert Limits(events=3, bytes=100).exceeded(100, 3) is None


def _runaway(max_events: int) -> RunConfig:
    return RunConfig(launch=fakes.launch("gateways", "runaway_stream"), case_timeout=20, max_events=max_events)


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def test_a_runaway_stream_fails_every_case_of_its_scenario_by_gw_limit_001() -> None:
    start = time.monotonic()
    with Harness(_runaway(max_events=50)) as harness:
        results = [harness.judge(CaseSpec("text_only", g)) for g in ("framing", "expected", "equivalence")]
    assert time.monotonic() - start < 15, "the limit, not the case timeout, ended the case"
    assert [r.outcome for r in results] == ["failed"] * 3
    for result in results:
        assert [(r.rule.id, r.outcome) for r in result.results] == [("GW-LIMIT-001", "failed")]
        said = re.match(r"GW-LIMIT-001 MUST: --max-events 50: the answer exceeded it \((\d+) events read, then the "
                        r"harness stopped reading and closed the connection\)", result.message)
        assert said is not None and int(said.group(1)) > 50, result.message
        assert result.details["over_limit"].startswith("--max-events 50: ")


@pytest.mark.parametrize(("fields", "message"), [
    ({"max_events": 0}, "--max-events must be a whole number of at least 1, got 0"),
    ({"max_bytes": -3}, "--max-bytes must be a whole number of at least 1, got -3"),
])
def test_bad_limits_are_config_problems(fields: dict[str, int], message: str) -> None:
    assert RunConfig(launch="gw {port}", **fields).problem() == message  # type: ignore[arg-type]


def test_limits_are_for_gateway_runs() -> None:
    with pytest.raises(ConfigError, match=r"^--max-events limits a gateway's answer; in a client run"):
        RunConfig.from_options(lambda n: {"client_cmd": "adapter", "max_events": 5}.get(n), fakes.ROOT)


def test_an_answer_within_the_limits_is_judged_as_usual() -> None:
    config = RunConfig(launch=fakes.launch("gateways"), case_timeout=20, max_events=2000, max_bytes=10**6)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec("parallel_two_calls", g)) for g in ("lifecycle", "expected", "equivalence")]
    assert [(r.outcome, r.message) for r in results] == [("passed", "")] * 3
    assert all("over_limit" not in r.details for r in results)
    assert "GW-LIMIT-001" not in {r.rule.id for result in results for r in result.results}
