"""Issue 24's newcomer test: throwaway fault kinds added to temporary copies of the tables (a row each in FAULTS, an
injector each in the mock's INJECTORS) reach every consumer with no other change: the judge treats the cutting one
as a cut stream (GW-FAULT-003), the client rules name the framing one as a variant (CLI-010), a leg and the run plan
treat the HTTP one as an HTTP error, the mock plays them and reports them applied; and the bindings say what a real
newcomer still lacks (the schema's enum and parameter blocks, an injector). A consumer that kept its own list of
kinds would fail here."""

from __future__ import annotations

import json
from dataclasses import replace
from random import Random
from typing import cast

import pytest

from callproof.harness.catalogue import STREAM_FAMILIES
from callproof.harness.judge import Findings, check_faults, has_fault_rules, read_answer
from callproof.harness.judge._client_rules import framing_variants
from callproof.harness.outcome import Chunk, Exchange
from callproof.harness.run._plan import gateway_groups
from callproof.harness.scenario import FAULTS, Fault, FaultKind, FaultParam, FaultSpec, bundled_scenarios
from callproof.harness.scenario import _faults as fault_table
from callproof.harness.scenario._legs import leg_source
from callproof.mock_server import _inject as injectors
from callproof.mock_server import make_plan
from callproof.mock_server._inject import INJECTORS, Answer, Injector, StreamDraft
from callproof.mock_server._player import error_plan
from callproof.mock_server.dialects import RENDERERS, RenderContext
from tests.harness.scenario.fault_bindings import SCHEMA, injector_mismatches, schema_mismatches

ONE_CALL = bundled_scenarios()["one_call"]
CUT, FRAME, HTTP = cast(FaultKind, "zap_cut"), cast(FaultKind, "zap_frame"), cast(FaultKind, "zap_http")
ROWS = {
    CUT: FaultSpec(CUT, "only the first `keep` frames, then the connection stays open and ends",
                   (FaultParam("keep", int, 1),), cuts_stream=True),
    FRAME: FaultSpec(FRAME, "a comment line before every event", framing=True,
                     describe=lambda fault: "zap_frame (a comment line before every event)"),
    HTTP: FaultSpec(HTTP, "HTTP `status` with the dialect's error body",
                    (FaultParam("status", int, 500, required=True),), in_body=True, http_error=True),
}


def _keep_first(draft: StreamDraft, fault: Fault) -> None:
    draft.items = draft.items[: int(fault.params.get("keep", 1))]


def _comment_first(draft: StreamDraft, fault: Fault) -> None:
    for item in draft.items:
        item.data = b": zap\n" + item.data


def _answer_error(answer: Answer, fault: Fault) -> None:
    answer.error = error_plan(answer.renderer, int(fault.params["status"]), "zapped", faults=answer.applied)


INJECTED = {
    CUT: Injector("events", stream=_keep_first),
    FRAME: Injector("bytes", stream=_comment_first),
    HTTP: Injector("answer", answer=_answer_error),
}


@pytest.fixture
def newcomers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The throwaway kinds in the tables for one test (monkeypatch takes them out again)."""
    for kind, row in ROWS.items():
        monkeypatch.setitem(fault_table._ROWS, kind, row)
        monkeypatch.setitem(injectors._INJECTORS, kind, INJECTED[kind])


def _completed_chat_stream() -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


@pytest.mark.usefixtures("newcomers")
def test_the_judge_treats_a_new_cutting_kind_as_a_cut_stream() -> None:
    scenario = replace(ONE_CALL, faults=(Fault(CUT),))
    assert not has_fault_rules(ONE_CALL)
    assert has_fault_rules(scenario)
    exchange = Exchange("http://127.0.0.1:1/v1/x", {}, 0.0, 200, {"content-type": "text/event-stream"},
                        (Chunk(0.0, _completed_chat_stream()),))
    findings = Findings()
    check_faults(findings, scenario, read_answer(exchange, "openai", "chat"))
    failed = {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}
    assert list(failed) == ["GW-FAULT-003"]
    assert failed["GW-FAULT-003"][0].startswith("the upstream failed mid-stream (zap_cut) and the front still ended")


@pytest.mark.usefixtures("newcomers")
def test_the_client_rules_name_a_new_framing_kind_as_a_variant() -> None:
    scenario = replace(ONE_CALL, faults=(Fault(FRAME), Fault(CUT)))
    assert framing_variants(scenario) == ["zap_frame (a comment line before every event)"]


@pytest.mark.usefixtures("newcomers")
def test_a_leg_and_the_run_plan_treat_a_new_http_kind_as_an_http_error() -> None:
    leg = {"faults": [{"kind": HTTP, "status": 418}]}
    raw = {"id": "seq", "legs": [leg, {"output": []}], "expect": {"status": "completed"}}
    assert leg_source(raw, leg, 0)["expect"] == {"status": "error", "http_status": 418}
    plain = gateway_groups(ONE_CALL, "responses")
    groups = gateway_groups(replace(ONE_CALL, faults=(Fault(HTTP, 1.0, {"status": 418}),)), "responses")
    assert "faults" in groups and "faults" not in plain
    assert set(plain) & set(STREAM_FAMILIES) and not set(groups) & set(STREAM_FAMILIES)  # no stream to judge


@pytest.mark.usefixtures("newcomers")
def test_the_mock_plays_new_kinds_by_their_injectors_and_reports_them_applied() -> None:
    renderer, ctx = RENDERERS["chat"], RenderContext()
    cut = replace(ONE_CALL, faults=(Fault(CUT, 1.0, {"keep": 2}), Fault("crlf")))
    played = make_plan(cut, renderer, ctx, stream=True, rng=Random(0))
    assert played.faults == ("crlf", CUT)  # the table's order: the newcomers come last
    assert played.wire.count(b"\r\n\r\n") == 2
    framed = make_plan(replace(ONE_CALL, faults=(Fault(FRAME),)), renderer, ctx, stream=True, rng=Random(0))
    plain = make_plan(ONE_CALL, renderer, ctx, stream=True, rng=Random(0))
    assert framed.wire.replace(b": zap\n", b"") == plain.wire != framed.wire
    http = make_plan(replace(ONE_CALL, faults=(Fault(HTTP, 1.0, {"status": 418}),)), renderer, ctx, stream=False,
                     rng=Random(0))
    assert (http.status, http.faults) == (418, (HTTP,))


@pytest.mark.usefixtures("newcomers")
def test_the_bindings_say_what_a_newcomer_still_lacks() -> None:
    problems = schema_mismatches(SCHEMA, FAULTS)
    assert [p.split(" is missing from ")[0] for p in problems] == [f"fault kind {k!r}" for k in ROWS]
    assert "$defs/fault/properties/kind/enum: add it there, and a block of its parameters" in problems[0]
    # with the enum entries and the parameter blocks, the schema binds
    fault = SCHEMA["$defs"]["fault"]
    blocks = [{"if": {"properties": {"kind": {"const": CUT}}}, "then": {"properties": {"keep": {"type": "integer"}}}},
              {"if": {"properties": {"kind": {"const": HTTP}}},
               "then": {"required": ["status"], "properties": {"status": {"enum": [418]}}}}]
    kind = {"enum": [*fault["properties"]["kind"]["enum"], *ROWS]}
    schema = {"$defs": {"fault": {"properties": {**fault["properties"], "kind": kind},
                                  "allOf": [*fault["allOf"], *blocks]}}}
    assert schema_mismatches(schema, FAULTS) == []
    assert injector_mismatches(FAULTS, INJECTORS) == []


def test_a_kind_without_an_injector_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(fault_table._ROWS, CUT, ROWS[CUT])
    assert injector_mismatches(FAULTS, INJECTORS) == [
        "fault kind 'zap_cut' has no injector: write its function and add it to INJECTORS in mock_server/_inject.py"]
    monkeypatch.setitem(injectors._INJECTORS, CUT, Injector("events", stream=_keep_first, body=_keep_first_body))
    assert injector_mismatches(FAULTS, INJECTORS) == [
        "fault kind 'zap_cut': FAULTS says in_body=False, but its injector changes a non-stream body: make them agree"]


def _keep_first_body(draft: object, fault: Fault) -> None:
    """Never called: only its presence is checked."""
