"""Every table keyed by dialect name has exactly the dialect table's rows (a dialect added to `DIALECTS` and missing
from a floor's table fails here, naming the table), and the JSON Schemas list the same names."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib.resources import files
from typing import Any

import pytest

from callproof.harness.capture import STRUCTURE_READERS
from callproof.harness.catalogue import FRONTS
from callproof.harness.check import CHECKERS
from callproof.harness.dialects import DIALECTS, Column
from callproof.harness.judge import BUILTIN_TOOL_READERS, HISTORY_CHECKS, ITEM_READERS
from callproof.harness.outcome import OUTCOME_READERS
from callproof.harness.request import REQUEST_BUILDERS
from callproof.mock_server.dialects import RENDERERS

TABLES: dict[str, Mapping[Any, Any]] = {
    "check.CHECKERS": CHECKERS, "outcome.OUTCOME_READERS": OUTCOME_READERS,
    "request.REQUEST_BUILDERS": REQUEST_BUILDERS, "capture.STRUCTURE_READERS": STRUCTURE_READERS,
    "judge.ITEM_READERS": ITEM_READERS, "judge.BUILTIN_TOOL_READERS": BUILTIN_TOOL_READERS,
    "judge.HISTORY_CHECKS": HISTORY_CHECKS, "mock_server.dialects.RENDERERS": RENDERERS,
}


def test_the_table_is_keyed_by_each_rows_name_in_the_clis_order() -> None:
    assert list(DIALECTS) == ["responses", "chat", "anthropic"]
    assert all(name == row.name for name, row in DIALECTS.items())


@pytest.mark.parametrize("name", TABLES)
def test_each_floors_table_has_one_entry_per_row(name: str) -> None:
    assert list(TABLES[name]) == list(DIALECTS), f"{name} must have exactly the rows of DIALECTS, in its order"


def test_each_renderer_renders_its_rows_dialect() -> None:
    assert {name: r.dialect for name, r in RENDERERS.items()} == {name: name for name in DIALECTS}


def test_columns_read_the_rows_live() -> None:
    assert dict(Column("front_path")) == {n: r.front_path for n, r in DIALECTS.items()}
    assert dict(Column("key_prefix")) == {"responses": "sk-callproof-", "chat": "sk-callproof-",
                                          "anthropic": "sk-ant-callproof-"}
    assert FRONTS is DIALECTS


def _enums(node: Any) -> Iterator[list[str]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list) and "anthropic" in node["enum"]:
            yield [v for v in node["enum"] if isinstance(v, str)]
        for value in node.values():
            yield from _enums(value)
    elif isinstance(node, list):
        for value in node:
            yield from _enums(value)


@pytest.mark.parametrize("schema", ["report.schema.json", "scenario.schema.json"])
def test_schema_enums_of_dialects_name_the_rows(schema: str) -> None:
    found = list(_enums(json.loads((files("callproof.schemas") / schema).read_text(encoding="utf-8"))))
    assert found, f"{schema}: no enum of dialect names"
    for enum in found:
        assert enum == list(DIALECTS), f"schemas/{schema}: an enum {enum} of dialects is not the table's names"
