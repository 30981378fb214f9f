"""A throwaway dialect: a copy of the Responses row under a new name (`responses2`, served at /v1/responses2),
added to the dialect table and to every per-floor table for one test, is picked up by every consumer: the CLI's
choices, option validation, the mock's routes, the plan, the checker and the judge, the report target and the
docs generation. A consumer that keeps its own list of dialects (a tuple of names, a dict of paths, an if-chain)
misses the new row and fails one of these tests: the tables are the only place a dialect is named.
"""

from __future__ import annotations

import dataclasses
import io
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from callproof.harness.capture import STRUCTURE_READERS
from callproof.harness.check import CHECKERS, check_bytes, parse_sse
from callproof.harness.cli import main
from callproof.harness.cli._docs import dialect_sections
from callproof.harness.dialects import DIALECTS, Dialect, DialectSpec
from callproof.harness.dialects.responses import RESPONSES
from callproof.harness.judge import BUILTIN_TOOL_READERS, HISTORY_CHECKS, ITEM_READERS
from callproof.harness.outcome import OUTCOME_READERS, result_of_events
from callproof.harness.report_model import Target
from callproof.harness.request import REQUEST_BUILDERS, front_request
from callproof.harness.run import RunConfig
from callproof.harness.scenario import bundled_scenarios
from callproof.mock_server import MockServer
from callproof.mock_server.dialects import RENDERERS, ResponsesRenderer

NAME = cast(Dialect, "responses2")
#: Every per-floor table bound to the dialect table by name: the new row takes the Responses entry of each.
FLOOR_TABLES: tuple[dict[str, Any], ...] = (
    cast(dict[str, Any], CHECKERS), cast(dict[str, Any], OUTCOME_READERS), cast(dict[str, Any], REQUEST_BUILDERS),
    cast(dict[str, Any], STRUCTURE_READERS), cast(dict[str, Any], ITEM_READERS),
    cast(dict[str, Any], BUILTIN_TOOL_READERS), cast(dict[str, Any], HISTORY_CHECKS),
)
SCENARIOS = bundled_scenarios()


class _Renderer2(ResponsesRenderer):
    """The Responses renderer under the new name (a renderer says which dialect it renders)."""

    dialect = NAME


@pytest.fixture
def row(monkeypatch: pytest.MonkeyPatch) -> DialectSpec:
    """The new row in the dialect table and in every per-floor table, for one test (monkeypatch restores them)."""
    new = dataclasses.replace(RESPONSES, name=NAME, display="Responses Two", short="Responses Two",
                              front_path="/v1/responses2", route_suffix="/responses2")
    monkeypatch.setitem(cast(dict[str, DialectSpec], DIALECTS), NAME, new)
    for table in FLOOR_TABLES:
        monkeypatch.setitem(table, NAME, table["responses"])
    monkeypatch.setitem(cast(dict[str, Any], RENDERERS), NAME, _Renderer2())
    return new


def _help(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return out.getvalue()


@pytest.mark.usefixtures("row")
def test_cli_choices_offer_the_new_dialect() -> None:
    for flag in ("--front", "--upstream-dialect", "--client-dialect"):
        assert "responses2" in _help("run").split(flag, 1)[1].split("\n\n")[0], flag
    assert "auto,responses,chat,anthropic,responses2" in _help("check")


def test_options_validate_against_the_table(row: DialectSpec) -> None:
    values = {"launch": "gateway --port {port}", "front": NAME, "upstream_dialect": "chat"}
    config = RunConfig.from_options(lambda name: values.get(name), cwd=Path("."))
    assert config is not None and config.front == NAME
    assert config.front_template.endswith("/v1/responses2")
    assert config.front_credential[1].startswith("Bearer sk-callproof-")
    assert config.problem() is None


def _cases(*argv: str) -> list[str]:
    """The case ids `callproof run ... --list-cases` prints: the plan, made without starting anything."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", *argv, "--list-cases"]) == 0
    return out.getvalue().split()


@pytest.mark.usefixtures("row")
def test_plan_has_the_cases_of_the_row_it_copies() -> None:
    copied = _cases("--launch", "gateway {port}", "--front", "responses")
    assert _cases("--launch", "gateway {port}", "--front", "responses2") == copied
    assert len(copied) > 100
    # served to a client: a scenario that names the dialects it plays in (`dialects: ["responses"]`) or replays
    # one dialect's bytes (`raw`) stays out
    kept = {i for i, s in SCENARIOS.items() if s.plays_in(NAME) and not s.raw}
    client = _cases("--client-cmd", "client", "--client-dialect", "responses")
    assert _cases("--client-cmd", "client", "--client-dialect", "responses2") == [
        c for c in client if c.split("::")[0] not in SCENARIOS or c.split("::")[0] in kept]


@pytest.mark.usefixtures("row")
def test_mock_serves_it_and_the_checker_and_judge_read_it() -> None:
    """The mock routes /v1/responses2 to the new row's renderer; the stream it plays checks clean and reads as
    the scenario's call under the new name; a stream cut short fails."""
    body = front_request("one_call", SCENARIOS["one_call"].request, case="c1", dialect=NAME)
    with MockServer(SCENARIOS, strict=True, seed=1) as server, httpx.Client(timeout=10.0) as client:
        answer = client.post(server.root_url + "/v1/responses2", json=body)
        assert answer.status_code == 200, answer.text
        data = answer.content
        assert server.journal.requests()[-1].dialect == NAME
    report = check_bytes(data, front=NAME)
    assert report.failed == (), report.failed
    result = result_of_events(parse_sse(data)[0], NAME)
    assert [c.name for c in result.calls] == [c.name for c in SCENARIOS["one_call"].calls]
    cut = data[: data.rindex(b"event: response.completed")]
    assert "RSP-LIFE-001" in check_bytes(cut, front=NAME).failed_rules or check_bytes(cut, front=NAME).failed


def test_report_target_names_it(row: DialectSpec) -> None:
    config = RunConfig(launch="gateway", front=NAME, upstream_dialect="chat")
    target = Target.from_json(config.target_json())
    assert target.dialects == "responses2 front, chat upstream"


def test_docs_list_it(row: DialectSpec) -> None:
    lines = dialect_sections()["dialects"]
    assert any(line.startswith("| `responses2` | Responses Two | `/v1/responses2` |") for line in lines), lines
