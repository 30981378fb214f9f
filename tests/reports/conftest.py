"""Fixtures for the report formats: real reports written by the harness (tests/reports/data/, regenerated with
data/make_fixtures.py), loaded fresh for every test so a test may change its copy, and the JUnit XSD."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import xmlschema

from callproof.harness.report_model import Case, Summary
from callproof.reports import load_report

DATA = Path(__file__).resolve().parent / "data"

#: Builds a report from a fixture report and a list of cases, the summary recomputed as the harness does.
WithCases = Callable[[Mapping[str, Any], list[dict[str, Any]]], dict[str, Any]]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture
def failing() -> dict[str, Any]:
    """A failure in every rule family, a SHOULD-only failure, an error, a skip, a baseline-covered failure and
    a stale baseline entry (24 cases)."""
    return load_report(DATA / "failing.json")


@pytest.fixture
def passing() -> dict[str, Any]:
    """The reference gateway: every case passed."""
    return load_report(DATA / "passing.json")


@pytest.fixture
def incomplete() -> dict[str, Any]:
    """The JSON Lines report of a run killed mid-way: no footer, the last line cut."""
    return load_report(DATA / "incomplete.jsonl")


@pytest.fixture(scope="session")
def with_cases() -> WithCases:
    def build(report: Mapping[str, Any], cases: list[dict[str, Any]]) -> dict[str, Any]:
        summary = Summary.of(Case.from_json(c) for c in cases).to_json()
        return {**copy.deepcopy(dict(report)), "summary": summary, "cases": cases}

    return build


@pytest.fixture
def many_failures(failing: dict[str, Any], with_cases: WithCases) -> dict[str, Any]:
    """500 failed cases: the fixture's failed cases copied under new ids, every failed rule among them."""
    failed = [c for c in failing["cases"] if c["outcome"] == "failed"]
    cases = []
    for i in range(500):
        case = copy.deepcopy(failed[i % len(failed)])
        case["scenario"] = f"copy_{i:03d}_{case['scenario']}"
        case["id"] = f"{case['scenario']}::{case['group']}"
        cases.append(case)
    return with_cases(failing, cases)


@pytest.fixture(scope="session")
def junit_schema() -> xmlschema.XMLSchema:
    """The Jenkins xUnit plugin's JUnit schema (data/junit-10.xsd: source and license in its header)."""
    return xmlschema.XMLSchema(DATA / "junit-10.xsd")
