"""The adapter's `layer` through the harness (docs/adapters.md#layers): the raw-layer clients of
tests/fakes/layer_clients.py, which hand a call whose arguments are not JSON on as it came, pass every case of the
scenarios with such arguments in each dialect; declared `executing` or with an unknown layer, the same client is
failed by CLI-008 or CLI-001 with the message the docs show. Real processes and a real mock on 127.0.0.1."""

from __future__ import annotations

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes

#: The scenarios whose calls carry arguments that are not JSON (or a stream event that is not), and the groups that
#: judge a client on them.
MALFORMED = ("malformed_args_completed", "malformed_beside_valid", "non_stream_malformed_beside_valid",
             "fault_malformed")
GROUPS = ("expected", "client")


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_a_raw_client_handing_the_arguments_on_as_they_came_passes(dialect: Dialect) -> None:
    config = RunConfig(client="tests.fakes.layer_clients:run", client_dialect=dialect, case_timeout=15)
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in MALFORMED and s.group in GROUPS]
        results = [harness.judge(s) for s in specs]
    assert {s.scenario for s in specs} >= {"malformed_args_completed", "malformed_beside_valid"}
    assert [(r.spec.id, r.outcome, r.message) for r in results if r.outcome != "passed"] == []
    assert all(r.outcome == "passed" for r in results)


def _judge(defect: str, case: str) -> CaseResult:
    config = RunConfig(client_cmd=fakes.command("clients", defect), case_timeout=15)
    scenario, _, group = case.partition("::")
    with Harness(config) as harness:
        return harness.judge(CaseSpec(scenario, group))


def test_an_executing_client_handing_the_call_on_fails_cli_008_naming_its_layer() -> None:
    result = _judge("executing_hands_on_malformed", "malformed_args_completed::client")
    assert result.outcome == "failed"
    [failed] = result.failed
    assert failed.rule.id == "CLI-008"
    assert [v.message for v in failed.violations] == [
        "adapter layer 'executing' handed on call 0 (get_weather) with arguments \"{\\\"city\\\": \\\"Paris\\\"\" "
        "that are not JSON, and no error: an executing layer must not run it: report an error or leave it out "
        "(docs/adapters.md#layers)"]


def test_an_unknown_layer_is_an_adapter_error_naming_the_field() -> None:
    result = _judge("unknown_layer", "one_call::client")
    assert result.outcome == "failed"
    assert [r.rule.id for r in result.failed] == ["CLI-001"]
    assert result.failed[0].violations[0].message.startswith(
        '`layer` is "unparsed"; use "raw", "parsed" or "executing", or leave it out for "parsed" '
        "(docs/adapters.md#layers)")
