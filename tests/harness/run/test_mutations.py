"""The mutation table: every broken fake is caught by the rule that names its defect, and the correct fakes pass
every case of the suite. The fakes run through the harness against a real mock on 127.0.0.1, as `callproof run`
runs them: the reference gateway launched (`--launch`), one harness per front x upstream shared by the features'
tests; the broken gateways in one process of this module (tests/fakes/gateway_mux.py), each row reaching its own
by the path of its `--target` with a mock of its own; the broken clients in-process (`--client`), those whose
defect is what a program does (a crash, a hang) and the WebSocket ones as programs (`--client-cmd`). The table is
printed at the end of the test run."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import CATALOGUE
from callproof.harness._options import policy_pair
from callproof.harness._types import FRONT_PATHS, Dialect
from callproof.harness.judge import CaseResult, CaseSpec
from callproof.harness.run import Harness, LaunchedIUT, RunConfig, free_port
from callproof.mock_server import bundled_scenarios
from tests import fakes
from tests.fakes import clients, gateway_mux, gateways, ws_clients

TABLE = json.loads((Path(__file__).parent / "data" / "mutations.json").read_text(encoding="utf-8"))
SCENARIOS = bundled_scenarios()
#: Every feature, the sequences included (played to their end: docs/spec/loops.md, test_sequence_plan.py).
FEATURES = sorted({s.feature for s in SCENARIOS.values()})
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


#: The harness the consecutive tests of one configuration share (at most one open: their parameters are ordered by
#: configuration), so that a correct fake starts once per front x upstream rather than once per feature.
_SHARED: list[tuple[RunConfig, Harness]] = []


def _close_shared() -> None:
    while _SHARED:
        _SHARED.pop()[1].close()


def _shared(config: RunConfig) -> Harness:
    """The open harness of `config`, or a new one in place of the one open."""
    if not (_SHARED and _SHARED[0][0] == config):
        _close_shared()
        _SHARED.append((config, Harness(config)))
    return _SHARED[0][1]


@pytest.fixture(scope="module", autouse=True)
def _shared_harness_closed() -> Iterator[None]:
    yield
    _close_shared()


@pytest.fixture(scope="module")
def mux() -> Iterator[LaunchedIUT]:
    """The process serving every gateway of tests/fakes/gateways.py by path (tests/fakes/gateway_mux.py); a row
    calls `start()` (which restarts it if a row killed it) and reads its port."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])
        process = LaunchedIUT(f"{fakes.command('gateway_mux')} --port {{port}}", upstream="", upstream_root="",
                              start_timeout=60)
        process.start()
    yield process
    process.stop()


def _broken_gateway(mux: LaunchedIUT, defect: str, *, front: Dialect = "responses", upstream: Dialect = "chat",
                    **options: Any) -> RunConfig:
    """A run of the gateway with `defect` in the process of `mux`, through `--target`, with a mock of its own."""
    mux.start()
    mock_port = free_port()
    target = gateway_mux.url(mux.port, mock_port, upstream, defect, FRONT_PATHS[front])
    return RunConfig(target=target, mock_port=mock_port, front=front, upstream_dialect=upstream, case_timeout=15,
                     **options)


def _spec(case_id: str) -> CaseSpec:
    scenario, _, group = case_id.partition("::")
    return CaseSpec(scenario, group)


def _judge(config: RunConfig, case_ids: Sequence[str]) -> list[CaseResult]:
    with Harness(config) as harness:
        return [harness.judge(_spec(c)) for c in case_ids]


def _not_passed(config: RunConfig, feature: str, harness: Harness | None = None) -> list[tuple[str, str, str]]:
    """Run every case of one scenario feature (through `harness`, else one of its own); the cases that neither
    passed nor were skipped."""
    if harness is None:
        with Harness(config) as own:
            return _not_passed(config, feature, own)
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


#: The features whose verdicts are timing-sensitive (GW-STREAM, GW-CANCEL): their tests are marked `timing`.
TIMING_FEATURES = ("timing", "cancellation")


def _timing_pairs(pairs: Sequence[tuple[str, Dialect]]) -> list[Any]:
    """The (feature, dialect) pairs, the timing feature's marked `timing`: the reference gateway must pass it beside
    CPU-bound competitors too."""
    return [pytest.param(f, d, marks=pytest.mark.timing) if f in TIMING_FEATURES else (f, d) for f, d in pairs]


@pytest.mark.parametrize("entry", _timing_rows(TABLE["gateway"]), ids=lambda e: e["defect"])
def test_broken_gateway_is_caught(entry: dict[str, Any], record_property: Any, mux: LaunchedIUT) -> None:
    config = _broken_gateway(mux, entry["defect"], front=entry.get("front", "responses"),
                             upstream=entry.get("upstream", "chat"), policy=tuple(entry.get("policy", ())),
                             max_events=entry.get("max_events"), max_bytes=entry.get("max_bytes"),
                             front_transport=entry.get("front_transport", "http"))
    results = _judge(config, entry["cases"])
    caught = _failed_rules(results)
    _row(record_property, "gateway", entry["defect"], entry["rules"], caught)
    assert [r.outcome for r in results] == ["failed"] * len(results), [(r.spec.id, r.message) for r in results]
    assert set(entry["rules"]) <= caught, f"{entry['defect']}: expected {entry['rules']} to fail, got {sorted(caught)}"


#: The keys a row of the table may have, by kind.
ROW_KEYS = {"gateway": {"defect", "cases", "rules", "front", "upstream", "policy", "max_events", "max_bytes",
                         "front_transport"},
            "client": {"defect", "cases", "rules", "dialect", "transport", "scenarios"}}


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


def test_a_row_policy_reaches_the_judge(mux: LaunchedIUT) -> None:
    """The same converting gateway and cases: caught under the default policy, passing under the row's policy
    (the `policy` key is what makes the keeps_/converts_xml_tool_text rows mean opposite things)."""
    cases = ["xml_tool_text_two_calls::policy", "xml_tool_text_two_calls::expected"]
    default = _judge(_broken_gateway(mux, "converts_xml_tool_text"), cases)
    convert = _judge(_broken_gateway(mux, "converts_xml_tool_text", policy=("xml-tool-text=convert",)), cases)
    assert [r.outcome for r in default] == ["failed", "failed"]
    assert [(r.outcome, r.message) for r in convert] == [("passed", "")] * 2


@pytest.mark.parametrize("front", FRONTS)
def test_the_converting_gateway_passes_the_xml_scenarios_under_convert(front: Dialect, mux: LaunchedIUT) -> None:
    """`--policy xml-tool-text=convert`: the converting fake passes every case of the xml_tool_text scenarios (the
    stream rules, expected, policy, translation, equivalence) at every front; the reference gateway passes them
    under the default policy (test_the_reference_gateway_passes_every_case)."""
    config = _broken_gateway(mux, "converts_xml_tool_text", front=front, policy=("xml-tool-text=convert",))
    assert _not_passed(config, "xml_tool_text") == []


def _client_id(entry: dict[str, Any]) -> str:
    dialect = entry.get("dialect", "responses")
    if entry.get("transport", "http") != "http":
        return f"{entry['transport']}-{entry['defect']}"
    return entry["defect"] if dialect == "responses" else f"{dialect}-{entry['defect']}"


#: The client defects that are what a program does (exit 1 with a traceback, a hang its process group is killed
#: for): run as programs, as the WebSocket clients are; the others in-process (`tests.fakes.clients:broken.NAME`).
PROGRAM_DEFECTS = {"crashes_on_parallel", "hangs"}


@pytest.mark.parametrize("entry", TABLE["client"], ids=_client_id)
def test_broken_client_is_caught(entry: dict[str, Any], record_property: Any) -> None:
    dialect = entry.get("dialect", "responses")
    transport = entry.get("transport", "http")
    # 3 s lets the `hangs` row end soon; the others get 10 s: an adapter process starting on a loaded machine can
    # take longer than 3 s, and a timeout would be an error, not the defect's rule
    timeout = 3.0 if entry["defect"] == "hangs" else 10.0
    if transport == "websocket":
        config = RunConfig(client_cmd=fakes.command("ws_clients", entry["defect"]), client_transport=transport,
                           case_timeout=timeout)
    elif entry["defect"] in PROGRAM_DEFECTS:
        config = RunConfig(client_cmd=f"{fakes.command('clients', entry['defect'])} --dialect {dialect}",
                           client_dialect=dialect, case_timeout=timeout)
    else:
        config = RunConfig(client=f"tests.fakes.clients:broken.{entry['defect']}", client_dialect=dialect,
                           case_timeout=timeout)
    if "scenarios" in entry:  # a test-only scenario beside the bundled ones (the row's defect needs a sharper case)
        config = replace(config, scenario_paths=(Path(__file__).parent / "data" / entry["scenarios"],))
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
    # keywords, or inlines refs and re-serialises JSON outputs, changes no meaning, nor does one that applies the
    # anthropic SDK's strict transform toward Anthropic (test_schema_gateways.py); one that forwards a nameless tool
    # and passes the upstream's 400 on is correct (test_nameless_tool.py); one that aborts its body on an upstream
    # cut, or finishes an Anthropic turn cut after its stop_reason, is correct, and one that invents a finish before
    # the stop_reason is caught on a scenario of its own (test_edge_verdicts.py); a routing header whose name holds
    # "key" is no credential (test_error_leaks.py); a Chat front that writes [DONE] after its error object is correct
    # (docs/spec/verdicts.md §11, test_edge_verdicts.py); one late in its first play only, while its process tree
    # waits for a CPU, passes on a replay, and one late and crowded in every play fails after the last
    # (test_gateway_timing.py)
    assert set(gateways.DEFECTS) - {"dies_on_large_arguments", "delayed_40ms", "rejects_builtin_tools",
                                    "one_at_a_time", "adds_empty_schema_keywords", "rewrites_by_meaning",
                                    "aborts_on_upstream_cut", "chat_aborts_on_upstream_cut",
                                    "anthropic_aborts_on_upstream_cut", "passes_settled_turn",
                                    "invents_finish_after_cut", "routes_by_provider_header",
                                    "error_then_done", "anthropic_strict_transform",
                                    "forwards_nameless_tool", "crowded_once", "crowded_buffering"} == listed, \
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
def test_a_gateway_rejecting_built_in_tools_clearly_passes(upstream: Dialect, mux: LaunchedIUT) -> None:
    """docs/spec/contracts.md §7.12: a 4xx in the front's error shape naming the built-in tools, sent without
    calling the upstream, is a correct answer to builtin_tools_in_request: GW-REQ-008 passes on it in the
    translation case; the scenario's other cases have no stream to judge and are skipped, saying why."""
    config = _broken_gateway(mux, "rejects_builtin_tools", upstream=upstream)
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
    assert _not_passed(_broken_gateway(mux, "rejects_builtin_tools", upstream=upstream), "request_shapes") == []


def _reference_gateway(dialect: Dialect, front: Dialect = "responses") -> RunConfig:
    """The reference gateway (examples/gateway/, unbroken) at its `front` in front of a `dialect` upstream."""
    return RunConfig(launch=f"{fakes.launch()} --upstream-dialect {dialect}", front=front, upstream_dialect=dialect,
                     case_timeout=15)


def _played(features: Sequence[str], dialects: Sequence[Dialect]) -> list[tuple[str, Dialect]]:
    """(feature, dialect) for each feature with a scenario that plays in the dialect, a dialect's consecutive (they
    share its harness): a feature whose scenarios all name other `dialects` has no case where that dialect is
    served, so the pair is not a test (not a skip)."""
    scenarios = SCENARIOS.values()
    return [(f, d) for d in dialects for f in features if any(s.plays_in(d) for s in scenarios if s.feature == f)]


@pytest.mark.parametrize(("feature", "dialect"), _timing_pairs(_played(GATEWAY_FEATURES, GATEWAY_DIALECTS)))
def test_the_reference_gateway_passes_every_case(feature: str, dialect: Dialect) -> None:
    config = _reference_gateway(dialect)
    assert _not_passed(config, feature, _shared(config)) == []


def _at_fronts(pairs: Sequence[tuple[str, Dialect]]) -> list[Any]:
    """(feature, front, dialect) for the Chat and Anthropic fronts, a front x upstream's consecutive (they share its
    harness), the timing features' marked `timing` (as in `_timing_pairs`)."""
    return [pytest.param(f, front, d, id=f"{f}-{d}-{front}", marks=[pytest.mark.timing] if f in TIMING_FEATURES else [])
            for front in FRONTS if front != "responses" for dialect in GATEWAY_DIALECTS
            for f, d in pairs if d == dialect]


@pytest.mark.parametrize(("feature", "front", "dialect"), _at_fronts(_played(FRONT_FEATURES, GATEWAY_DIALECTS)))
def test_the_reference_gateway_passes_at_every_front(feature: str, front: Dialect, dialect: Dialect) -> None:
    config = _reference_gateway(dialect, front)
    assert _not_passed(config, feature, _shared(config)) == []


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
    assert _not_passed(config, feature, _shared(config)) == []


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
    config = RunConfig(launch=PASSTHROUGH, upstream_dialect="responses", case_timeout=15)
    assert _not_passed(config, feature, _shared(config)) == []


def test_a_pass_through_proxy_forwards_upstream_breakage_and_is_caught() -> None:
    config = RunConfig(launch=PASSTHROUGH, upstream_dialect="responses", case_timeout=15)
    results = _judge(config, ["missing_call_id::ids", "fault_malformed::faults", "empty_args_no_delta::reassembly"])
    assert _failed_rules(results) == {"GW-ID-001", "GW-FAULT-003", "RSP-ARGS-004"}
