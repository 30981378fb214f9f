"""Tool schemas compared by meaning in a real run (docs/spec/schema-comparison.md, GW-REQ-002): a gateway that adds
`"$defs": {}` and `"required": []` to every tool schema changes nothing a model or validator sees and passes every
translation case, and so does one that inlines every `$ref`, re-serialises JSON tool outputs and sends `web_search` as
`web_search_preview`; one that drops a property named `title` fails GW-REQ-002 at `$.properties.title`. Toward
Anthropic, the anthropic SDK's strict transform of a structured output passes GW-REQ-010 (§6), and a strict form that
makes an optional property required, or drops a bound instead of moving it into the description, fails it. The fakes
(tests/fakes/schema_gateways.py) run as real processes in front of a real mock on 127.0.0.1."""

from __future__ import annotations

import pytest

from callproof.harness._types import Dialect
from callproof.harness.judge import CaseSpec
from callproof.harness.run import Harness, RunConfig
from tests import fakes


@pytest.fixture(autouse=True)
def _fakes_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])


def _config(defect: str, upstream: Dialect) -> RunConfig:
    return RunConfig(launch=f"{fakes.launch('gateways', defect)} --upstream-dialect {upstream}",
                     upstream_dialect=upstream, case_timeout=15)


@pytest.mark.parametrize("upstream", ["chat", "anthropic", "responses"])
def test_empty_schema_keywords_added_pass_every_translation_case(upstream: Dialect) -> None:
    with Harness(_config("adds_empty_schema_keywords", upstream)) as harness:
        specs = [s for s in harness.cases() if s.group == "translation"]
        results = [harness.judge(s) for s in specs]
    assert len(results) > 50
    assert [(r.spec.id, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    judged = {r.spec.scenario for r in results for rule in r.results if rule.rule.id == "GW-REQ-002"}
    assert {"one_call", "schema_keyword_named_properties", "schema_defs_and_refs"} <= judged


@pytest.mark.parametrize("upstream", ["responses", "anthropic"])
def test_refs_inlined_outputs_reserialised_and_an_equivalent_builtin_pass(upstream: Dialect) -> None:
    """docs/spec/schema-comparison.md §2.1 (GW-REQ-002), §3 (GW-REQ-006), §5 (GW-REQ-008)."""
    with Harness(_config("rewrites_by_meaning", upstream)) as harness:
        specs = [s for s in harness.cases() if s.group == "translation"]
        results = [harness.judge(s) for s in specs]
    assert [(r.spec.id, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    judged = {(r.spec.scenario, rule.rule.id) for r in results for rule in r.results if rule.outcome == "passed"}
    assert {("schema_defs_and_refs", "GW-REQ-002"), ("multi_turn_tool_result", "GW-REQ-006")} <= judged
    if upstream == "responses":
        assert ("builtin_tools_in_request", "GW-REQ-008") in judged


@pytest.mark.parametrize(("upstream", "where"), [("chat", "$.tools[0].function.parameters"),
                                                  ("anthropic", "$.tools[0].input_schema")])
def test_a_dropped_title_property_is_named_by_its_path(upstream: Dialect, where: str) -> None:
    with Harness(_config("drops_title_property", upstream)) as harness:
        result = harness.judge(CaseSpec("schema_keyword_named_properties", "translation"))
    assert [(r.rule.id, r.outcome) for r in result.results if r.outcome == "failed"] == [("GW-REQ-002", "failed")]
    (violation,) = next(r for r in result.results if r.rule.id == "GW-REQ-002").violations
    field = "input_schema" if upstream == "anthropic" else "parameters"
    assert violation.message == (
        f"tool 'create_issue' has {field} that differ from the front's at $.properties.title: absent upstream, "
        'expected {"type": ["string"], "description": "The issue\'s title."} (schemas compared by meaning: '
        "docs/spec/schema-comparison.md); forward the schema unchanged")
    assert violation.evidence.path == f"upstream request {where}.properties.title"
    assert violation.evidence.expected == {"type": ["string"], "description": "The issue's title."}
    assert violation.evidence.actual is None


def test_the_anthropic_sdk_strict_transform_passes_every_case() -> None:
    """docs/spec/schema-comparison.md §6: a gateway that sends each structured output (and strict tool) schema to
    Anthropic through the anthropic SDK's `transform_schema` (every object closed, unsupported keywords moved into
    the description) passes GW-REQ-010 and every other case of the structured outputs, the schema keywords and the
    request shapes."""
    with Harness(_config("anthropic_strict_transform", "anthropic")) as harness:
        features = {"structured_outputs", "schema_keywords", "request_shapes", "items"}
        specs = [s for s in harness.cases()
                 if s.scenario in harness.scenarios and harness.scenarios[s.scenario].feature in features]
        results = [harness.judge(s) for s in specs]
    assert [(r.spec.id, r.message) for r in results if r.outcome not in ("passed", "skipped")] == []
    judged = {r.spec.scenario for r in results for rule in r.results
              if rule.rule.id == "GW-REQ-010" and rule.outcome == "passed"}
    assert {"structured_output_constrained_schema", "structured_output_strict_tool",
            "structured_output_nested_schema", "refusal_under_structured_output"} <= judged


@pytest.mark.parametrize(("defect", "where", "said"), [
    ("strict_form_requires_all", "$.required",
     '$.required: ["days", "notes", "pace", "stops", "title"] upstream, expected ["days", "pace", "stops", "title"]'),
    ("drops_unsupported_keywords", "$.properties.days.maximum", "$.properties.days.maximum: absent upstream, "
     "expected 14"),
])
def test_a_strict_form_that_changes_the_meaning_still_fails(defect: str, where: str, said: str) -> None:
    with Harness(_config(defect, "anthropic")) as harness:
        result = harness.judge(CaseSpec("structured_output_constrained_schema", "translation"))
    assert [(r.rule.id, r.outcome) for r in result.results if r.outcome == "failed"] == [("GW-REQ-010", "failed")]
    (violation,) = next(r for r in result.results if r.rule.id == "GW-REQ-010").violations
    assert violation.message == (
        f"the structured output's schema differs from the front's at {said} (schemas compared by meaning, under "
        "Anthropic's strict normal form: docs/spec/schema-comparison.md §6); forward the schema unchanged or in that "
        "form")
    assert violation.evidence.path == f"upstream request $.output_config.format.schema{where.removeprefix('$')}"
