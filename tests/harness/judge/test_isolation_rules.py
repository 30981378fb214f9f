"""The isolation case's gateway rules on hand-made answers: GW-ISO-001 compares each concurrent answer with the same
gateway's answer alone (calls by name and parsed arguments, never by id; text; ending), not with the scenario's
expectation; GW-ID-002 fails an id issued in answers to two scenarios, and leaves alone the ids the gateway was given
(passed through), ids derived from an id both answers were given, and the same ids in two plays of one scenario."""

from __future__ import annotations

import json
from typing import Any

from callproof.harness.check import parse_sse
from callproof.harness.judge import Findings, IdsOfAnswer, answer_ids, check_isolation, check_unique_ids, given_ids
from callproof.harness.outcome import Call, Result
from callproof.mock_server import bundled_scenarios

SCENARIOS = bundled_scenarios()
PARALLEL = SCENARIOS["parallel_two_calls"]
ONE = SCENARIOS["one_call"]


def _failed(findings: Findings) -> dict[str, list[str]]:
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _iso(result: Result, alone: Result) -> dict[str, list[str]]:
    findings = Findings()
    check_isolation(findings, [(PARALLEL, result, alone)])
    return _failed(findings)


def _result(*calls: Call, text: str = "", status: Any = "completed", error: str | None = None) -> Result:
    return Result(status, text, calls, "response.completed", error=error)


def test_a_concurrent_answer_equal_to_the_answer_alone_passes_even_when_both_are_wrong() -> None:
    """The scenario expects two calls; a gateway that drops the second, alone and concurrently, is not isolation's."""
    dropped = _result(Call("call_1", "get_weather", '{"city": "Paris"}'))
    assert _iso(dropped, dropped) == {}


def test_calls_are_compared_by_name_and_meaning_never_by_id() -> None:
    alone = _result(Call("call_a", "f", '{"a": 1, "b": [1, 2]}'))
    minted = _result(Call("call_b", "f", '{"b":[1,2],"a":1}'))
    assert _iso(minted, alone) == {}
    not_json = _result(Call("x", "f", "{oops"))
    assert _iso(not_json, not_json) == {}  # the same text that is not JSON is the same answer


def test_a_different_call_text_or_ending_fails_gw_iso_001_naming_both_answers() -> None:
    alone = _result(Call("c", "f", '{"a": 1}'), text="hi")
    failed = _iso(_result(Call("c", "f", '{"a": 2}'), text="hi"), alone)
    assert failed == {"GW-ISO-001": [
        'concurrent case parallel_two_calls got calls [["f", {"a": 2}]] and text "hi", ended completed; alone the same '
        'gateway answered [["f", {"a": 1}]] and "hi", ended completed']}
    assert "GW-ISO-001" in _iso(_result(Call("c", "f", '{"a": 1}'), text="hi!"), alone)
    cut = _iso(_result(Call("c", "f", '{"a": 1}'), text="hi", status="failed", error="upstream cut"), alone)
    assert cut["GW-ISO-001"][0].endswith(
        'ended failed with error "upstream cut"; alone the same gateway answered [["f", {"a": 1}]] and "hi", ended '
        'completed')


def _events(*payloads: dict[str, Any]) -> Any:
    data = b"".join(f"event: {p['type']}\ndata: {json.dumps(p)}\n\n".encode() for p in payloads)
    return parse_sse(data)[0]


def _answer(response_id: str, item_id: str, call_id: str) -> Any:
    item = {"id": item_id, "type": "function_call", "call_id": call_id, "name": "f", "arguments": "{}"}
    return _events({"type": "response.created", "response": {"id": response_id, "output": []}},
                   {"type": "response.output_item.done", "output_index": 0, "item": item},
                   {"type": "response.completed", "response": {"id": response_id, "output": [item]}})


UPSTREAM = b'data: {"id":"chatcmpl-abc123","choices":[{"delta":{"tool_calls":[{"id":"call_1","index":0}]}}]}\n\n'
OTHER = b'data: {"id":"chatcmpl-def456","choices":[{"delta":{"tool_calls":[{"id":"call_1","index":0}]}}]}\n\n'


def test_the_ids_an_answer_carries_and_the_ids_it_was_given() -> None:
    ids = answer_ids(_answer("resp_9f2c", "fc_call_1", "call_1"))
    assert {value: (w.event_index, w.event_type, w.path) for value, w in ids.items()} == {
        "resp_9f2c": (0, "response.created", "$.response.id"),
        "fc_call_1": (1, "response.output_item.done", "$.item.id"),
        "call_1": (1, "response.output_item.done", "$.item.call_id")}
    request = b'{"input": [{"type": "function_call_output", "call_id": "call_prev", "output": "ok"}], "model": "m"}'
    # `id` and `..._id` keys, 4 characters or more, in SSE data lines, JSON lines or a JSON body
    assert given_ids([UPSTREAM, request, b'{"id": "ab"}']) == {"chatcmpl-abc123", "call_1", "call_prev"}


def _unique(*answers: tuple[str, str, Any, bytes]) -> dict[str, list[str]]:
    findings = Findings()
    check_unique_ids(findings, [IdsOfAnswer(scenario, name, answer_ids(events), given_ids([given]))
                                for scenario, name, events, given in answers])
    return _failed(findings)


def test_random_ids_and_passed_through_ones_pass_gw_id_002() -> None:
    assert _unique(("one_call", "one_call alone", _answer("resp_1a", "fc_1a", "call_1"), UPSTREAM),
                   ("text_only", "text_only alone", _answer("resp_2b", "fc_2b", "call_1"), OTHER),
                   ("text_only", "text_only concurrent", _answer("resp_3c", "fc_3c", "call_1"), OTHER)) == {}


def test_an_id_derived_from_an_id_both_answers_were_given_is_the_scripts_repeat() -> None:
    """Two scenarios script call_1: item ids made from it (`fc_call_1`) repeat because the script does."""
    assert _unique(("one_call", "one_call alone", _answer("resp_1a", "fc_call_1", "call_1"), UPSTREAM),
                   ("text_only", "text_only alone", _answer("resp_2b", "fc_call_1", "call_1"), OTHER)) == {}


def test_the_same_ids_in_two_plays_of_one_scenario_are_not_counted() -> None:
    """The mock answers a scenario with the same ids every time: ids encoded from them repeat, rightly."""
    assert _unique(("one_call", "one_call alone", _answer("resp_x", "fc_x", "call_1"), UPSTREAM),
                   ("one_call", "one_call concurrent", _answer("resp_x", "fc_x", "call_1"), UPSTREAM)) == {}


def test_ids_from_the_clock_fail_gw_id_002_once_per_id_naming_every_answer() -> None:
    failed = _unique(
        ("one_call", "one_call concurrent", _answer("resp_1764331234", "fc_1764331234_0", "call_1"), UPSTREAM),
        ("text_only", "text_only concurrent", _answer("resp_1764331234", "fc_1764331234_0", "call_1"), OTHER))
    assert failed == {"GW-ID-002": [
        "the id 'resp_1764331234' was issued in 2 responses of this run: one_call concurrent (event #0 "
        "'response.created', $.response.id); text_only concurrent (event #0 'response.created', $.response.id); an "
        "id made from the clock or a per-process counter repeats",
        "the id 'fc_1764331234_0' was issued in 2 responses of this run: one_call concurrent (event #1 "
        "'response.output_item.done', $.item.id); text_only concurrent (event #1 'response.output_item.done', "
        "$.item.id); an id made from the clock or a per-process counter repeats"]}


def test_an_id_holding_one_only_one_answer_was_given_still_counts() -> None:
    """`fc_chatcmpl-abc123` holds an id one_call's upstream played, not text_only's: a leak, not the script."""
    failed = _unique(("one_call", "one_call concurrent", _answer("resp_1a", "fc_chatcmpl-abc123", "call_1"), UPSTREAM),
                     ("text_only", "text_only concurrent", _answer("resp_2b", "fc_chatcmpl-abc123", "call_1"), OTHER))
    assert list(failed) == ["GW-ID-002"] and "'fc_chatcmpl-abc123' was issued in 2 responses" in failed["GW-ID-002"][0]
