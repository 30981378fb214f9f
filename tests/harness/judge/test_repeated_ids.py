"""One policy for an id the upstream repeated (docs/spec/contracts.md §7.8 and §7.9, ids): it is the upstream's
fault. A gateway gives such calls ids unique in its answer (one may keep the repeated id), and keeps an id the
upstream gave one call only unchanged (GW-ID-001); the client side is in test_client_rules.py (CLI-004)."""

from __future__ import annotations

from callproof.harness.judge import Findings, check_ids
from callproof.harness.outcome import Call, Result
from callproof.harness.scenario import bundled_scenarios

DUPLICATE = bundled_scenarios()["duplicate_call_ids"]
PARIS, MADRID = '{"city":"Paris"}', '{"city":"Madrid"}'


def _gateway(first: str | None, second: str | None) -> dict[str, list[str]]:
    findings = Findings()
    answer = Result("completed", "", (Call(first, "get_weather", PARIS), Call(second, "get_weather", MADRID)),
                    "response.completed")
    check_ids(findings, DUPLICATE, answer)
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def test_a_gateway_makes_a_repeated_id_unique_keeping_it_on_one_call_or_none() -> None:
    assert _gateway("call_0", "call_1") == {}
    assert _gateway("call_a", "call_b") == {}  # neither keeps it: the repeated id pairs nothing anyway
    assert _gateway("call_x", "call_0") == {}


def test_a_gateway_that_passes_a_repeated_id_on_fails_gw_id_001() -> None:
    assert _gateway("call_0", "call_0") == {"GW-ID-001": [
        "call 1 (get_weather) has call_id 'call_0', already used by an earlier call; the upstream sent the repeated "
        "id 'call_0'"]}
    assert _gateway("call_0", None) == {"GW-ID-001": [
        "call 1 (get_weather) has no call_id; the upstream sent the repeated id 'call_0'"]}


def test_an_id_the_upstream_gave_one_call_is_kept_unchanged() -> None:
    findings = Findings()
    answer = Result("completed", "", (Call("fresh_1", "get_weather", '{"city":"Paris"}'),), "response.completed")
    check_ids(findings, bundled_scenarios()["one_call"], answer)
    (result,) = [r for r in findings.results() if r.outcome == "failed"]
    assert result.rule.id == "GW-ID-001" and "the upstream sent id" in result.violations[0].message
