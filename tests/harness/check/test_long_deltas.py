"""Arguments streamed in more deltas than one joined run holds (the checker joins deltas in runs to bound memory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from callproof.harness import check_events, parse_sse

CAPTURE = Path(__file__).resolve().parents[3] / "examples" / "captures" / "responses" / "openai" / "ok" / "one-call.sse"
ARGUMENTS = json.dumps({"note": "abcdefghij" * 100})  # 1,012 characters: one delta each, several joined runs


def _one_call(deltas: list[str], done: str) -> list[dict[str, Any]]:
    """one-call.sse with the call's argument deltas and final arguments replaced, sequence numbers renumbered."""
    events = [json.loads(e.data) for e in parse_sse(CAPTURE.read_bytes())[0]]
    first = next(i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta")
    template = events[first]
    kept = [e for e in events if e["type"] != "response.function_call_arguments.delta"]
    rebuilt = kept[:first] + [{**template, "delta": d} for d in deltas] + kept[first:]
    for seq, event in enumerate(rebuilt):
        event["sequence_number"] = seq
        if event["type"] == "response.function_call_arguments.done":
            event["arguments"] = done
        elif event["type"] == "response.output_item.done":
            event["item"]["arguments"] = done
        elif event["type"] == "response.completed":
            for item in event["response"]["output"]:
                if item["type"] == "function_call":
                    item["arguments"] = done
    return rebuilt


def test_a_thousand_deltas_join_to_the_done_arguments() -> None:
    report = check_events(_one_call(list(ARGUMENTS), ARGUMENTS))
    assert report.conformant, report.failed_rules


def test_a_difference_after_many_deltas_is_caught_and_the_deltas_counted() -> None:
    deltas = list(ARGUMENTS)
    deltas[700] = "X"
    report = check_events(_one_call(deltas, ARGUMENTS))
    failed = {r.rule.id: r for r in report.failed}
    assert "RSP-ARGS-001" in failed
    assert f"the {len(ARGUMENTS)} joined deltas" in failed["RSP-ARGS-001"].violations[0].message
