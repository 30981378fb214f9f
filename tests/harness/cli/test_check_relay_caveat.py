"""`callproof check` on a bare capture whose call arguments are not JSON (scenarios/malformed_args.json as the mock
streams it, at each front): still a failure of the front's rule, and the message says that a capture cannot tell
whose fault it is, and where `callproof run` can (docs/spec/contracts.md §7.8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from callproof.harness.check import RELAY_CAVEAT
from callproof.harness.cli import main
from callproof.harness.scenario import bundled_scenarios
from callproof.mock_server.dialects import RENDERERS, RenderContext

CAVEAT = ("; a capture cannot tell whether the upstream or the relay wrote it: in a `callproof run` against the mock, "
          "a gateway relaying the upstream's bytes unchanged is not failed for it (docs/spec/contracts.md §7.8)")
MESSAGES = {
    "responses": ("RSP-ARGS-004", 'arguments "{\\"city\\": \\"Paris\\"" are not valid JSON'),
    "chat": ("CHAT-TC-006", 'tool call 0 arguments "{\\"city\\": \\"Paris\\"" are not valid JSON'),
    "anthropic": ("ANT-TOOL-002", 'tool_use block 0: joined partial_json "{\\"city\\": \\"Paris\\"" is not valid JSON'),
}
DETAIL = " (Expecting ',' delimiter: line 1 column 17 (char 16))"


@pytest.mark.parametrize("front", sorted(MESSAGES))
def test_a_capture_with_arguments_that_are_not_json_fails_and_says_whose_fault_cannot_be_told(
        front: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = bundled_scenarios()["malformed_args_completed"]
    capture = tmp_path / f"{front}.sse"
    capture.write_bytes(RENDERERS[front].stream(scenario, RenderContext()).body)  # type: ignore[index]
    assert main(["check", "--front", front, "--format", "json", str(capture)]) == 1
    (checked,) = json.loads(capsys.readouterr().out)["checks"]
    failed = [r for r in checked["results"] if r["outcome"] == "failed"]
    rule, words = MESSAGES[front]
    assert [r["rule"] for r in failed] == [rule]
    assert [v["message"] for v in failed[0]["violations"]] == [words + DETAIL + CAVEAT]
    assert failed[0]["violations"][0]["evidence"]["actual"] == '{"city": "Paris"'
    assert CAVEAT == RELAY_CAVEAT


def test_a_json_value_that_is_not_an_object_gets_no_caveat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`[1]` is JSON: a gateway could not have relayed it under GW-ARGS-001's pass-through, so no caveat."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [
        {"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                                                    "function": {"name": "f", "arguments": "[1]"}}]},
         "finish_reason": None}]}
    end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    capture = tmp_path / "list.sse"
    capture.write_text(f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(end)}\n\ndata: [DONE]\n\n", encoding="utf-8")
    assert main(["check", "--front", "chat", "--format", "json", str(capture)]) == 1
    (checked,) = json.loads(capsys.readouterr().out)["checks"]
    messages = [v["message"] for r in checked["results"] if r["rule"] == "CHAT-TC-006" for v in r["violations"]]
    assert messages == ['tool call 0 arguments "[1]" are a JSON list, not an object']
