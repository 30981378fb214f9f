"""An id the stream gave several calls, through real runs against the mock on 127.0.0.1 (docs/spec/contracts.md
§7.9, ids): a client that keeps the repeated id and one that gives a call an id of its own both pass the client and
expected cases of `duplicate_call_ids*`; one that keys calls by id and so loses one is caught by EXP-001 (its
mutation row: `merges_repeated_ids`)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes
from tests.fakes import id_clients

CASES = [CaseSpec(s, g) for s in ("duplicate_call_ids", "duplicate_call_ids_two_tools") for g in ("client", "expected")]
_REPORTED: dict[str, list[str]] = {}
_LOCK = threading.Lock()


def recording_renaming(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """`id_clients.renaming`, remembering the ids it reported by the request's first user text."""
    result = id_clients.renaming(request, base_url, dialect)
    with _LOCK:
        _REPORTED[str(request["input"][0]["content"])] = [c["call_id"] for c in result["tool_calls"]]
    return result


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


@pytest.mark.parametrize("client", ["tests.fakes.clients:run", f"{__name__}:recording_renaming"],
                         ids=["keeps", "renames"])
def test_a_repeated_id_kept_or_made_unique_passes(client: str) -> None:
    with Harness(RunConfig(client=client, case_timeout=15)) as harness:
        results = [harness.judge(spec) for spec in CASES]
    assert [(r.spec.id, r.outcome) for r in results] == [(s.id, "passed") for s in CASES], \
        [(r.spec.id, r.message) for r in results]
    if client.endswith("recording_renaming"):  # the ids were made unique indeed: CLI-004 judged a renamed call
        assert sorted(tuple(ids) for ids in _REPORTED.values()) == [("call_0", "call_0~2"),
                                                                    ("call_dup_tool", "call_dup_tool~2")]


def test_a_client_that_keys_calls_by_id_loses_one_exp_001() -> None:
    config = RunConfig(client_cmd=f"{fakes.command('clients', 'merges_repeated_ids')} --dialect responses",
                       case_timeout=10)
    with Harness(config) as harness:
        results = {r.spec.id: r for r in (harness.judge(spec) for spec in CASES)}
    assert {i: r.outcome for i, r in results.items()} == {
        "duplicate_call_ids::client": "passed", "duplicate_call_ids::expected": "failed",
        "duplicate_call_ids_two_tools::client": "passed", "duplicate_call_ids_two_tools::expected": "failed"}
    (violation,) = next(r for r in results["duplicate_call_ids::expected"].failed if r.rule.id == "EXP-001").violations
    assert violation.message == ('the completed tool calls are 1 call: get_weather({"city":"Madrid"}); expected 2 '
                                 'calls: get_weather({"city":"Paris"}), get_weather({"city":"Madrid"})')
