"""Client mode's isolation case (CLI-012): nine adapter runs at once against one mock, each with its own case tag.
The reference clients pass in every dialect; an in-process client that keeps its calls in a module-level list is
caught; one that rewrites the case tag leaves nothing to judge (an error, never a pass)."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest

from callproof.harness._types import DIALECTS, Dialect
from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from callproof.harness.run._plan import ISOLATION_SCENARIOS
from tests.fakes import clients

ISOLATION = CaseSpec("concurrent", "isolation")
_SEEN: list[dict[str, Any]] = []
_LOCK = threading.Lock()


def leaky_run(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """The reference client, but its calls go to a module-level accumulator that is never cleared, and it reports
    everything accumulated so far."""
    result = clients.run(request, base_url, dialect)
    with _LOCK:
        _SEEN.extend(result["tool_calls"])
        return {**result, "tool_calls": list(_SEEN)}


def fixed_tag_run(request: dict[str, Any], base_url: str, dialect: str = "responses") -> dict[str, Any]:
    """The reference client sending every request under one fixed case tag."""
    text = re.sub(r"\[callproof:case=[^\]]*\]", "[callproof:case=fixed]", _first_user_text(request))
    return clients.run(_with_first_user_text(request, text), base_url, dialect)


def _first_user_text(request: dict[str, Any]) -> str:
    item = next(i for i in request["input"] if i.get("role") == "user")
    return str(item["content"][0]["text"])


def _with_first_user_text(request: dict[str, Any], text: str) -> dict[str, Any]:
    items = []
    replaced = False
    for item in request["input"]:
        if not replaced and item.get("role") == "user":
            item = {**item, "content": [{**item["content"][0], "text": text}, *item["content"][1:]]}
            replaced = True
        items.append(item)
    return {**request, "input": items}


def _judge(client: str, dialect: Dialect = "responses") -> Any:
    with Harness(RunConfig(client=client, client_dialect=dialect, case_timeout=15)) as harness:
        return harness.judge(ISOLATION)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_client_passes_isolation(dialect: Dialect) -> None:
    result = _judge("tests.fakes.clients:run", dialect)
    assert (result.outcome, result.message) == ("passed", "")
    assert [r.rule.id for r in result.results if r.outcome == "passed"] == ["CLI-012"]
    assert result.details["concurrent"] == len(ISOLATION_SCENARIOS)
    assert result.details["overlapped"] >= 2  # held at the mock until every run had called it


def test_a_module_level_accumulator_fails_cli_012() -> None:
    _SEEN.clear()
    result = _judge(f"{__name__}:leaky_run")
    assert result.outcome == "failed"
    assert [r.rule.id for r in result.results if r.outcome == "failed"] == ["CLI-012"]
    assert "holds output of concurrent case(s)" in result.message


def test_a_fixed_case_tag_leaves_nothing_to_judge() -> None:
    result = _judge(f"{__name__}:fixed_tag_run")
    assert result.outcome == "error"
    assert "never called the mock with its case's request" in result.message
