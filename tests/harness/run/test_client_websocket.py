"""Client mode over the Responses WebSocket mode (`callproof run --client-transport websocket`,
docs/adapters.md#over-websocket, docs/spec/websocket-clients.md): the option's one-line errors, the cases planned
(no SSE framing, no raw bytes), the reference fake client passing every case played over a socket against a real
mock on 127.0.0.1, the SDK's reference adapter passing the cases its baseline does not list, and the evidence
CLI-016 and CLI-017 read from the journal (the broken fakes are rows of the mutation table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter

from callproof.harness.catalogue import RULES
from callproof.harness.cli import main
from callproof.harness.judge import Findings, WebSocketTurn, check_client_websocket
from callproof.harness.run import ConfigError, Harness, RunConfig
from callproof.harness.scenario import is_framing
from callproof.mock_server import bundled_scenarios
from tests import fakes

ROOT = Path(__file__).resolve().parents[3]
WS_FAKE = "tests.fakes.ws_clients:run"
SCENARIOS = bundled_scenarios()


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])
    monkeypatch.syspath_prepend(str(ROOT))  # --client imports `examples.…` and `tests.…` from the repository root


def _framed(scenario_id: str) -> bool:
    scenario = SCENARIOS[scenario_id]
    return bool(scenario.raw) or any(is_framing(f.kind) for f in scenario.faults)


@pytest.mark.parametrize(("values", "message"), [
    ({"launch": "gw {port}", "client_transport": "websocket"}, r"^--client-transport websocket says how a client"),
    ({"client": "m:f", "client_dialect": "chat", "client_transport": "websocket"},
     r"^--client-transport websocket is the Responses API's WebSocket mode; --client-dialect chat has none"),
    ({"client": "m:f", "client_transport": "carrier-pigeon"}, r"^--client-transport 'carrier-pigeon' is not a"),
])
def test_a_websocket_run_that_cannot_be_is_one_line(values: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        RunConfig.from_options(values.get, tmp_path)


def test_the_command_line_says_it_in_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--client-cmd", "x", "--client-dialect", "anthropic", "--client-transport", "websocket"]) == 2
    err = capsys.readouterr().err
    assert "--client-dialect anthropic has none" in err and "Traceback" not in err


def test_a_function_without_a_transport_parameter_is_a_setup_error() -> None:
    config = RunConfig(client="tests.fakes.clients:_str", client_transport="websocket", case_timeout=10)
    with Harness(config) as harness:
        result = harness.judge(next(s for s in harness.cases() if s.id == "one_call::client"))
    assert result.outcome == "error"
    assert "takes no transport parameter" in result.message and "\n" not in result.message


def test_framing_and_raw_scenarios_are_not_planned_over_a_socket() -> None:
    http = Harness(RunConfig(client=WS_FAKE)).cases()
    socket = Harness(RunConfig(client=WS_FAKE, client_transport="websocket")).cases()
    dropped = {s.scenario for s in http} - {s.scenario for s in socket}
    assert dropped and all(_framed(s) for s in dropped)
    assert [s for s in http if s.scenario in SCENARIOS and not _framed(s.scenario)] == [
        s for s in socket if s.scenario in SCENARIOS]
    assert "concurrent::isolation" in {s.id for s in socket}


def _features() -> list[str]:
    with Harness(RunConfig(client=WS_FAKE, client_transport="websocket")) as harness:
        return sorted({SCENARIOS[s.scenario].feature for s in harness.cases() if s.scenario in SCENARIOS})


@pytest.mark.parametrize("feature", _features())
def test_the_reference_fake_passes_every_case_over_a_socket(feature: str) -> None:
    config = RunConfig(client=WS_FAKE, client_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in SCENARIOS and SCENARIOS[s.scenario].feature == feature]
        results = [harness.judge(s) for s in specs]
    assert results
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    judged = {f.rule.id for r in results for f in r.results}
    if any(s.group == "client" for s in specs):
        assert {"CLI-016", "CLI-017"} <= judged  # judged on every client case, from the journal's turns


def test_the_isolation_case_runs_over_sockets() -> None:
    with Harness(RunConfig(client=WS_FAKE, client_transport="websocket", case_timeout=15)) as harness:
        result = harness.judge(next(s for s in harness.cases() if s.id == "concurrent::isolation"))
    assert (result.outcome, result.message) == ("passed", "")


def test_an_adapter_calling_over_http_in_a_websocket_run_is_told() -> None:
    config = RunConfig(client_cmd=fakes.command("clients"), client_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        result = harness.judge(next(s for s in harness.cases() if s.id == "one_call::client"))
    assert result.outcome == "error"  # no verdict without evidence: the socket carried nothing to judge
    assert "not over WebSocket" in result.message


def test_the_sdk_reference_adapter_completes_a_three_turn_loop_on_one_socket() -> None:
    config = RunConfig(client="examples.client_openai_ws:run", client_transport="websocket", case_timeout=30)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario == "agent_loop_three_turns"]
        results = [harness.judge(s) for s in specs]
        turns = harness.mock.journal.requests()
        bodies = [harness.mock.journal.body_of(t.id) for t in turns if t.scenario == "agent_loop_three_turns"]
    assert {s.group for s in specs} >= {"expected", "loop"}
    assert [(r.spec.id, r.outcome) for r in results] == [(s.id, "passed") for s in specs]
    loop = [t for t in turns if t.scenario == "agent_loop_three_turns"]
    assert [t.transport for t in loop] == ["websocket"] * 3
    assert [t.turn for t in loop] == [0, 1, 2] and len({t.connection for t in loop}) == 1
    events = TypeAdapter(ResponsesServerEvent)
    messages = [json.loads(line) for body in bodies for line in body.splitlines() if line.strip()]
    assert messages and all(events.validate_python(m) for m in messages)  # every message is a server event


# -- the judge on hand-made turns (stamps from the journal's clock, never the wall) --

def _turn(connection: int, turn: int, at: float, body: Any, *messages: tuple[float, dict[str, Any]]) -> WebSocketTurn:
    return WebSocketTurn(connection, turn, at, body, tuple(messages))


_DONE = {"type": "response.completed", "response": {}}
_DELTA = {"type": "response.output_text.delta", "delta": "x"}


def _verdicts(*turns: WebSocketTurn) -> dict[str, str]:
    findings = Findings()
    check_client_websocket(findings, turns)
    return {r.rule.id: r.outcome for r in findings.results()}


def test_a_turn_after_the_previous_terminal_event_passes() -> None:
    assert _verdicts(_turn(1, 0, 0.0, {"type": "response.create"}, (0.1, _DELTA), (0.2, _DONE)),
                     _turn(1, 1, 0.25, {"type": "response.create"}, (0.3, _DONE)),
                     _turn(2, 0, 0.05, {"type": "response.create"}, (0.1, _DONE))) == {
        "CLI-016": "passed", "CLI-017": "passed"}


def test_a_turn_sent_while_the_previous_streamed_fails_cli_016() -> None:
    verdicts = _verdicts(_turn(1, 0, 0.0, {}, (0.1, _DELTA), (0.5, _DONE)), _turn(1, 1, 0.2, {}, (0.6, _DONE)))
    assert verdicts["CLI-016"] == "failed"


def test_an_in_flight_refusal_fails_cli_016_whatever_the_stamps() -> None:
    refusal = {"type": "error", "status": 400, "error": {"type": "invalid_request_error",
                                                          "code": "response_already_in_flight", "message": "busy"}}
    assert _verdicts(_turn(1, 0, 0.0, {}, (0.1, _DONE)), _turn(1, 1, 0.0, {}, (0.0, refusal)))["CLI-016"] == "failed"


@pytest.mark.parametrize("field", ["stream", "background"])
def test_stream_or_background_in_the_message_fails_cli_017(field: str) -> None:
    verdicts = _verdicts(_turn(1, 0, 0.0, {"type": "response.create", field: True}, (0.1, _DONE)))
    assert verdicts == {"CLI-016": "passed", "CLI-017": "failed"}
    assert RULES["CLI-017"].level == "SHOULD" and RULES["CLI-016"].level == "MUST"


def test_no_turn_is_no_verdict() -> None:
    assert _verdicts() == {}
