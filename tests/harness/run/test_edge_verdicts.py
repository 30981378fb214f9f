"""The edge-case judgements of docs/spec/verdicts.md, each on a correct and a broken client: real fakes (tests/fakes/)
run through the harness against a real mock on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RULES, Evidence, RuleResult, Violation
from callproof.harness.judge import INHERITED_NOTE, CaseResult, CaseSpec, attribute_inherited
from callproof.harness.outcome import Call, Result
from callproof.harness.run import Harness, RunConfig
from callproof.mock_server import bundled_scenarios
from tests import fakes


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _judge(defect: str | None, dialect: Dialect, cases: Sequence[str], *, client: str | None = None,
           scenarios: tuple[Path, ...] = ()) -> dict[str, CaseResult]:
    """The cases judged on the fake client with `defect` as a program, or on the in-process `client`."""
    command = None if client else f"{fakes.command('clients', defect)} --dialect {dialect}"
    config = RunConfig(client_cmd=command, client=client, client_dialect=dialect, case_timeout=10.0,
                       scenario_paths=scenarios)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*c.split("::"))) for c in cases]
    return {r.spec.id: r for r in results}


def _failed(result: CaseResult) -> list[str]:
    return [r.rule.id for r in result.failed]


def test_an_incomplete_response_reported_as_an_error_is_counted_once_by_cli_005() -> None:
    """§3: the calls done before the cut are handed on (not a bug), the incomplete response is reported as an error:
    CLI-005 alone fails; CLI-006 does not apply, and the expected group judges nothing (it says why)."""
    cases = ["length_after_first_call::client", "length_after_first_call::expected"]
    broken = _judge("errors_on_incomplete", "responses", cases)
    client, expected = broken["length_after_first_call::client"], broken["length_after_first_call::expected"]
    assert client.outcome == "failed" and _failed(client) == ["CLI-005"]
    assert "reported it as error" in client.message and "1 call done before the cut" in client.message
    assert "CLI-006" not in {r.rule.id for r in client.results if r.outcome != "not-applicable"}
    assert expected.outcome == "skipped" and "CLI-005" in expected.message
    correct = _judge(None, "responses", cases)
    assert {k: r.outcome for k, r in correct.items()} == dict.fromkeys(cases, "passed")


def test_an_incomplete_response_without_its_flag_still_fails_cli_005_and_the_expected_group() -> None:
    """The one-owner rule covers an error report only: a client that says the cut turn completed is judged by
    CLI-005 and by EXP-004 (it holds a wrong ending, not an error)."""
    broken = _judge("ignores_incomplete", "responses", ["length_mid_text::client", "length_mid_text::expected"])
    assert _failed(broken["length_mid_text::client"]) == ["CLI-005"]
    assert "EXP-004" in _failed(broken["length_mid_text::expected"])


def test_an_anthropic_stream_without_message_stop_may_be_finished_or_an_error() -> None:
    """§1: the anthropic SDK returns the message when the stream ends after message_delta; the reference client
    reports the missing message_stop as an error, and a client that finishes the turn holds the call: both pass."""
    cases = ["raw_anthropic_no_message_stop::client", "raw_anthropic_no_message_stop::expected"]
    for client in (None, "tests.fakes.anthropic_clients:finishing"):
        results = _judge(None, "anthropic", cases, client=client)
        assert {k: r.outcome for k, r in results.items()} == dict.fromkeys(cases, "passed"), client


def _failing(rule: str) -> RuleResult:
    return RuleResult(RULES[rule], "failed", (Violation(rule, f"{rule} finding", Evidence(path="$")),), 1)


def test_a_name_or_id_concatenated_as_the_sdk_does_is_the_streams_bug() -> None:
    """§4: under a stream breaking CHAT-TC-003, reported names and ids that are the expected ones repeated (the
    openai SDK's accumulator) turn EXP-001 and CLI-004 to `upstream`, shown, not failed; another value stays failed,
    and so does the same value under a stream that repeats nothing, or for a client of another dialect."""
    repeated, plain = bundled_scenarios()["name_repeated_on_later"], bundled_scenarios()["one_call"]
    wire = Result("completed", "", (Call("call_1", "get_weather", "{}"),), "response.completed")
    doubled = Result("completed", "", (Call("call_1call_1", "get_weatherget_weather", "{}"),), "adapter")
    other = Result("completed", "", (Call("call_2", "get_time", "{}"),), "adapter")
    results = [_failing("EXP-001"), _failing("CLI-004")]
    got = attribute_inherited(results, repeated, "chat", doubled, wire)
    assert [r.outcome for r in got] == ["upstream", "upstream"]
    assert got[0].violations[0].message.endswith(INHERITED_NOTE)
    assert [r.outcome for r in attribute_inherited(results, repeated, "chat", other, wire)] == ["failed", "failed"]
    assert [r.outcome for r in attribute_inherited(results, plain, "chat", doubled, wire)] == ["failed", "failed"]
    assert [r.outcome for r in attribute_inherited(results, repeated, "responses", doubled, wire)] == ["failed"] * 2


def test_the_reference_chat_client_still_passes_the_repeated_name_and_id_streams() -> None:
    """§4: de-duplicating is still right (the tolerant reading); nothing is failed or attributed for it."""
    cases = ["name_repeated_on_later::client", "name_repeated_on_later::expected", "id_on_every_chunk::client",
             "id_on_every_chunk::expected"]
    results = _judge(None, "chat", cases)
    assert {k: (r.outcome, r.message) for k, r in results.items()} == dict.fromkeys(cases, ("passed", ""))


#: §2: per front, the rules that own the promise an empty HTTP 200 broke, by group (one_call); every other group
#: is `error`, naming what arrived.
EMPTY_OWNERS: dict[Dialect, dict[str, set[str]]] = {
    "responses": {"lifecycle": {"RSP-LIFE-001", "RSP-LIFE-002"}, "expected": {"EXP-001", "EXP-004"}},
    "chat": {"framing": {"CHAT-FRAME-001"}, "schema": {"CHAT-SCHEMA-001"}, "expected": {"EXP-001", "EXP-004"}},
    "anthropic": {"lifecycle": {"ANT-LIFE-001", "ANT-LIFE-002"}, "expected": {"EXP-001", "EXP-004"}},
}
EMPTY = "no judgeable stream: HTTP 200 text/event-stream, 0 bytes, 0 events: nothing the stream rules can apply to"


@pytest.mark.parametrize("front", list(EMPTY_OWNERS))
def test_an_empty_http_200_is_failed_by_its_owners_and_an_error_elsewhere(front: Dialect) -> None:
    """§2: a gateway that read its upstream and answered 200 with an empty body passes and skips nothing: the groups
    whose rules own the promise fail (a MUST, then what arrived), every other group is an error saying what arrived;
    the reference gateway passes them (test_mutations.py, test_the_reference_gateway_passes_every_case)."""
    defect = "empty_200" if front == "responses" else f"{front}_empty_200"
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect chat", front=front,
                       upstream_dialect="chat", case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(s) for s in harness.cases() if s.scenario == "one_call"]
    assert results
    failed = {r.spec.group: set(_failed(r)) for r in results if r.outcome == "failed"}
    assert failed == EMPTY_OWNERS[front]
    for result in results:
        assert result.outcome in ("failed", "error"), (result.spec.id, result.outcome)
        assert result.message.endswith(EMPTY), (result.spec.id, result.message)


def test_the_openai_sdks_own_accumulation_of_a_repeated_name_or_id_is_shown_not_failed() -> None:
    """§4 end to end: the openai SDK's ChatCompletionStreamState doubles the name (`name_repeated_on_later`) and the
    id (`id_on_every_chunk`); the cases pass, each naming the finding it attributes to the stream."""
    config = RunConfig(client="tests.fakes.edge_clients:sdk_chat", client_dialect="chat", case_timeout=15)
    cases = {"name_repeated_on_later::expected": "EXP-001", "id_on_every_chunk::client": "CLI-004"}
    with Harness(config) as harness:
        results = {c: harness.judge(CaseSpec(*c.split("::"))) for c in cases}
    for case, rule in cases.items():
        result = results[case]
        assert result.outcome == "passed", (case, result.message)
        assert [r.rule.id for r in result.results if r.outcome == "upstream"] == [rule]
        assert result.message.startswith(f"{rule} MUST attributed to the upstream") and INHERITED_NOTE in result.message


def _played(front: Dialect, defect: str | None, scenarios: Sequence[str],
            upstream: Dialect = "chat") -> list[CaseResult]:
    """Every case of `scenarios`, the gateway with `defect` (None: the reference) at its `front`."""
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect {upstream}", front=front,
                       upstream_dialect=upstream, case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(s) for s in harness.cases() if s.scenario in scenarios]
    assert {r.spec.scenario for r in results} == set(scenarios)
    return results


def _not_passed(results: Sequence[CaseResult]) -> dict[str, list[str]]:
    """The cases that did not pass, with their failed rules (every other case passed)."""
    assert {r.outcome for r in results} <= {"passed", "failed"}, [(r.spec.id, r.outcome, r.message) for r in results]
    return {r.spec.id: _failed(r) for r in results if r.outcome == "failed"}


#: §6: per fake, its front and whether it reports the content filter as a refusal in the stream too (else in the
#: non-stream response alone).
FILTER_AS_REFUSAL: dict[str, tuple[Dialect, bool]] = {
    "filter_as_refusal": ("responses", True), "body_filter_as_refusal": ("responses", False),
    "chat_filter_as_refusal": ("chat", True), "chat_body_filter_as_refusal": ("chat", False),
    "anthropic_filter_as_refusal": ("anthropic", True), "anthropic_body_filter_as_refusal": ("anthropic", False),
}


@pytest.mark.parametrize("defect", list(FILTER_AS_REFUSAL))
def test_a_content_filter_reported_as_a_refusal_fails_gw_fault_004_alone(defect: str) -> None:
    """§6: a gateway that answers an upstream content filter's cut as the model refusing (Anthropic stop_details of
    type refusal, a Responses refusal part, a Chat refusal), streamed and non-stream or in the non-stream response
    alone: of every case of content_filter_text, only the faults case fails, on GW-FAULT-004, once per form that
    did it; the expected and equivalence cases pass (the words and the stop reason are right)."""
    front, streamed = FILTER_AS_REFUSAL[defect]
    results = _played(front, defect, ["content_filter_text"])
    assert _not_passed(results) == {"content_filter_text::faults": ["GW-FAULT-004"]}
    faults = next(r for r in results if r.spec.group == "faults")
    messages = [v.message for r in faults.failed for v in r.violations]
    twin = ["the non-stream response: the upstream's content filter cut the turn; the front reported the model "
            "refusing instead"]
    stream = ["the upstream's content filter cut the turn; the front reported the model refusing instead"]
    assert [m.split(" (")[0] for m in messages] == (stream + twin if streamed else twin)


@pytest.mark.parametrize("front", ["responses", "chat", "anthropic"])
def test_a_faithful_gateway_passes_the_content_filter_endings(front: Dialect) -> None:
    """§5, §6: the reference gateway (the text as text, the front's content filter ending, no refusal, in both
    forms) passes every case of both content filter scenarios, over an Anthropic upstream, whose content filter is
    stop_reason "refusal" without stop_details."""
    results = _played(front, None, ["content_filter_text", "content_filter_no_output"], upstream="anthropic")
    assert _not_passed(results) == {}


def test_gw_eq_001_passes_a_body_that_alone_adds_stop_details_and_fails_another_stop_reason() -> None:
    """§5: stream and non-stream response agree on the text and stop_reason "refusal", the body alone adding
    stop_details of type refusal: GW-EQ-001 passes (GW-FAULT-004 owns the body's refusal, above). A body that says
    another stop reason (end_turn) is a real disagreement: GW-EQ-001 fails, blaming the non-stream response, and
    GW-FAULT-004 names its stop_reason."""
    results = _played("anthropic", "anthropic_body_filter_as_end_turn", ["content_filter_text"])
    assert _not_passed(results) == {"content_filter_text::equivalence": ["GW-EQ-001"],
                                    "content_filter_text::faults": ["GW-FAULT-004"]}
    equivalence = next(r for r in results if r.spec.group == "equivalence")
    assert equivalence.message.startswith("GW-EQ-001 MUST: the non-stream response differs from the stream in status")
    assert "the non-stream response differs from the scenario's expected outcome, the stream matches it" in \
        equivalence.message


#: A scenario no bundled one matches: a clean cut after the tool_use block, before message_delta's stop_reason.
CUT_BEFORE = Path(__file__).parent / "data" / "cut_before_stop_reason.json"
AFTER_CASES = ["fault_truncate::client", "fault_truncate::expected"]
BEFORE_CASES = ["fault_truncate_before_stop_reason::client", "fault_truncate_before_stop_reason::expected"]


def _outcomes(results: dict[str, CaseResult]) -> dict[str, tuple[str, list[str]]]:
    return {case: (r.outcome, _failed(r)) for case, r in results.items()}


def _passed_rules(result: CaseResult) -> set[str]:
    return {r.rule.id for r in result.results if r.outcome == "passed"}


def test_a_client_may_finish_an_anthropic_turn_cut_after_its_stop_reason_or_report_the_error() -> None:
    """§1 on `fault_truncate`, whose cut in the Anthropic dialect leaves out message_stop alone: the reference client
    (an error) and a client that finishes the turn as the anthropic SDK does both pass; the finished one is held to
    the call it must hand on (EXP-001, EXP-002 judged and passed). Cut before the stop_reason, the finishing client
    still reports the error, and a client that finishes any clean end fails CLI-002 (and EXP-004) there."""
    passed: dict[str, tuple[str, list[str]]] = dict.fromkeys(AFTER_CASES + BEFORE_CASES, ("passed", []))
    assert _outcomes(_judge(None, "anthropic", AFTER_CASES + BEFORE_CASES, scenarios=(CUT_BEFORE,))) == passed
    finishing = _judge(None, "anthropic", AFTER_CASES + BEFORE_CASES, client="tests.fakes.anthropic_clients:finishing",
                       scenarios=(CUT_BEFORE,))
    assert _outcomes(finishing) == passed
    assert {"EXP-001", "EXP-002", "EXP-004"} <= _passed_rules(finishing["fault_truncate::expected"])
    broken = _judge(None, "anthropic", AFTER_CASES + BEFORE_CASES, scenarios=(CUT_BEFORE,),
                    client="tests.fakes.anthropic_clients:finishing_any_end")
    assert _outcomes(broken) == {**dict.fromkeys(AFTER_CASES, ("passed", [])),
                                 BEFORE_CASES[0]: ("failed", ["CLI-002"]), BEFORE_CASES[1]: ("failed", ["EXP-004"])}
    assert "the wire ended cut: \"the stream ended without a stop_reason\"" in broken[BEFORE_CASES[0]].message


def test_the_anthropic_sdk_passes_a_turn_cut_after_its_stop_reason() -> None:
    """§1 with the real client: `client.messages.stream` returns the whole Message, no error (CLI-002 and EXP-004
    failed it before; examples/baselines/anthropic-sdk.txt listed them)."""
    pytest.importorskip("anthropic")
    results = _judge(None, "anthropic", AFTER_CASES, client="examples.client_anthropic:run")
    assert _outcomes(results) == dict.fromkeys(AFTER_CASES, ("passed", []))
    assert "EXP-001" in _passed_rules(results["fault_truncate::expected"])


def _gateway(defect: str | None, front: Dialect) -> dict[str, tuple[str, list[str]]]:
    config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect anthropic", front=front,
                       upstream_dialect="anthropic", case_timeout=15, scenario_paths=(CUT_BEFORE,))
    with Harness(config) as harness:
        results = [harness.judge(s) for s in harness.cases()
                   if s.scenario in ("fault_truncate", "fault_truncate_before_stop_reason")]
    assert {r.spec.group for r in results} >= {"expected", "faults"}
    return {r.spec.id: (r.outcome, _failed(r)) for r in results}


@pytest.mark.parametrize("front", ["responses", "chat", "anthropic"])
def test_a_gateway_may_finish_an_anthropic_turn_cut_after_its_stop_reason_but_not_before(front: Dialect) -> None:
    """§1, the gateway half, over an Anthropic upstream: the reference gateway fails the front's turn, and
    `passes_settled_turn` finishes it from the stop_reason it got, as LiteLLM does (GW-FAULT-003 and EXP-004 failed
    it before): both pass every case. `invents_finish_after_cut` finishes a turn cut before its stop_reason too:
    GW-FAULT-003 fails it in the faults case, EXP-004 in the expected case, nothing else."""
    for defect in (None, "passes_settled_turn"):
        got = _gateway(defect, front)
        assert {case: outcome for case, outcome in got.items() if outcome != ("passed", [])} == {}, defect
    got = _gateway("invents_finish_after_cut", front)
    assert {case: outcome for case, outcome in got.items() if outcome != ("passed", [])} == {
        "fault_truncate_before_stop_reason::faults": ("failed", ["GW-FAULT-003"]),
        "fault_truncate_before_stop_reason::expected": ("failed", ["EXP-004"]),
    }


ERROR_THEN_DONE = ["chat_error_then_done::client", "chat_error_then_done::expected"]


def test_a_chat_error_object_then_done_is_a_failed_turn_for_a_client() -> None:
    """§11: vLLM's error object followed by `data: [DONE]`: the reference client reports the error and passes; one that
    skips the error object and takes [DONE] for success fails CLI-002 in the client case (and holds the wrong ending,
    EXP-004), nothing else."""
    assert {k: (r.outcome, r.message) for k, r in _judge(None, "chat", ERROR_THEN_DONE).items()} == \
        dict.fromkeys(ERROR_THEN_DONE, ("passed", ""))
    broken = _judge("done_as_success", "chat", ERROR_THEN_DONE)
    client, expected = broken["chat_error_then_done::client"], broken["chat_error_then_done::expected"]
    assert _failed(client) == ["CLI-002"]
    assert "The model backend failed while generating." in client.message
    assert _failed(expected) == ["EXP-004"]


def test_the_openai_sdk_raises_at_a_chat_error_object_whatever_follows() -> None:
    """§11, the arbiter: openai-python's Stream raises APIError at `data: {"error": ...}` and never reads the [DONE]
    after it, so the official SDK's adapter (examples/client_openai_chat.py) reports the error and passes."""
    config = RunConfig(client="examples.client_openai_chat:run", client_dialect="chat", case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(CaseSpec(*c.split("::"))) for c in ERROR_THEN_DONE]
    assert [(r.outcome, r.message) for r in results] == [("passed", "")] * 2


@pytest.mark.parametrize("upstream", ["chat", "responses"])
def test_a_chat_front_may_write_done_after_its_error_object(upstream: Dialect) -> None:
    """§11 at a gateway's Chat front: the reference gateway ends a failed turn at its error object, the
    `error_then_done` variant writes `data: [DONE]` after it; over a failing upstream (an in-stream error, a cut, an
    HTTP error after none) both pass every case (CHAT-FRAME-001, GW-FAULT-003, EXP-004 among them)."""
    scenarios = {"fault_stream_error", "fault_disconnect_after_events", "fault_truncate", "failed_after_text"}
    for defect in (None, "error_then_done"):
        config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect {upstream}", front="chat",
                           upstream_dialect=upstream, case_timeout=15)
        with Harness(config) as harness:
            results = [harness.judge(s) for s in harness.cases() if s.scenario in scenarios]
        assert {r.spec.scenario for r in results} == scenarios
        assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []


NO_INDEX = "chat_parallel_calls_without_index"
INDEXLESS = [f"{NO_INDEX}::client", f"{NO_INDEX}::expected"]


def test_chat_calls_without_index_are_told_apart_by_their_ids() -> None:
    """§12: two parallel calls whose deltas carry their ids but no index: the reference client keys them by id and
    passes; one that takes a missing index for 0 merges them into one call and fails EXP-001 alone."""
    assert {k: (r.outcome, r.message) for k, r in _judge(None, "chat", INDEXLESS).items()} == \
        dict.fromkeys(INDEXLESS, ("passed", ""))
    broken = _judge("indexless_calls_merged", "chat", INDEXLESS)
    assert broken[f"{NO_INDEX}::client"].outcome == "passed"
    expected = broken[f"{NO_INDEX}::expected"]
    assert _failed(expected) == ["EXP-001"]
    assert "1 call: get_weatherget_time" in expected.message and "expected 2 calls" in expected.message


@pytest.mark.parametrize("front", ["responses", "chat", "anthropic"])
def test_a_gateway_keeps_chat_calls_without_index_apart_by_their_ids(front: Dialect) -> None:
    """§12 at a gateway with a Chat upstream: the reference gateway's Chat reader keys index-less deltas by id and
    passes every case at every front; the reader that takes a missing index for the delta's position merges the two
    calls (its arguments guard then fails the turn) and fails EXP-001."""
    cases = []
    for defect in (None, "indexless_calls_merged"):
        config = RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect chat", front=front,
                           upstream_dialect="chat", case_timeout=15)
        with Harness(config) as harness:
            cases.append([harness.judge(s) for s in harness.cases() if s.scenario == NO_INDEX])
    correct, broken = cases
    assert correct and [(r.spec.id, r.outcome, r.message) for r in correct if r.outcome != "passed"] == []
    expected = next(r for r in broken if r.spec.group == "expected")
    assert "EXP-001" in _failed(expected) and "expected 2 calls" in expected.message
