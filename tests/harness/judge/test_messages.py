"""Messages a user reads never print Python's `None`: a missing value is `null` (the JSON-ish house style), or is
named ("no call_id", "missing", "no HTTP status"). The judge's rules on missing ids, headers and usage, the checker
on events without a type, and every message of every example capture and of the corpus' streams."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from callproof.harness import Dialect, check_bytes
from callproof.harness.check import check_capture, shown
from callproof.harness.judge import Findings, check_faults, check_ids, read_answer, what_arrived
from callproof.harness.outcome import Call, Chunk, Exchange, Result
from callproof.harness.scenario import bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

SCENARIOS = bundled_scenarios()
CAPTURES = Path(__file__).resolve().parents[3] / "examples" / "captures"
_NONE = re.compile(r"\bNone\b")


def _failed(findings: Findings) -> dict[str, list[str]]:
    return {r.rule.id: [v.message for v in r.violations] for r in findings.results() if r.outcome == "failed"}


def _exchange(status: int | None, body: bytes = b"", headers: dict[str, str] | None = None) -> Exchange:
    chunks = (Chunk(0.0, body),) if body else ()
    return Exchange("http://127.0.0.1:1/v1/responses", {}, 0.0, status, headers or {}, chunks)


def test_shown_says_null_true_false_and_quotes_the_rest() -> None:
    assert [shown(v) for v in (None, True, False, "call_1", 3)] == ["null", "true", "false", "'call_1'", "3"]


def test_a_call_without_call_id_is_said_to_have_none() -> None:
    findings = Findings()
    result = Result("completed", "", (Call(None, "get_weather", "{}"),), "response.completed")
    check_ids(findings, SCENARIOS["missing_call_id"], result)
    assert _failed(findings) == {"GW-ID-001": ["call 0 (get_weather) has no call_id; the upstream sent no id"]}


def test_a_dropped_retry_after_is_missing() -> None:
    body = json.dumps({"error": {"message": "Rate limited", "type": "rate_limit_error"}}).encode()
    answer = read_answer(_exchange(429, body, {"content-type": "application/json"}), "openai", "responses")
    findings = Findings()
    check_faults(findings, SCENARIOS["fault_http_429"], answer)
    [message] = _failed(findings)["GW-FAULT-002"]
    assert message.startswith("Retry-After is missing at the front; the upstream sent ")


def test_an_answer_without_a_status_line_says_so() -> None:
    answer = read_answer(_exchange(None), "openai", "responses")
    assert what_arrived(answer) == "no HTTP status no content-type, 0 bytes, 0 events"


@pytest.mark.parametrize(("front", "rule"), [("responses", "RSP-LIFE-001"), ("anthropic", "ANT-LIFE-001")])
def test_an_event_without_a_type_is_null(front: Dialect, rule: str) -> None:
    report = check_bytes(b'data: {"hello": 1}\n\n', front=front)
    messages = [v.message for r in report.failed if r.rule.id == rule for v in r.violations]
    assert messages and messages[0].startswith("the first event is null, not ")


def _capture_messages() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for manifest in sorted(CAPTURES.glob("*/*/manifest.json")):
        doc: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8"))
        for capture in doc["captures"]:
            path = manifest.parent / capture["file"]
            with path.open("rb") as stream:
                report = check_capture(stream, str(path), front=doc["front"], profile=doc["profile"])
            found += [(path.name, v.message) for r in report.results for v in r.violations]
    return found


def test_no_message_of_an_example_capture_says_none() -> None:
    messages = _capture_messages()
    assert len(messages) > 50
    assert [(name, m) for name, m in messages if _NONE.search(m)] == []


def test_no_message_on_the_corpus_streams_says_none() -> None:
    """Every bundled scenario as the mock streams it (raw frames and declared breaks included), in every dialect."""
    found: list[tuple[str, str, str]] = []
    for scenario in SCENARIOS.values():
        for dialect, renderer in RENDERERS.items():
            data = renderer.stream(scenario, RenderContext(model="m", request={})).body
            report = check_bytes(data, front=dialect)
            found += [(scenario.id, dialect, v.message) for r in report.results for v in r.violations]
    assert len(found) > 50
    assert [row for row in found if _NONE.search(row[2])] == []
