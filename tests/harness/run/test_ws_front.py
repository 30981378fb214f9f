"""A gateway's Responses WebSocket front (`--front-transport websocket`, docs/spec/gateway-websocket.md): the
reference gateway, launched on a real uvicorn server in front of the mock over Chat Completions, passes every case
planned over its socket; the planning and the option checks."""

from __future__ import annotations

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.mock_server import bundled_scenarios
from tests import fakes

SCENARIOS = bundled_scenarios()
#: An agent loop of three turns, one call, parallel calls, upstream failures (an HTTP error, a cut stream).
#: And the cancellation cases (the socket closed mid-stream and before the first byte: GW-CANCEL-*).
PLAYED = ("agent_loop_three_turns", "agent_loop_tool_result", "one_call", "parallel_two_calls", "fault_http_500",
          "fault_disconnect_after_events", "text_before_call", "cancel_mid_stream", "cancel_before_first_byte")


def test_the_reference_gateway_passes_every_case_over_its_websocket_front() -> None:
    config = RunConfig(launch=fakes.launch(), front_transport="websocket", case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in PLAYED]
        results = [harness.judge(spec) for spec in specs]
    assert {s.scenario for s in specs} == set(PLAYED)
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []
    judged = {rule.rule.id for r in results for rule in r.results}
    assert {"GW-WS-001", "GW-WS-002", "GW-WS-003", "GW-CANCEL-001", "GW-CANCEL-002"} <= judged
    cancelled = [r for r in results if r.spec.group == "cancellation"]
    assert len(cancelled) == 2 and all(r.details["cancel"]["upstream"][0]["ended"] == "cancelled" for r in cancelled)
    assert any(rule.rule.id.startswith("GW-LOOP-") for r in results for rule in r.results), "the loop is judged"


def test_websocket_cases_replace_the_http_only_groups() -> None:
    config = RunConfig(launch="gw --port {port}", front_transport="websocket")
    http = RunConfig(launch="gw --port {port}")
    specs = Harness(config, SCENARIOS).cases()
    groups = {s.group for s in specs}
    assert "framing" not in groups and "equivalence" not in groups
    assert CaseSpec("one_call", "websocket") in specs
    assert CaseSpec("fault_http_500", "websocket") in specs
    assert CaseSpec("agent_loop_tool_result", "websocket") in specs
    assert not any(s.group == "websocket" for s in Harness(http, SCENARIOS).cases())


@pytest.mark.parametrize(("fields", "words"), [
    ({"front": "chat"}, ("--front-transport websocket", "--front chat", "--front responses")),
    ({"upstream_transport": "websocket"}, ("--upstream-transport websocket", "--upstream-dialect chat")),
])
def test_a_transport_without_the_responses_dialect_is_one_line(fields: dict[str, str], words: tuple[str, ...]) -> None:
    front_transport = "http" if "upstream_transport" in fields else "websocket"
    problem = RunConfig(launch="gw --port {port}", front_transport=front_transport, **fields).problem()  # type: ignore[arg-type]
    assert problem is not None and "\n" not in problem
    assert all(word in problem for word in words), problem


def test_a_client_run_has_no_front_transport() -> None:
    problem = RunConfig(client_cmd="client", front_transport="websocket").problem()
    assert problem is not None and "--front-transport" in problem and "client" in problem


@pytest.mark.parametrize("front_transport", ["http", "websocket"])
def test_the_reference_gateway_passes_over_a_websocket_upstream(front_transport: str) -> None:
    """`--upstream-transport websocket`: `{upstream}` is the mock's ws:// URL, the gateway speaks the Responses
    WebSocket mode to it, and every rule reads the upstream turns from the journal as over HTTP."""
    config = RunConfig(launch=f"{fakes.launch()} --upstream-dialect responses", upstream_dialect="responses",
                       upstream_transport="websocket", front_transport=front_transport, case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in PLAYED or s.scenario == "timing_ttft_and_gaps"]
        results = [harness.judge(spec) for spec in specs]
        transports = {r.transport for r in harness.mock.journal.requests() if r.scenario in PLAYED}  # no calibration
    assert transports == {"websocket"}
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    assert sum(r.outcome == "passed" for r in results) > len(results) - 3
