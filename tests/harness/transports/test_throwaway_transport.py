"""A throwaway transport: the WebSocket row copied under a new name into copies of the tables (the core `TRANSPORTS`,
the harness's `FRONTS` and `CLIENT_WIRES`), and every consumer picks it up: the CLI's choices, the run's option
checks, the plan, the stream rules judged over it, the play and judging of a gateway over it, and the report. A
consumer keeping its own list of transports fails here."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import replace

import pytest

from callproof.harness.check import transport_rules
from callproof.harness.cli import _parser as cli_parser
from callproof.harness.judge import CaseSpec
from callproof.harness.report_model import Target
from callproof.harness.run import Harness, RunConfig, build_report, case_of
from callproof.harness.run._client_wires import CLIENT_WIRES
from callproof.harness.run._fronts import FRONTS
from callproof.harness.transports import TRANSPORTS, transport
from tests import fakes

NAME = "ws2"
#: The scenarios played over the throwaway transport: one call (GW-WS-002), an upstream failure (GW-WS-003).
PLAYED = ("one_call", "fault_http_500")


@pytest.fixture
def throwaway(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The WebSocket row as `ws2` (captures spelled `ws2-capture`) in the transport table, its front in `FRONTS`, its
    client side in `CLIENT_WIRES`."""
    row = replace(transport("websocket"), name=NAME, title="WebSocket (copy)", capture_name="ws2-capture")
    saved = list(TRANSPORTS)
    TRANSPORTS.append(row)
    monkeypatch.setitem(FRONTS, NAME, FRONTS["websocket"])
    monkeypatch.setitem(CLIENT_WIRES, NAME, CLIENT_WIRES["websocket"])
    try:
        yield NAME
    finally:
        TRANSPORTS[:] = saved


def _choices(command: str, flag: str) -> list[str]:
    sub = next(a for a in cli_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = sub.choices[command]
    action = next(a for a in parser._actions if flag in a.option_strings)
    assert action.choices is not None
    return list(action.choices)


def test_the_cli_offers_it(throwaway: str) -> None:
    for flag in ("--client-transport", "--front-transport", "--upstream-transport"):
        assert throwaway in _choices("run", flag)
    assert "ws2-capture" in _choices("check", "--transport")


def test_the_run_checks_it_as_its_row_says(throwaway: str) -> None:
    assert RunConfig(launch="gw --port {port}", front_transport=throwaway).problem() is None
    assert RunConfig(launch="gw --port {port}", front_transport=throwaway, front="chat").problem() == (
        "--front-transport ws2 is the Responses API's WebSocket mode; --front chat has none: use --front responses, "
        "or drop --front-transport")
    assert RunConfig(client_cmd="adapter", client_transport=throwaway).problem() is None


def test_the_stream_rules_over_it_are_the_rows(throwaway: str) -> None:
    assert transport_rules("responses", "openai", throwaway) == transport_rules("responses", "openai", "websocket")


def test_the_plan_over_it_is_the_plan_over_the_row_it_copies(throwaway: str) -> None:
    def plan(name: str) -> list[CaseSpec]:
        with Harness(RunConfig(launch="gw --port {port}", front_transport=name)) as harness:
            return harness.cases()

    planned = plan(throwaway)
    assert planned == plan("websocket")
    assert {s.group for s in planned} >= {"websocket"} and "framing" not in {s.group for s in planned}
    with Harness(RunConfig(client_cmd="adapter", client_transport=throwaway)) as harness:
        client = harness.cases()
    with Harness(RunConfig(client_cmd="adapter", client_transport="websocket")) as harness:
        assert client == harness.cases()


def test_a_gateway_is_played_and_judged_over_it_and_the_report_says_so(throwaway: str) -> None:
    config = RunConfig(launch=fakes.launch(), front_transport=throwaway, case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in PLAYED]
        results = [harness.judge(spec) for spec in specs]
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []
    judged = {rule.rule.id for r in results for rule in r.results}
    assert {"GW-WS-002", "GW-WS-003", "RSP-WS-001"} <= judged  # its own group and transcript rules
    assert not any(rule.startswith("SSE-") for rule in judged)  # no SSE framing over it
    report = build_report(config, [case_of(r, config) for r in results], started_at="2026-01-01T00:00:00Z",
                          duration_s=0.0, command=["callproof"], scenario_hash="x")
    assert report.target.front_transport == throwaway
    assert Target.from_json(report.target.to_json()).dialects == (
        "responses front over WebSocket (copy), chat upstream")
