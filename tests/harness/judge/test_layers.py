"""The adapter's `layer` (docs/adapters.md#layers, docs/spec/contracts.md §5 and §7.9): what CLI-008 asks of a call
whose arguments are not JSON depends on it. A raw layer may hand the call on as it came; a parsed (the default) or
executing layer reports an error or leaves it out; an unknown layer breaks the protocol (CLI-001)."""

from __future__ import annotations

from typing import Any

import pytest

from callproof.harness.judge import AdapterRun, Findings, check_client, protocol_problem
from callproof.harness.judge._adapter import LAYERS, adapter_layer
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import bundled_scenarios

SCENARIOS = bundled_scenarios()
MALFORMED = SCENARIOS["malformed_args_completed"]
BESIDE = SCENARIOS["malformed_beside_valid"]
TEXT = '{"city": "Paris"'
TEXT_SHOWN = '"{\\"city\\": \\"Paris\\""'
REPAIRED_SHOWN = '"{\\"city\\": \\"Paris\\"}"'


def _messages(scenario: Any, layer: object, *calls: Call, error: str | None = None) -> dict[str, list[str]]:
    """The failed rules of the client checks (rule id -> messages) for an adapter result of `calls`."""
    raw: dict[str, Any] = {} if layer is None else {"layer": layer}
    result = Result("error" if error else "completed", "", calls, "adapter", error=error)
    findings = Findings()
    check_client(findings, scenario, AdapterRun(raw, None, "", 0.1), result, result)
    assert findings.checked("CLI-008")
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


@pytest.mark.parametrize("layer", ["raw", "parsed", "executing", None])
def test_an_error_or_the_call_left_out_passes_every_layer(layer: str | None) -> None:
    assert _messages(MALFORMED, layer, error="get_weather: arguments are not JSON") == {}
    assert _messages(MALFORMED, layer) == {}


def test_a_raw_layer_hands_the_call_on_as_it_came() -> None:
    assert _messages(MALFORMED, "raw", Call("call_malformed_1", "get_weather", TEXT)) == {}


def test_a_raw_layer_hands_it_on_beside_the_valid_call() -> None:
    valid = next(c for c in BESIDE.calls if c.arguments != TEXT)
    calls = [Call(c.call_id, c.name, c.arguments) for c in BESIDE.calls]
    assert any(c.arguments == TEXT for c in calls) and valid.arguments
    assert _messages(BESIDE, "raw", *calls) == {}


def test_a_parsed_layer_handing_the_call_on_fails_cli_008_naming_the_layer_and_the_call() -> None:
    message = (f"adapter layer 'parsed' handed on call 0 (get_weather) with arguments {TEXT_SHOWN} that are not "
               "JSON, and no error: a parsed call must be reported as an error or left out; a raw layer may hand "
               "it on as it came (docs/adapters.md#layers)")
    assert _messages(MALFORMED, "parsed", Call("c", "get_weather", TEXT)) == {"CLI-008": [message]}
    assert _messages(MALFORMED, None, Call("c", "get_weather", TEXT)) == {"CLI-008": [message]}  # the default


def test_an_executing_layer_handing_the_call_on_fails_cli_008() -> None:
    message = (f"adapter layer 'executing' handed on call 0 (get_weather) with arguments {TEXT_SHOWN} that are not "
               "JSON, and no error: an executing layer must not run it: report an error or leave it out "
               "(docs/adapters.md#layers)")
    assert _messages(MALFORMED, "executing", Call("c", "get_weather", TEXT)) == {"CLI-008": [message]}


def test_a_repair_fails_cli_008_at_every_layer() -> None:
    for layer, duty in (("raw", "a raw layer hands such a call on as it came, byte for byte, or reports an error "
                                "or leaves it out"),
                        ("parsed", "a parsed call must be reported as an error or left out; a raw layer may hand "
                                   "it on as it came")):
        message = (f"adapter layer {layer!r} handed on call 0 (get_weather) with arguments {REPAIRED_SHOWN}, not "
                   f"the stream's {TEXT_SHOWN} (not JSON): repaired into JSON the model never produced, and no "
                   f"error: {duty} (docs/adapters.md#layers)")
        assert _messages(MALFORMED, layer, Call("c", "get_weather", TEXT + "}")) == {"CLI-008": [message]}


def test_a_raw_layer_that_changes_the_text_fails_cli_008() -> None:
    failed = _messages(MALFORMED, "raw", Call("c", "get_weather", TEXT + " "))
    assert failed == {"CLI-008": [
        'adapter layer \'raw\' handed on call 0 (get_weather) with arguments "{\\"city\\": \\"Paris\\" ", not the '
        f"stream's {TEXT_SHOWN} (not JSON): changed, and no error: a raw layer hands such a call on as it came, byte "
        "for byte, or reports an error or leaves it out (docs/adapters.md#layers)"]}


def test_the_layer_judges_only_calls_whose_arguments_are_not_json() -> None:
    scenario = SCENARIOS["one_call"]
    call = scenario.calls[0]
    findings = Findings()
    result = Result("completed", scenario.expect.text or "", (Call(call.call_id, call.name, call.arguments),),
                    "adapter")
    check_client(findings, scenario, AdapterRun({"layer": "raw"}, None, "", 0.1), result, result)
    assert not findings.checked("CLI-008")


@pytest.mark.parametrize(("value", "problem"), [
    ({"layer": "unparsed"}, '`layer` is "unparsed"; use "raw", "parsed" or "executing", or leave it out for '
                            '"parsed" (docs/adapters.md#layers)'),
    ({"layer": None}, '`layer` is null; use "raw", "parsed" or "executing", or leave it out for "parsed" '
                      "(docs/adapters.md#layers)"),
    ({"layer": ["raw"]}, '`layer` is ["raw"]; use "raw", "parsed" or "executing", or leave it out for "parsed" '
                         "(docs/adapters.md#layers)"),
    ({"layer": "RAW"}, '`layer` is "RAW"; use "raw", "parsed" or "executing", or leave it out for "parsed" '
                       "(docs/adapters.md#layers)"),
    *(({"layer": layer}, None) for layer in LAYERS),
    ({}, None),
])
def test_an_unknown_layer_breaks_the_protocol(value: dict[str, Any], problem: str | None) -> None:
    assert protocol_problem(value) == problem


def test_an_unknown_layer_fails_cli_001_with_the_field_named() -> None:
    findings = Findings()
    problem = protocol_problem({"layer": "unparsed"})
    check_client(findings, MALFORMED, AdapterRun(None, problem, "", 0.1), None, Result("completed", "", (), "x"))
    [failed] = [r for r in findings.results() if r.outcome == "failed"]
    assert failed.rule.id == "CLI-001"
    assert failed.violations[0].message == f"{problem}; stderr was empty"


def test_the_default_layer_is_parsed() -> None:
    assert adapter_layer({}) == "parsed"
    assert adapter_layer(None) == "parsed"
    assert [adapter_layer({"layer": layer}) for layer in LAYERS] == list(LAYERS)
