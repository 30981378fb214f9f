"""The mutation table: every broken fake is caught by the rule that names its defect, and the correct fakes pass
every case of the suite. The fakes are real processes (tests/fakes/), run through the harness against a real mock
on 127.0.0.1, exactly as `callproof run` runs them. The table is printed at the end of the test run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import CATALOGUE
from callproof.harness._options import policy_pair
from callproof.harness._types import Dialect
from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.mock_server import bundled_scenarios
from tests import fakes
from tests.fakes import clients, gateways, ws_clients

TABLE = json.loads((Path(__file__).parent / "data" / "mutations.json").read_text(encoding="utf-8"))
#: Every feature, the sequences included (played to their end: docs/spec/loops.md, test_sequence_plan.py).
FEATURES = sorted({s.feature for s in bundled_scenarios().values()})
#: Raw scenarios replay bytes of one dialect as they are: not a gateway's upstream (the harness leaves them out).
GATEWAY_FEATURES = [f for f in FEATURES if f != "raw"]
#: The upstream dialects the reference gateway speaks (examples/gateway/ UPSTREAMS), and its fronts.
GATEWAY_DIALECTS: tuple[Dialect, ...] = ("chat", "anthropic", "responses")
FRONTS: tuple[Dialect, ...] = ("responses", "chat", "anthropic")
#: The features the Chat and Anthropic fronts run here, over each upstream (the Responses front runs them all;
#: `make matrix` runs the whole corpus for all 9 pairs). They are what a front renders itself rather than passes
#: on: text, single, parallel and interleaved calls (tool-call indexes, blocks open together), the endings (length
#: and content_filter as each front's finish), faults and HTTP errors (fault propagation in each front's error form),
#: earlier calls, agent loops and retries (sequences: tool results in each front's shape), tool_choice and request
#: shapes (request translation from each front's shapes), missing and duplicate upstream ids (fresh ids in each
#: front's id scheme), timing (each front's writes leave as their upstream event arrives), arguments that are not
#: JSON (each front's failure), usage (each front's usage shape) and Chat endings.
#: Left out, to keep `make test` short: unicode, reasoning, large arguments, and arguments or names split or placed
#: oddly upstream: upstream-reader behaviour, the same code whatever the front, run here with the Responses front.
FRONT_FEATURES = ["basic", "parallel", "interleaved", "endings", "faults", "http_errors", "multi_turn", "tool_choice",
                  "missing_ids", "duplicate_ids", "timing", "request_shapes", "malformed_args", "usage",
                  "chat_upstream", "sequences", "cancellation"]


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m tests.fakes...` resolves whatever the working directory."""
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _spec(case_id: str) -> CaseSpec:
    scenario, _, group = case_id.partition("::")
    return CaseSpec(scenario, group)


def _judge(config: RunConfig, case_ids: Sequence[str]) -> list[CaseResult]:
    with Harness(config) as harness:
        return [harness.judge(_spec(c)) for c in case_ids]


def _not_passed(config: RunConfig, feature: str) -> list[tuple[str, str, str]]:
    """Run every case of one scenario feature; the cases that neither passed nor were skipped."""
    with Harness(config) as harness:
        specs = [s for s in harness.cases() if s.scenario in harness.scenarios
                 and harness.scenarios[s.scenario].feature == feature]
        results = [harness.judge(s) for s in specs]
    assert results, f"no case of feature {feature}"
    return [(r.spec.id, r.outcome, r.message) for r in results if r.outcome not in ("passed", "skipped")]


def _failed_rules(results: Sequence[CaseResult]) -> set[str]:
    return {r.rule.id for result in results for r in result.failed}


def _row(record: Any, kind: str, defect: str, rules: Sequence[str], caught: set[str]) -> None:
    row = {"kind": kind, "defect": defect, "rules": list(rules), "caught": sorted(caught & set(rules)),
           "also": sorted(caught - set(rules))}
    record("callproof_mutation", json.dumps(row))


def _timing_rows(rows: Sequence[dict[str, Any]]) -> list[Any]:
    """The rows, those caught by the timing rules (GW-STREAM-*) marked `timing`: `make test-under-load` runs them
    again beside CPU-bound competitors, and a buffering gateway must still be caught there."""
    return [pytest.param(r, marks=pytest.mark.timing) if any(i.startswith(("GW-STREAM-", "GW-CANCEL-"))
                                                              for i in r["rules"]) else r
            for r in rows]


def _timing_pairs(pairs: Sequence[tuple[str, Dialect]]) -> list[Any]:
    """The (feature, dialect) pairs, the timing feature's marked `timing`: the reference gateway must pass it beside
    CPU-bound competitors too."""
    return [pytest.param(f, d, marks=pytest.mark.timing) if f in ("timing", "cancellation") else (f, d)
            for f, d in pairs]


@pytest.mark.parametrize("entry", _timing_rows(TABLE["gateway"]), ids=lambda e: e["defect"])
def test_broken_gateway_is_caught(entry: dict[str, Any], record_property: Any) -> None:
    upstream = entry.get("upstream", "chat")
    config = RunConfig(launch=f"{fakes.launch('gateways', entry['defect'])} --upstream-dialect {upstream}",
                       front=entry.get("front", "responses"), upstream_dialect=upstream, case_timeout=15,
                       policy=tuple(entry.get("policy", ())), max_events=entry.get("max_events"),
                       max_bytes=entry.get("max_bytes"), front_transport=entry.get("front_transport", "http"))
    results = _judge(config, entry["cases"])
    caught = _failed_rules(results)
    _row(record_property, "gateway", entry["defect"], entry["rules"], caught)
    assert [r.outcome for r in results] == ["failed"] * len(results), [(r.spec.id, r.message) for r in results]
    assert set(entry["rules"]) <= caught, f"{entry['defect']}: expected {entry['rules']} to fail, got {sorted(caught)}"


#: The keys a row of the table may have, by kind.
ROW_KEYS = {"gateway": {"defect", "cases", "rules", "front", "upstream", "policy", "max_events", "max_bytes",
                         "front_transport"},
            "client": {"defect", "cases", "rules", "dialect", "transport"}}


@pytest.mark.parametrize("kind", sorted(ROW_KEYS))
def test_every_row_has_known_keys_and_valid_run_options(kind: str) -> None:
    """A misspelt key (`polcy`) would silently run the row with defaults: every key is known, every policy is a
    KEY=VALUE the run accepts, and every case id names a planned group."""
    for entry in TABLE[kind]:
        assert set(entry) <= ROW_KEYS[kind], f"{entry['defect']}: unknown keys {sorted(set(entry) - ROW_KEYS[kind])}"
        assert {"defect", "cases", "rules"} <= set(entry), entry
        policy = entry.get("policy", [])
        assert isinstance(policy, list), f"{entry['defect']}: policy must be a list of KEY=VALUE"
        assert [policy_pair(p) for p in policy] == policy, f"{entry['defect']}: policy {policy}"
        limits = {k: entry[k] for k in ("max_events", "max_bytes") if k in entry}
        assert all(isinstance(v, int) and v >= 1 for v in limits.values()), f"{entry['defect']}: limits {limits}"
        assert RunConfig(target="http://x", mock_port=1, policy=tuple(policy), **limits).problem() is None


def test_a_row_policy_reaches_the_judge() -> None:
    """The same converting gateway and cases: caught under the default policy, passing under the row's policy
    (the `policy` key is what makes the keeps_/converts_xml_tool_text rows mean opposite things)."""
    launch = fakes.launch("gateways", "converts_xml_tool_text")
    cases = ["xml_tool_text_two_calls::policy", "xml_tool_text_two_calls::expected"]
    default = _judge(RunConfig(launch=launch, case_timeout=15), cases)
    convert = _judge(RunConfig(launch=launch, case_timeout=15, policy=("xml-tool-text=convert",)), cases)
    assert [r.outcome for r in default] == ["failed", "failed"]
    assert [(r.outcome, r.message) for r in convert] == [("passed", "")] * 2


@pytest.mark.parametrize("front", FRONTS)
def test_the_converting_gateway_passes_the_xml_scenarios_under_convert(front: Dialect) -> None:
    """`--policy xml-tool-text=convert`: the converting fake passes every case of the xml_tool_text scenarios (the
    stream rules, expected, policy, translation, equivalence) at every front; the reference gateway passes them
    under the default policy (test_the_reference_gateway_passes_every_case)."""
    config = RunConfig(launch=f"{fakes.launch('gateways', 'converts_xml_tool_text')}", front=front, case_timeout=15,
                       policy=("xml-tool-text=convert",))
    assert _not_passed(config, "xml_tool_text") == []


def _client_id(entry: dict[str, Any]) -> str:
    dialect = entry.get("dialect", "responses")
    if entry.get("transport", "http") != "http":
        return f"{entry['transport']}-{entry['defect']}"
    return entry["defect"] if dialect == "responses" else f"{dialect}-{entry['defect']}"


@pytest.mark.parametrize("entry", TABLE["client"], ids=_client_id)
def test_broken_client_is_caught(entry: dict[str, Any], record_property: Any) -> None:
    dialect = entry.get("dialect", "responses")
    transport = entry.get("transport", "http")
    command = (fakes.command("ws_clients", entry["defect"]) if transport == "websocket" else
               f"{fakes.command('clients', entry['defect'])} --dialect {dialect}")
    # 3 s lets the `hangs` row end soon; the others get 10 s: an adapter process starting on a loaded machine can
    # take longer than 3 s, and a timeout would be an error, not the defect's rule
    timeout = 3.0 if entry["defect"] == "hangs" else 10.0
    config = RunConfig(client_cmd=command, client_dialect=dialect, client_transport=transport, case_timeout=timeout)
    results = _judge(config, entry["cases"])
    caught = _failed_rules(results)
    _row(record_property, "client", _client_id(entry), entry["rules"], caught)
    assert [r.outcome for r in results] == ["failed"] * len(results), [(r.spec.id, r.message) for r in results]
    assert set(entry["rules"]) <= caught, f"{entry['defect']}: expected {entry['rules']} to fail, got {sorted(caught)}"


def test_every_harness_rule_is_shown_failing_by_a_fake() -> None:
    shown = {r for kind in ("gateway", "client") for e in TABLE[kind] for r in e["rules"]}
    harness_rules = {r.id for r in CATALOGUE if not r.on_stream}
    assert harness_rules - shown == set()


def test_every_defect_of_the_fakes_is_in_the_table() -> None:
    listed = {e["defect"] for e in TABLE["gateway"]}
    # an IUT crash is an error, not a rule; a merely delayed gateway is correct (test_gateway_timing.py), and so is
    # one that rejects built-in tools clearly (test_a_gateway_rejecting_built_in_tools_clearly_passes); one that
    # streams one response at a time leaves isolation unjudged (test_overlap.py); one that adds empty schema
    # keywords, or inlines refs and re-serialises JSON outputs, changes no meaning (test_schema_gateways.py)
    assert set(gateways.DEFECTS) - {"dies_on_large_arguments", "delayed_40ms", "rejects_builtin_tools",
                                    "one_at_a_time", "adds_empty_schema_keywords", "rewrites_by_meaning"} == listed, \
        "tests.fakes.gateways defects without a table row, or rows without a defect"
    defects: dict[tuple[str, str], type] = {(dialect, name): cls
                                            for dialect, (_, named) in clients.dialect_defects().items()
                                            for name, cls in named.items()}
    defects |= {("websocket", name): cls for name, cls in ws_clients.DEFECTS.items()}
    rows = {(e.get("transport") if e.get("transport", "http") != "http" else e.get("dialect", "responses"), e["defect"])
            for e in TABLE["client"]}
    assert set(defects) == rows, \
        "client defects (of any dialect) without a table row, or rows without a defect"
    for cls in [*gateways.DEFECTS.values(), *defects.values()]:
        assert cls.__doc__ and cls.__doc__.strip(), f"{cls.__name__} has no docstring naming its defect"


@pytest.mark.parametrize("upstream", ["chat", "anthropic"])
def test_a_gateway_rejecting_built_in_tools_clearly_passes(upstream: Dialect) -> None:
    """docs/spec/contracts.md §7.12: a 4xx in the front's error shape naming the built-in tools, sent without
    calling the upstream, is a correct answer to builtin_tools_in_request: GW-REQ-008 passes on it in the
    translation case; the scenario's other cases have no stream to judge and are skipped, saying why."""
    config = RunConfig(launch=f"{fakes.launch('gateways', 'rejects_builtin_tools')} --upstream-dialect {upstream}",
                       upstream_dialect=upstream, case_timeout=15)
    with Harness(config) as harness:
        results = [harness.judge(s) for s in harness.cases() if s.scenario == "builtin_tools_in_request"]
    outcomes = {r.spec.group: r.outcome for r in results}
    assert outcomes.pop("translation") == "passed", [(r.spec.id, r.message) for r in results]
    translation = next(r for r in results if r.spec.group == "translation")
    assert [(r.rule.id, r.outcome) for r in translation.results] == [("GW-REQ-008", "passed")]
    assert outcomes and set(outcomes.values()) == {"skipped"}, [(r.spec.id, r.outcome, r.message) for r in results]
    assert all(r.message == "the gateway rejected the request with HTTP 400, as the scenario allows; judged by "
               "GW-REQ-008 in builtin_tools_in_request::translation" for r in results if r.outcome == "skipped")
    # the other request shapes reach the upstream as before, and pass
    assert _not_passed(config, "request_shapes") == []


def _reference_gateway(dialect: Dialect, front: Dialect = "responses") -> RunConfig:
    """The reference gateway (examples/gateway/, unbroken) at its `front` in front of a `dialect` upstream."""
    return RunConfig(launch=f"{fakes.launch()} --upstream-dialect {dialect}", front=front, upstream_dialect=dialect,
                     case_timeout=15)


def _played(features: Sequence[str], dialects: Sequence[Dialect]) -> list[tuple[str, Dialect]]:
    """(feature, dialect) for each feature with a scenario that plays in the dialect: a feature whose scenarios all
    name other `dialects` has no case where that dialect is served, so the pair is not a test (not a skip)."""
    scenarios = bundled_scenarios().values()
    return [(f, d) for f in features for d in dialects if any(s.plays_in(d) for s in scenarios if s.feature == f)]


@pytest.mark.parametrize(("feature", "dialect"), _timing_pairs(_played(GATEWAY_FEATURES, GATEWAY_DIALECTS)))
def test_the_reference_gateway_passes_every_case(feature: str, dialect: Dialect) -> None:
    assert _not_passed(_reference_gateway(dialect), feature) == []


@pytest.mark.parametrize("front", [f for f in FRONTS if f != "responses"])
@pytest.mark.parametrize(("feature", "dialect"), _timing_pairs(_played(FRONT_FEATURES, GATEWAY_DIALECTS)))
def test_the_reference_gateway_passes_at_every_front(feature: str, front: Dialect, dialect: Dialect) -> None:
    assert _not_passed(_reference_gateway(dialect, front), feature) == []


@pytest.mark.parametrize("dialect", GATEWAY_DIALECTS)
@pytest.mark.parametrize("front", FRONTS)
def test_the_reference_gateway_passes_isolation(front: Dialect, dialect: Dialect) -> None:
    results = _judge(_reference_gateway(dialect, front), ["concurrent::isolation"])
    assert [(r.outcome, r.message) for r in results] == [("passed", "")]


#: Stateful scenarios are a gateway's Responses front's only (docs/spec/stateful.md §5), cancellation ones a
#: gateway's (docs/spec/cancellation.md §1): no client case.
CLIENT_FEATURES = [f for f in FEATURES if f not in ("stateful", "cancellation")]


@pytest.mark.parametrize(("feature", "dialect"), _played(CLIENT_FEATURES, clients.DIALECTS))
def test_the_reference_client_passes_every_case(feature: str, dialect: Dialect) -> None:
    """The reference client of each dialect, in-process (`run` takes the dialect), passes every case played."""
    config = RunConfig(client="tests.fakes.clients:run", client_dialect=dialect, case_timeout=15)
    assert _not_passed(config, feature) == []


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
def test_the_reference_client_as_a_program_gets_its_dialect(dialect: Dialect) -> None:
    """`--client-cmd` without `--dialect`: the fake reads CALLPROOF_DIALECT, and gets the request in that dialect."""
    results = _judge(RunConfig(client_cmd=fakes.command("clients"), client_dialect=dialect, case_timeout=15),
                     ["parallel_two_calls::client", "parallel_two_calls::expected"])
    assert [(r.outcome, r.message) for r in results] == [("passed", "")] * 2


PASSTHROUGH = fakes.launch("passthrough")


@pytest.mark.parametrize("feature", ["basic", "parallel", "interleaved", "timing", "http_errors", "multi_turn",
                                     "tool_choice", "text_and_calls"])
def test_a_pass_through_proxy_on_a_responses_upstream_passes(feature: str) -> None:
    """`--upstream-dialect responses`: a proxy that forwards the mock's own (conformant) Responses streams byte
    for byte passes every group, the streaming ones included."""
    assert _not_passed(RunConfig(launch=PASSTHROUGH, upstream_dialect="responses", case_timeout=15), feature) == []


def test_a_pass_through_proxy_forwards_upstream_breakage_and_is_caught() -> None:
    config = RunConfig(launch=PASSTHROUGH, upstream_dialect="responses", case_timeout=15)
    results = _judge(config, ["missing_call_id::ids", "fault_malformed::faults", "empty_args_no_delta::reassembly"])
    assert _failed_rules(results) == {"GW-ID-001", "GW-FAULT-003", "RSP-ARGS-004"}
